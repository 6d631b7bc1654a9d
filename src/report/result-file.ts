/**
 * Result files (`*.lab.json.gz`): a session or a sweep as it ran, to share and open read-only
 * (docs/sharing.md#what-a-result-file-holds). A link shares an experiment, which whoever opens it
 * must train again, on a machine whose kernels round differently; a result file holds what ran:
 * every metric frame of every run and seed, the Findings and What differs the sender saw, a
 * bounded sample of rollouts, the live changes, and the machines it ran on. No checkpoints.
 *
 * Layout: gzip of one text, a header line, a newline, then the body (JSON):
 *   {"format":"agentwise-lab-result","version":1,"sha256":"<64 hex>","bytes":<body length>}
 * The SHA-256 is over the body's bytes exactly, so any change to them is seen, and it names the
 * result (its content address). The header gives the version before the body is read.
 *
 * Reading is strict (result-check.ts checks the body): a file over 50 MB, one that is not gzip or
 * is cut off, a body that inflates past its bound, a newer version, a hash that does not match,
 * nesting deeper than any result's, and every field not as this lab writes it are refused with a
 * ResultRefused saying which; nothing else escapes. Pure: no Node, no DOM; readResult is
 * synchronous (fflate, @noble/hashes), the same in page, worker and Node; readResultNative, the
 * result worker's, opens the same results with the platform's gzip and SHA-256 (web standards
 * that Node has too), asynchronous as they are.
 */
import { Gunzip, gzipSync } from 'fflate';
import { sha256Hex } from '../core/sha256';
import { checkBody } from './result-check';
import {
  MAX_BODY_BYTES,
  MAX_DEPTH,
  MAX_RESULT_BYTES,
  RESULT_FORMAT,
  RESULT_VERSION,
  ResultRefused,
} from './result-format';
import type { Result, ResultBody } from './result-format';

/** JSON has no NaN: a frame's missing value is written as null (and read back as NaN). */
const frameJson = (f: Float64Array): (number | null)[] =>
  Array.from(f, (v) => (Number.isFinite(v) ? v : null));

/**
 * Body bytes framed as a result file: the header (this format, `version`, the body's SHA-256 and
 * length), a newline, the body, gzipped (deterministic: no time in the gzip header).
 */
export function framedResult(body: Uint8Array, version = RESULT_VERSION): Uint8Array {
  const header = JSON.stringify({
    format: RESULT_FORMAT,
    version,
    sha256: sha256Hex(body),
    bytes: body.length,
  });
  const head = new TextEncoder().encode(`${header}\n`);
  const text = new Uint8Array(head.length + body.length);
  text.set(head);
  text.set(body, head.length);
  return gzipSync(text, { level: 9, mtime: 0 });
}

/** The result file's bytes. */
export function writeResult(body: ResultBody): Uint8Array {
  const json = { ...body, runs: body.runs.map((r) => ({ ...r, frames: r.frames.map(frameJson) })) };
  return framedResult(new TextEncoder().encode(JSON.stringify(json)));
}

/** gzip's magic bytes, and its shortest file: a 10-byte header and an 8-byte trailer. */
const GZIP = [0x1f, 0x8b];
const GZIP_MIN = 18;
const MB = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

/**
 * The most deflate makes of one compressed byte: a 258-byte match in 2 bits. A trailer that
 * claims more than this of the whole file is no trailer: the file ends somewhere in its data.
 */
const DEFLATE_MAX_RATIO = 1032;

/**
 * The inflated text's length as its header line states it (the line, its newline and the body's
 * `bytes`), read from the first kilobyte inflated, no more; null where that holds no such line.
 */
function statedSize(bytes: Uint8Array): number | null {
  const head: number[] = [];
  const g = new Gunzip((chunk) => head.push(...chunk.subarray(0, 1001 - head.length)));
  try {
    for (let at = 0; at < bytes.length && !head.includes(0x0a) && head.length < 1001; at += 1024)
      g.push(bytes.subarray(at, at + 1024));
  } catch {
    return null;
  }
  const nl = head.indexOf(0x0a);
  if (nl < 0) return null;
  let h: unknown;
  try {
    h = JSON.parse(new TextDecoder().decode(Uint8Array.from(head.slice(0, nl))));
  } catch {
    return null;
  }
  const body = (h as { bytes?: unknown } | null)?.bytes;
  return Number.isSafeInteger(body) ? nl + 1 + (body as number) : null;
}

/** A trailer that is none: the file ends somewhere in its compressed data, or was damaged there. */
const noTrailer = (claimed: number, why: string) =>
  new ResultRefused(
    `its compressed data ends early or is damaged (its last bytes claim ${MB(claimed)} inflated, ${why}): the file was cut off or damaged`,
  );

/**
 * What gzip's last 4 bytes say the inflated text holds (mod 2³²; a result is far smaller),
 * refused before anything is inflated when no gzip of this length can hold that much (the file
 * was cut off, and its last bytes are compressed data), or when that is past `max`: as cut off
 * where the header line, the first kilobyte inflated, states another length; else as too large.
 */
function claimedSize(bytes: Uint8Array, max: number): number {
  if (bytes.length < GZIP_MIN)
    throw new ResultRefused('its compressed data ends early: the file was cut off');
  const claimed = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 4, true);
  if (claimed > bytes.length * DEFLATE_MAX_RATIO)
    throw noTrailer(claimed, `more than gzip makes of ${bytes.length} bytes`);
  if (claimed > max) {
    const stated = statedSize(bytes);
    if (stated !== null && stated % 2 ** 32 !== claimed)
      throw noTrailer(claimed, `where its header says ${MB(stated)}`);
    throw new ResultRefused(
      `its gzip trailer says ${MB(claimed)} inflated, past ${MB(max)}: the file was cut off or damaged, or is no result this lab writes`,
    );
  }
  return claimed;
}

/** `chunks` as one array of `size` bytes. */
export function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  chunks.reduce((at, c) => (out.set(c, at), at + c.length), 0);
  return out;
}

/**
 * The inflated bytes. Inflating stops as soon as they pass what the trailer claims
 * (claimedSize), so a bomb or a damaged stream costs no more than the size it claims.
 */
function gunzipBounded(bytes: Uint8Array, claimed: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  const damaged = () =>
    new ResultRefused('its compressed data does not match its length: the file was cut off or damaged');
  const g = new Gunzip((chunk, final) => {
    size += chunk.length;
    if (size > claimed) throw damaged();
    chunks.push(chunk);
    ended ||= final;
  });
  const STEP = 1 << 16;
  try {
    for (let at = 0; at < bytes.length; at += STEP)
      g.push(bytes.subarray(at, at + STEP), at + STEP >= bytes.length);
  } catch (e) {
    if (e instanceof ResultRefused) throw e;
    // fflate's code 0: the data stopped inside a block.
    if ((e as { code?: unknown }).code === 0)
      throw new ResultRefused('its compressed data ends early: the file was cut off', { cause: e });
    throw new ResultRefused(`its compressed data is damaged (${(e as Error).message}): a corrupt file`, {
      cause: e,
    });
  }
  if (!ended || size !== claimed) throw damaged();
  return joined(chunks, size);
}

/** The header line, checked: this format, a version this lab reads, a hash and the body's length. */
function readHeader(line: string): { sha256: string; bytes: number } {
  let h: unknown;
  try {
    h = JSON.parse(line);
  } catch {
    throw new ResultRefused('its header is not JSON: not a result file');
  }
  const r = (typeof h === 'object' && h !== null ? h : {}) as Record<string, unknown>;
  if (r.format !== RESULT_FORMAT)
    throw new ResultRefused(`not a result file (no "format": "${RESULT_FORMAT}")`);
  if (typeof r.version === 'number' && r.version > RESULT_VERSION)
    throw new ResultRefused(
      `format version ${r.version}, written by a newer lab: this one reads version ${RESULT_VERSION}; open it in a newer lab`,
    );
  if (r.version !== RESULT_VERSION) throw new ResultRefused(`its format version is not one this lab writes`);
  if (typeof r.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(r.sha256))
    throw new ResultRefused('its header has no SHA-256 of the body');
  if (!Number.isSafeInteger(r.bytes) || (r.bytes as number) < 0)
    throw new ResultRefused('its header has no body length');
  return { sha256: r.sha256, bytes: r.bytes as number };
}

/** Keys that would reach an object's prototype if a reader ever assigned them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A JSON string's text (its escapes read), or '' where it is not one: JSON.parse then refuses the body. */
function keyText(quoted: string): string {
  if (!quoted.includes('\\')) return quoted.slice(1, -1);
  try {
    return String(JSON.parse(quoted));
  } catch {
    return '';
  }
}

/**
 * What is hostile in JSON text's shape, before it is parsed: nesting deeper than `limit`, or an
 * object key that names a prototype; null when neither. One pass, strings skipped over escapes.
 */
function hostileShape(text: string, limit: number): string | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i + 1;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      // A key is a string followed by a colon; only a short one can spell a prototype's, escapes
      // (`__pro\u0074o__`) included.
      if (i - start <= 80) {
        let j = i + 1;
        while (text.charCodeAt(j) <= 0x20) j++;
        const key = text.charCodeAt(j) === 0x3a ? keyText(text.slice(start - 1, i + 1)) : '';
        if (PROTOTYPE_KEYS.has(key)) return `it holds a key "${key}", which no result has`;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return `its body nests deeper than ${limit} levels`;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return null;
}

/** Why a file of `size` bytes is not read at all, or null: a reader may ask before it reads one. */
export const tooLarge = (size: number): string | null =>
  size > MAX_RESULT_BYTES ? `${MB(size)}: a result file is at most ${MB(MAX_RESULT_BYTES)}` : null;

/**
 * The text itself where `bytes` are a result's text already inflated (it starts with its header
 * line's "{"): what a host that serves the file with `Content-Encoding: gzip` hands the page, the
 * browser having inflated it on the way. Its header and hash are checked as a file's are. Null
 * where they are gzip or anything else.
 */
function inflatedAlready(bytes: Uint8Array): Uint8Array | null {
  if (bytes[0] !== 0x7b) return null;
  if (bytes.length > MAX_BODY_BYTES)
    throw new ResultRefused(`${MB(bytes.length)} of text: a result's is at most ${MB(MAX_BODY_BYTES)}`);
  return bytes;
}

/** A file's checks before it is inflated; returns what its trailer claims the text holds. */
function inflatable(bytes: Uint8Array): number {
  const large = tooLarge(bytes.length);
  if (large) throw new ResultRefused(large);
  if (bytes.length < 2 || bytes[0] !== GZIP[0] || bytes[1] !== GZIP[1])
    throw new ResultRefused("neither gzip-compressed nor a result's text: not a result file (*.lab.json.gz)");
  return claimedSize(bytes, MAX_BODY_BYTES);
}

/** The inflated text's header, checked, and its body (the bytes the hash is over). */
function framing(text: Uint8Array): { sha256: string; body: Uint8Array } {
  const nl = text.indexOf(0x0a);
  if (nl < 0 || nl > 1000) throw new ResultRefused('no header line: not a result file');
  const header = readHeader(new TextDecoder().decode(text.subarray(0, nl)));
  const body = text.subarray(nl + 1);
  if (body.length !== header.bytes)
    throw new ResultRefused(
      `its body is ${body.length} bytes where its header says ${header.bytes}: a damaged file`,
    );
  return { sha256: header.sha256, body };
}

const HASH_MISMATCH =
  'its content hash does not match its body: the file was changed or damaged after it was written';

/** The body whose hash has been checked, read: UTF-8, its shape, JSON, then every field (result-check.ts). */
function parsedBody(body: Uint8Array, sha256: string): Result {
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new ResultRefused('its body is not UTF-8 text');
  }
  const hostile = hostileShape(json, MAX_DEPTH);
  if (hostile) throw new ResultRefused(hostile);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    throw new ResultRefused(`its body is not JSON (${(e as Error).message})`, { cause: e });
  }
  return { body: checkBody(parsed), sha256 };
}

/**
 * Reads a result file; throws a ResultRefused saying why it cannot be opened, and nothing else
 * (see the module's head).
 */
export function readResult(bytes: Uint8Array): Result {
  const text = inflatedAlready(bytes) ?? gunzipBounded(bytes, inflatable(bytes));
  const { sha256, body } = framing(text);
  if (sha256Hex(body) !== sha256) throw new ResultRefused(HASH_MISMATCH);
  return parsedBody(body, sha256);
}

/**
 * The inflated bytes by the platform's own gzip (DecompressionStream), or null where it fails or
 * they do not match the trailer's claim: it stops reading as soon as they pass the claim, as
 * gunzipBounded does.
 */
async function gunzipNative(bytes: Uint8Array, claimed: number): Promise<Uint8Array | null> {
  const reader = new Blob([bytes as BlobPart])
    .stream()
    .pipeThrough(new DecompressionStream('gzip'))
    .getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > claimed) {
        void reader.cancel().catch(() => undefined);
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  return size === claimed ? joined(chunks, size) : null;
}

const hex = (digest: ArrayBuffer) =>
  Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * readResult with the platform's gzip and SHA-256 (DecompressionStream, crypto.subtle), several
 * times faster than fflate's and @noble's where it has them (docs/sharing.md#opening-speed), and
 * asynchronous as they are: the result worker's reader. What it opens is readResult's, to the
 * bit; a file it would refuse is read again by readResult, whose refusal it throws, word for word
 * (a refusal costs twice; an opening, once).
 */
export async function readResultNative(bytes: Uint8Array): Promise<Result> {
  const subtle = globalThis.crypto?.subtle;
  if (typeof DecompressionStream !== 'function' || !subtle) return readResult(bytes);
  try {
    const text = inflatedAlready(bytes) ?? (await gunzipNative(bytes, inflatable(bytes)));
    if (text) {
      const { sha256, body } = framing(text);
      const digest = await subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>);
      if (hex(digest) === sha256) return parsedBody(body, sha256);
    }
  } catch (e) {
    if (!(e instanceof ResultRefused)) throw e;
  }
  return readResult(bytes);
}
