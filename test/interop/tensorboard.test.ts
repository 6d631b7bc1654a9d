import { describe, expect, it } from 'vitest';
import { maskedCrc32c, readRecords, frameRecord } from '../../src/interop/tfrecord';
import { readEventFile, writeEventFile } from '../../src/interop/tensorboard';

/** CRC-32C bit by bit (reflected polynomial 0x82F63B78), independent of the library under test. */
function crc32cBitwise(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}
const mask = (c: number) => ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;

const bytesOf = (...parts: (number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const le32 = (x: number) => [x & 255, (x >>> 8) & 255, (x >>> 16) & 255, (x >>> 24) & 255];
const f32 = (x: number) => [...new Uint8Array(Float32Array.of(x).buffer)];
const f64 = (x: number) => [...new Uint8Array(Float64Array.of(x).buffer)];
const str = (s: string) => [...new TextEncoder().encode(s)];
/** A length-delimited protobuf field (wire type 2); every length here is < 128, one varint byte. */
const ld = (field: number, body: number[]) => [(field << 3) | 2, body.length, ...body];

/** A TFRecord by the documented layout: u64 length, masked CRC of it, data, masked CRC of data. */
function record(data: number[]): number[] {
  const len = [...le32(data.length), 0, 0, 0, 0];
  return [...len, ...le32(mask(crc32cBitwise(Uint8Array.from(len)))), ...data, ...le32(mask(crc32cBitwise(Uint8Array.from(data))))];
}
/** Event{wall_time=1, step=2 (varint), summary=5{value=1{tag=1, simple_value=2 | tensor=8}}}. */
function event(step: number, wall: number, values: number[][]): number[] {
  return [0x09, ...f64(wall), 0x10, step, ...ld(5, values.flatMap((v) => ld(1, v)))];
}
const simple = (tag: string, x: number) => [...ld(1, str(tag)), 0x15, ...f32(x)];
/** A rank-0 DT_FLOAT tensor with the scalars plugin's metadata, as tf.summary.scalar writes it. */
const tensorFloat = (tag: string, x: number) => [
  ...ld(1, str(tag)),
  ...ld(9, ld(1, ld(1, str('scalars')))),
  ...ld(8, [0x08, 1, ...ld(2, []), ...ld(4, f32(x))]),
];
/** A rank-0 DT_DOUBLE tensor in double_val (packed, field 6). */
const tensorDouble = (tag: string, x: number) => [...ld(1, str(tag)), ...ld(8, [0x08, 2, ...ld(6, f64(x))])];

describe('TFRecord framing', () => {
  it('masks CRC-32C as documented (check value of "123456789" is 0xE3069283)', () => {
    expect(crc32cBitwise(Uint8Array.from(str('123456789')))).toBe(0xe3069283);
    expect(maskedCrc32c(Uint8Array.from(str('123456789')))).toBe(mask(0xe3069283));
    expect([...frameRecord(Uint8Array.from([1, 2, 3]))]).toEqual(record([1, 2, 3]));
  });

  it('skips a corrupt record, resyncs after a bad length header and stops at a truncated tail', () => {
    const good = record([7, 7]);
    const badData = record([5, 5, 5]);
    badData[12] ^= 0xff; // data byte flipped: its CRC no longer matches
    const badHeader = record([6, 6, 6]);
    badHeader[0] = 200; // length corrupted: its header CRC no longer matches
    const tail = record([9, 9, 9, 9]).slice(0, 15);
    const scan = readRecords(bytesOf(good, badData, good, badHeader, good, tail));
    expect(scan.records.map((r) => [...r])).toEqual([[7, 7], [7, 7], [7, 7]]);
    expect(scan.skipped).toBe(2);
    expect(scan.truncatedBytes).toBe(15);
  });

  it('reads empty and tiny inputs without throwing', () => {
    expect(readRecords(new Uint8Array(0))).toEqual({ records: [], skipped: 0, truncatedBytes: 0 });
    expect(readRecords(Uint8Array.from([1, 2, 3])).truncatedBytes).toBe(3);
  });
});

describe('TensorBoard event files', () => {
  it('reads back what the lab writes, every value equal to its float32', () => {
    const rows = [
      { step: 0, time_s: 0.5, 'reward/mean': 0.1, 'agent/verifier/grad_norm': 3.3333333333, 'eval/avg@8': NaN },
      { step: 1, time_s: 1.25, 'reward/mean': -1e-7, 'agent/verifier/grad_norm': 123456.789, 'eval/avg@8': 0.7 },
    ];
    const scan = readEventFile(writeEventFile(rows, 1_700_000_000));
    expect(scan).toMatchObject({ records: 3, skipped: 0, truncatedBytes: 0 });
    expect(scan.rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      for (const [k, v] of Object.entries(row)) {
        if (k === 'time_s') expect(scan.rows[i][k]).toBeCloseTo(v, 5);
        else if (k === 'step') expect(scan.rows[i][k]).toBe(v);
        else if (Number.isNaN(v)) expect(k in scan.rows[i]).toBe(false); // not measured: not written
        else expect(scan.rows[i][k]).toBe(Math.fround(v));
      }
    }
  });

  it('reads a hand-assembled file: simple_value and tensor scalars, a corrupt record, a truncated tail', () => {
    const fileVersion = [0x09, ...f64(1000), ...ld(3, str('brain.Event:2'))];
    const corrupt = record(event(2, 1002, [simple('loss', 9)]));
    corrupt[corrupt.length - 6] ^= 1; // inside the float: data CRC fails
    const bytes = bytesOf(
      record(fileVersion),
      record(event(1, 1001, [simple('loss', 0.25), tensorFloat('actor/lr', 1e-6)])),
      corrupt,
      record(event(3, 1003, [tensorDouble('critic/score/mean', 0.1), simple('loss', 0.5)])),
      record(event(4, 1004, [simple('loss', 0.75)])).slice(0, -3),
    );
    const scan = readEventFile(bytes);
    expect(scan).toMatchObject({ records: 3, skipped: 1, truncatedBytes: record(event(4, 1004, [simple('loss', 0.75)])).length - 3 });
    expect(scan.rows).toEqual([
      { step: 1, time_s: 1, loss: 0.25, 'actor/lr': Math.fround(1e-6) },
      { step: 3, time_s: 3, 'critic/score/mean': 0.1, loss: 0.5 },
    ]);
  });

  it('counts a record whose body is not an Event as damaged', () => {
    const scan = readEventFile(frameRecord(Uint8Array.from([0xff, 0xff, 0xff])));
    expect(scan).toMatchObject({ records: 0, skipped: 1, rows: [] });
  });
});
