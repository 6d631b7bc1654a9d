/**
 * TFRecord framing, the container of TensorBoard event files. Each record is
 *
 *   uint64 length (little-endian) | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)
 *
 * with masked(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8 (mod 2^32). Reading never throws: a
 * record whose data CRC is wrong is skipped and counted; a header whose CRC is wrong cannot be
 * trusted for its length, so the reader counts it and scans forward byte by byte to the next
 * header that checks; a record running past the end is the truncated tail and ends the read.
 * Pure: no Node, no DOM.
 */
import { crc32c } from '@aws-crypto/crc32c';

const MASK_DELTA = 0xa282ead8;
const HEADER = 12; // length (8) + its CRC (4)
const FOOTER = 4;

export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes) >>> 0;
  return ((((c >>> 15) | (c << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

/** One record framed: header, data, footer. */
export function frameRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + data.length + FOOTER);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, HEADER);
  view.setUint32(HEADER + data.length, maskedCrc32c(data), true);
  return out;
}

/** Concatenates framed records into one file's bytes. */
export function frameRecords(records: readonly Uint8Array[]): Uint8Array {
  const framed = records.map(frameRecord);
  const out = new Uint8Array(framed.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of framed) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

interface RecordScan {
  /** The records whose header and data both checked, in file order (views into the input). */
  records: Uint8Array[];
  /** Records dropped for a bad data CRC, plus headers dropped for a bad length CRC. */
  skipped: number;
  /** Bytes after the last whole record that do not form one (a file cut off mid-write), 0 if none. */
  truncatedBytes: number;
}

/** Reads every intact record of a TFRecord file; see the module comment for damaged input. */
export function readRecords(bytes: Uint8Array): RecordScan {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: Uint8Array[] = [];
  let skipped = 0;
  let at = 0;
  let resyncing = false;
  while (at < bytes.length) {
    if (bytes.length - at < HEADER) break;
    const headerOk = view.getUint32(at + 8, true) === maskedCrc32c(bytes.subarray(at, at + 8));
    if (!headerOk) {
      // The length is not trustworthy: count the damage once, then look for the next good header.
      if (!resyncing) skipped++;
      resyncing = true;
      at++;
      continue;
    }
    resyncing = false;
    const length = view.getBigUint64(at, true);
    if (length > BigInt(bytes.length - at - HEADER - FOOTER)) break; // runs past the end: truncated
    const n = Number(length);
    const data = bytes.subarray(at + HEADER, at + HEADER + n);
    if (view.getUint32(at + HEADER + n, true) === maskedCrc32c(data)) records.push(data);
    else skipped++;
    at += HEADER + n + FOOTER;
  }
  // A scan that was still looking for a header when the bytes ran out ended in damage already
  // counted; only an unread tail after good records counts as truncation.
  return { records, skipped, truncatedBytes: resyncing ? 0 : bytes.length - at };
}
