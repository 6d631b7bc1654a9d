/**
 * Fuzzed run state files (docs/fuzz.md#run-state-files): a run's two origin-private files
 * (src/storage/state-files.ts's frame: 16 fixed bytes with the magic and the two lengths, the JSON
 * header with the state's check and the frames it carries, the payload) holding a real tiny run
 * state, one of them mutated,
 * cut, grown, given forged lengths or an edited header. Reading them must never throw nor ask for
 * more bytes than a file holds, and a resume must take a whole state: the damaged file's where its
 * check still matches, else the other one's, with the frames that state carried. And any name in a session's folder is a run's file
 * or passed over, never thrown on.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRunState, openKept, stateCheck, type UnsealedRunState } from '../../src/train/run-state';
import { carry, uncarry, type CarriedFrames } from '../../src/core/carried-frames';
import { firstOpened, type FileRecord } from '../../src/storage/state-store';
import { frameHead, runOfFile, statesIn, type ReadAt } from '../../src/storage/state-files';
import type { CheckpointManifest } from '../../src/model/checkpoint';
import { crashOf, fuzz, hostileValue, jsonEdit, mutatedBytes, NASTY_STRINGS, RUNS } from './harness';
import { tinyCheckpoint, tinyRunStateFile } from './signed-files';

type Header = FileRecord<UnsealedRunState>;

/** The tiny run state as a run's worker keeps it: unsealed (its check is the caller's). */
async function tinyKeptState(): Promise<UnsealedRunState> {
  const { manifest, payload } = decodeRunState(tinyRunStateFile(await tinyCheckpoint()));
  const { format: _f, version: _v, models, byteLength: _b, hash: _h, ...meta } = manifest;
  const header = ({ version: _cv, hash: _ch, fieldHashes: _fh, ...h }: CheckpointManifest) => h;
  const state: UnsealedRunState = {
    meta,
    models: models.map((m) => ({
      id: m.id,
      preset: m.preset,
      agents: m.agents,
      optStep: m.optStep,
      weights: header(m.weights),
      ref: m.ref ? header(m.ref) : null,
    })),
    payload,
  };
  return state;
}

/** Frames of steps `from` up to `step`, as a state after `step` steps carries them (NaN among them); `from` ≤ `step`. */
const carried = (from: number, step: number): CarriedFrames =>
  carry(
    Array.from({ length: step - from }, (_, i) => ({
      step: from + i,
      values: Float64Array.from([from + i, NaN, -0, 1 / 3]),
    })),
  )!;

const fileOf = (header: unknown, payload: Uint8Array): Uint8Array => {
  const head = frameHead(header as Header, payload.length);
  const file = new Uint8Array(head.length + payload.length);
  file.set(head);
  file.set(payload, head.length);
  return file;
};

interface Case {
  /** Which of the two files is damaged: 0 the newest (step 3), 1 the older (step 2). */
  which: 0 | 1;
  bytes: Uint8Array;
  what: string;
  [fc.toStringMethod]: () => string;
}

/** A case, shown by fast-check as what was done to which file (not its thousands of bytes). */
const damaged = (which: 0 | 1, bytes: Uint8Array, what: string): Case => ({
  which,
  bytes,
  what,
  [fc.toStringMethod]: () => `${which ? 'older' : 'newest'} file, ${what}`,
});

let newest: Uint8Array;
let older: Uint8Array;
let header: Header;
let payload: Uint8Array;
let wholeHash: string;
/** The frames each file carries, as uncarry reads them, and each file's check: [newest, older]. */
let carriedBack: string[];
let checks: string[];
beforeAll(async () => {
  const kept = await tinyKeptState();
  const { payload: bytes, ...state } = kept;
  payload = new Uint8Array(bytes);
  // Both files hold the same state under the step each says, carrying its frames from a step of their own.
  const m = kept.meta.step;
  const [framesNew, framesOld] = [carried(1, m), carried(0, m)];
  header = {
    ...{ session: 's', run: '0:sync', step: 3, savedAt: 1, state },
    ...{ check: stateCheck(kept, framesNew), frames: framesNew },
  };
  newest = fileOf(header, payload);
  older = fileOf(
    { ...header, step: 2, savedAt: 0, check: stateCheck(kept, framesOld), frames: framesOld },
    payload,
  );
  const opened = openKept({ state: kept, check: header.check, frames: framesNew });
  wholeHash = opened.state.manifest.hash;
  const shown = (c: CarriedFrames) => JSON.stringify(uncarry(c, m)!.map((f) => [f.step, [...f.values]]));
  carriedBack = [shown(framesNew), shown(framesOld)];
  checks = [header.check, stateCheck(kept, framesOld)];
});

/** Cases: one file's bytes mutated, its lengths forged, bytes added, or its header edited as JSON and framed again. */
function cases(): fc.Arbitrary<Case> {
  const which = fc.constantFrom(0 as const, 1 as const);
  const u32 = fc.oneof(
    fc.constantFrom(0, 1, 15, 16, 0x7fffffff, 0xffffffff, 2 ** 31),
    fc.integer({ min: 0, max: 0xffffffff }),
  );
  const file = (w: 0 | 1) => (w === 0 ? newest : older);
  return fc.oneof(
    which.chain((w) =>
      mutatedBytes(file(w)).map((bytes) => damaged(w, bytes, `mutated to ${bytes.length} bytes`)),
    ),
    // A length forged: the header's or the payload's, or both shifted so they still add up to the size.
    fc.tuple(which, fc.constantFrom(4, 8, -1), u32).map(([w, at, n]) => {
      const bytes = file(w).slice();
      const v = new DataView(bytes.buffer);
      if (at > 0) v.setUint32(at, n, true);
      else {
        const shift = (n % 64) - 32;
        v.setUint32(4, v.getUint32(4, true) + shift, true);
        v.setUint32(8, v.getUint32(8, true) - shift, true);
      }
      return damaged(w, bytes, `length forged (${at > 0 ? `u32 at ${at} = ${n}` : 'shifted'})`);
    }),
    // Oversized: bytes added past the payload, a little or a lot.
    fc.tuple(which, fc.constantFrom(1, 4, 4096, 1 << 20)).map(([w, n]) => {
      const bytes = new Uint8Array(file(w).length + n);
      bytes.set(file(w));
      return damaged(w, bytes, `${n} bytes added`);
    }),
    // One of the header's own fields (not the state's) given a hostile value, framed again.
    fc
      .tuple(which, fc.constantFrom('check', 'state', 'step', 'session', 'frames'), hostileValue)
      .map(([w, key, value]) => {
        const edited = { ...header, [key]: value };
        return damaged(w, fileOf(edited, payload), `header ${key}: ${fc.stringify(value)}`);
      }),
    // The header edited as JSON and framed again, its lengths right: a hostile value, a key cut or added.
    fc.tuple(which, jsonEdit(header)).map(([w, json]) => {
      const edited = JSON.parse(json) as unknown;
      return damaged(w, fileOf(edited, payload), `header ${json.slice(0, 100)}`);
    }),
  );
}

/** A file in memory read as a sync access handle reads it, every read checked against its size. */
function reader(bytes: Uint8Array, asked: string[]): ReadAt<Uint8Array> {
  return (at, length) => {
    if (!(at >= 0 && length >= 0 && at + length <= bytes.length))
      asked.push(`read ${length} bytes at ${at} of a ${bytes.length}-byte file`);
    return bytes.slice(at, at + length);
  };
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/**
 * Reads the two files and resumes as openState does: 'unchanged' (the bytes are as written),
 * 'accepted' (the damaged file's state taken, and it is the whole state), 'refused' (left out or
 * refused by its check, the other file's state taken); anything else is a failure.
 */
function resume(c: Case): string {
  const files = c.which === 0 ? [c.bytes, older] : [newest, c.bytes];
  if (same(c.bytes, c.which === 0 ? newest : older)) return 'unchanged';
  const asked: string[] = [];
  let states;
  try {
    states = statesIn<Header>(files.map((b) => ({ size: b.length, read: reader(b, asked) })));
  } catch (e) {
    return `reading threw: ${String(e)}`;
  }
  if (asked.length) return asked[0];
  const errors: unknown[] = [];
  const taken = firstOpened(states, (s) => {
    try {
      return openKept(s.kept!);
    } catch (e) {
      errors.push(e);
      throw e;
    }
  });
  const crash = errors.map(crashOf).find((x) => x !== null);
  if (crash) return `a damaged state's refusal is no clear message: ${crash}`;
  if (!taken || !('slot' in taken)) return `no state taken: ${taken ? String(taken.failed) : 'none read'}`;
  if (taken.got.state.manifest.hash !== wholeHash) return 'took a state that is not the one written';
  // The frames written under the check it passed (an edited file may hold the other file's header).
  const check = states.find((x) => x.slot === taken.slot)!.header.check;
  const frames = JSON.stringify(taken.got.frames.map((f) => [f.step, [...f.values]]));
  if (frames !== carriedBack[checks.indexOf(check)])
    return `took the frames ${frames.slice(0, 80)}, not those written with its check`;
  return taken.slot === c.which ? 'accepted' : 'refused';
}

describe('fuzzed run state files', () => {
  it(`takes a whole state from each of ${RUNS} pairs with one file damaged, never throwing`, () => {
    expect(resume(damaged(0, newest.slice(), 'as written'))).toBe('unchanged');
    const r = fuzz(
      'run state files',
      cases(),
      resume,
      (c) => `${c.which ? 'older' : 'newest'} file, ${c.what}`,
    );
    expect(r.counts.refused).toBeGreaterThan(RUNS * 0.5);
  });

  it(`reads or refuses each of ${RUNS} carried-frame fields, never throwing`, () => {
    // What the page's listing reads from any state file's header (statesOf: carriedFrom).
    const step = 6;
    const valid = carried(2, step);
    const field = fc.oneof(
      hostileValue,
      jsonEdit(valid).map((json) => JSON.parse(json) as unknown),
      fc
        .tuple(
          fc.integer({ min: -2, max: 8 }),
          fc.integer({ min: -1, max: 6 }),
          fc.string({ maxLength: 300 }),
        )
        .map(([from, width, values]) => ({ from, width, values })),
    );
    const r = fuzz('carried frames', field, (c) => {
      const frames = uncarry(c, step);
      if (frames === null) return 'refused';
      const { from, width } = c as CarriedFrames;
      const ok =
        frames.length === step - from &&
        frames.every((f, i) => f.step === from + i && f.values.length === width);
      return ok ? 'accepted' : `read ${frames.length} frames from ${fc.stringify(c).slice(0, 80)}`;
    });
    expect(uncarry(valid, step)).toHaveLength(4);
    expect(r.counts.accepted).toBeGreaterThan(0);
  });

  it(`passes over or reads each of ${RUNS} names in a session's folder, never throwing`, () => {
    const name = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }).map((run) => `${encodeURIComponent(run)}.a`),
      fc
        .tuple(fc.constantFrom(...NASTY_STRINGS), fc.constantFrom('.a', '.b', '.c', ''))
        .map(([s, t]) => s + t),
    );
    fuzz('state file names', name, (n) => {
      let run;
      try {
        run = runOfFile(n);
      } catch (e) {
        return `threw: ${String(e)}`;
      }
      if (run === null) return 'refused';
      return encodeURIComponent(run) === n.slice(0, -2) ? 'accepted' : `read ${n} as the run ${run}`;
    });
  });
});
