/**
 * A run state file's frame (src/storage/state-files.ts, docs/formats.md#run-states) read without
 * OPFS: real frames in memory, read at once (a sync access handle's way) and through promises (a
 * File's), newest first, a torn or foreign one left out; and which files of a session's folder are
 * a run's.
 */
import { describe, expect, it } from 'vitest';
import { frameOf, runOfFile, statesIn } from '../../src/storage/state-files';
import { readOf, stateFile } from './state-file-bytes';

describe('a state file frame', () => {
  const file = stateFile({ step: 7, run: '0:GRPO', check: 'c1' }, 40);

  it('reads the same header and payload place at once and through promises', async () => {
    const now = frameOf(file.length, readOf(file));
    const later = await frameOf(file.length, async (at, length) => file.slice(at, at + length));
    expect(now).toEqual({
      header: { step: 7, run: '0:GRPO', check: 'c1' },
      payloadAt: file.length - 40,
      payloadLength: 40,
    });
    expect(later).toEqual(now);
  });

  it('gives the states of both files newest first, each with its own payload', () => {
    const older = stateFile({ step: 6 }, 8, 100);
    const states = statesIn([older, file].map((f) => ({ size: f.length, read: readOf(f) })));
    expect(states.map((s) => [s.slot, s.header.step, s.payload.byteLength])).toEqual([
      [1, 7, 40],
      [0, 6, 8],
    ]);
    expect([...new Uint8Array(states[1].payload)]).toEqual([100, 101, 102, 103, 104, 105, 106, 107]);
  });

  it('leaves out an empty, a cut, a foreign and a stepless file', () => {
    const cut = file.slice(0, file.length - 1);
    const foreign = file.slice();
    foreign[0] ^= 1;
    const stepless = stateFile({ step: 'x' } as unknown as { step: number }, 4);
    const files = [new Uint8Array(0), cut, foreign, stepless, file];
    const states = statesIn(files.map((f) => ({ size: f.length, read: readOf(f) })));
    expect(states.map((s) => s.slot)).toEqual([4]);
  });
});

describe("a state file's name", () => {
  it('gives back the run of every name the lab writes, labels with any character among them', () => {
    for (const run of ['0:GRPO', '1:Dr. MAS #2', '2:a/b%c', '3:\u00e9 \u{1F600}', '4:'])
      for (const slot of ['a', 'b']) expect(runOfFile(`${encodeURIComponent(run)}.${slot}`)).toBe(run);
  });

  it('passes over a name the lab does not write, never throwing', () => {
    // '%E0%A4%A.a' made decodeURIComponent throw a URIError, which broke the Past sessions list.
    for (const name of [
      '%E0%A4%A.a',
      '%.b',
      '%zz.a',
      '0%3AGRPO.c',
      '0%3AGRPO',
      '0:GRPO.a',
      'a b.a',
      '.DS_Store',
    ])
      expect(runOfFile(name)).toBeNull();
  });
});
