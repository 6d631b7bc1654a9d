import { describe, expect, it } from 'vitest';
import { maskedCrc32c, readRecords, frameRecord } from '../../src/interop/tfrecord';
import { readEventFile, writeEventFile } from '../../src/interop/tensorboard';
import {
  bytesOf,
  crc32cBitwise,
  event,
  f32,
  f64,
  ld,
  mask,
  record,
  simple,
  str,
  tensorDouble,
  tensorFloat,
  varint,
} from './hand-assembled';

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
    expect(scan.records.map((r) => [...r])).toEqual([
      [7, 7],
      [7, 7],
      [7, 7],
    ]);
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
      {
        step: 0,
        time_s: 0.5,
        'reward/mean': 0.1,
        'agent/verifier/grad_norm': 3.3333333333,
        'eval/avg@8': NaN,
      },
      {
        step: 1,
        time_s: 1.25,
        'reward/mean': -1e-7,
        'agent/verifier/grad_norm': 123456.789,
        'eval/avg@8': 0.7,
      },
    ];
    const scan = readEventFile(writeEventFile(rows, 1_700_000_000));
    expect(scan).toMatchObject({ records: 3, skipped: 0, truncatedBytes: 0 });
    expect(scan.rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      for (const [k, v] of Object.entries(row)) {
        if (k === 'time_s') expect(scan.rows[i][k]).toBeCloseTo(v, 5);
        else if (k === 'step') expect(scan.rows[i][k]).toBe(v);
        else if (Number.isNaN(v))
          expect(k in scan.rows[i]).toBe(false); // not measured: not written
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
    expect(scan).toMatchObject({
      records: 3,
      skipped: 1,
      truncatedBytes: record(event(4, 1004, [simple('loss', 0.75)])).length - 3,
    });
    expect(scan.rows).toEqual([
      { step: 1, time_s: 1, loss: 0.25, 'actor/lr': Math.fround(1e-6) },
      { step: 3, time_s: 3, 'critic/score/mean': 0.1, loss: 0.5 },
    ]);
  });

  it('reads 64-bit steps, unpacked float_val, int64 tensors, and skips fields it does not know', () => {
    const unpackedFloat = [...ld(1, str('a')), ...ld(8, [0x08, 1, 0x2d, ...f32(0.5)])];
    const int64Tensor = [...ld(1, str('b')), ...ld(8, [0x08, 9, 0x50, ...varint(2 ** 40)])];
    const withImage = [...ld(1, str('img')), ...ld(4, [0x08, 1])]; // an Image value: not a scalar
    const scan = readEventFile(
      bytesOf(
        record([...event(3_000_000_000, 5, [unpackedFloat, int64Tensor, withImage]), ...ld(10, [1, 2])]),
      ),
    );
    expect(scan.rows).toEqual([{ step: 3_000_000_000, time_s: 0, a: 0.5, b: 2 ** 40 }]);
  });

  it('counts a record whose body is not an Event as damaged', () => {
    const scan = readEventFile(frameRecord(Uint8Array.from([0xff, 0xff, 0xff])));
    expect(scan).toMatchObject({ records: 0, skipped: 1, rows: [] });
  });
});
