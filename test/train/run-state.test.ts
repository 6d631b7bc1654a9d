import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { decodeFramed, encodeFramed, hashWords } from '../../src/core/signed-file';
import { checkpointOf } from '../../src/model/checkpoint';
import {
  checkRunIdentity,
  decodeRunState,
  encodeRunState,
  openKeptState,
  packRunState,
  runStateHash,
  sealRunState,
  stateCheck,
  type RunStateManifest,
  type UnsealedRunState,
} from '../../src/train/run-state';
import { heapValues } from '../../src/model/kernels/wasm';
import { readRunState, saveRunState } from '../../src/train/trainer-state';
import { RunTrainer } from '../../src/train/trainer';

const exp = ExperimentSchema.parse({
  task: 'sync',
  models: { preset: 'nano', base: 'scratch' },
  rollout: { batchSize: 1, groupSize: 2 },
  eval: { every: 0 },
});

/** Re-frames a state file with its manifest edited by `f` (the hash left as it was unless `f` sets it). */
function edit(bytes: Uint8Array, f: (m: RunStateManifest, payload: ArrayBuffer) => void): Uint8Array {
  const { manifest, payload } = decodeFramed<RunStateManifest>('AGWRUN01', 'run state', bytes);
  f(manifest, payload);
  return encodeFramed('AGWRUN01', manifest, payload);
}

let bytes: Uint8Array;
/** The same trainer's state read unsealed, and the file packRunState makes of it part by part. */
let kept: UnsealedRunState;
let packed: Uint8Array;
beforeAll(async () => {
  await tf.setBackend('wasm');
  const t = new RunTrainer({ exp, run: exp.runs[1], seed: 3 });
  try {
    await t.trainStep();
    bytes = encodeRunState(await saveRunState(t));
    kept = await readRunState(t);
    kept.meta.elapsedS = decodeRunState(bytes).manifest.elapsedS; // the one field the clock moved
    const floats = new Float32Array(kept.payload);
    let at = 0;
    const take = (n: number) => floats.slice(at, (at += n));
    packed = encodeRunState(
      packRunState(
        kept.meta,
        t.models.map((m) => {
          const n = m.model.numParams();
          const notes = { step: t.step, agents: m.agents };
          const checkpoint = checkpointOf(m.model, take(n), { preset: m.preset, notes });
          return {
            ...({ id: m.id, preset: m.preset, agents: [...m.agents], checkpoint, ref: null } as const),
            moments: { step: m.opt.step, m: take(n), v: take(n) },
          };
        }),
      ),
    );
  } finally {
    t.dispose();
  }
});

describe('a state kept after every step, unsealed', () => {
  it('seals into the very file packRunState writes, byte for byte', () => {
    expect(Buffer.from(encodeRunState(sealRunState(kept))).equals(Buffer.from(packed))).toBe(true);
    expect(Buffer.from(packed).equals(Buffer.from(bytes))).toBe(true);
  });

  it('comes back from a structured clone (as IndexedDB gives it) whole, and refuses a changed bit or field', () => {
    const check = stateCheck(kept);
    const again = structuredClone(kept);
    expect(Buffer.from(encodeRunState(openKeptState(again, check))).equals(Buffer.from(packed))).toBe(true);
    const flipped = structuredClone(kept);
    new Uint8Array(flipped.payload)[1234] ^= 1;
    expect(() => openKeptState(flipped, check)).toThrow(/does not match its check.*storage corrupted/);
    const stepped = structuredClone(kept);
    stepped.meta.step = 0;
    expect(() => openKeptState(stepped, check)).toThrow(/does not match its check/);
  });

  it('checks with a hash that every byte moves, aligned or not, tail included', () => {
    const base = new Uint8Array(4099).map((_, i) => (i * 37) % 251);
    const h = hashWords(base);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(hashWords(base.slice())).toBe(h);
    for (const i of [0, 1, 2, 3, 15, 16, 2047, 4095, 4096, 4098]) {
      const b = base.slice();
      b[i] ^= 0x80;
      expect(hashWords(b), `byte ${i}`).not.toBe(h);
    }
    expect(hashWords(base.subarray(0, 4098))).not.toBe(h); // the length counts
    const unaligned = new Uint8Array(4100);
    unaligned.set(base, 1);
    expect(hashWords(unaligned.subarray(1))).toBe(h);
  });
});

describe("a state's values read on wasm", () => {
  it('come straight from the heap, bit for bit what a concat and its readback give, odd NaNs and −0 included', async () => {
    const t = new RunTrainer({ exp, run: exp.runs[1], seed: 3 });
    const odd = new Float32Array(new Uint32Array([0x7fc00001, 0xffc0abcd, 0x80000000, 0x00000001]).buffer);
    const extra = tf.tensor1d(odd);
    try {
      await t.trainStep();
      const tensors = [...t.models.flatMap((m) => [...m.model.variables, ...m.opt.moments.v]), extra];
      const fromHeap = heapValues(tensors)!;
      const flat = tf.concat(tensors.map((v) => tf.reshape(v, [-1])));
      const readBack = (await flat.data()) as Float32Array;
      flat.dispose();
      expect(fromHeap.length).toBe(readBack.length);
      expect(
        Buffer.from(fromHeap.buffer).equals(
          Buffer.from(readBack.buffer, readBack.byteOffset, readBack.byteLength),
        ),
      ).toBe(true);
      expect([...new Uint32Array(fromHeap.buffer, fromHeap.byteLength - 16)]).toEqual([
        0x7fc00001, 0xffc0abcd, 0x80000000, 0x00000001,
      ]);
      // and readRunState's payload is the heap's copy of every weight and moment, in the file's order
      const payload = new Float32Array((await readRunState(t)).payload);
      expect(payload.length).toBe(t.models.reduce((n, m) => n + 3 * m.model.numParams(), 0));
    } finally {
      extra.dispose();
      t.dispose();
    }
  });

  it('are no concern of other backends: they read back', async () => {
    await tf.setBackend('cpu');
    try {
      const x = tf.tensor1d([1, 2, 3]);
      expect(heapValues([x])).toBeNull();
      x.dispose();
    } finally {
      await tf.setBackend('wasm');
    }
  });
});

describe('run-state files cannot lie', () => {
  it('refuses an edited header: the hash covers step, live values and label, not just the weights (probe 2)', () => {
    expect(decodeRunState(bytes).manifest.step).toBe(1);
    expect(() => decodeRunState(edit(bytes, (m) => (m.step = 0)))).toThrow(
      /content hash mismatch.*corrupt or edited/,
    );
    expect(() => decodeRunState(edit(bytes, (m) => (m.live.lr = 1e-2)))).toThrow(/content hash mismatch/);
    expect(() => decodeRunState(edit(bytes, (m) => (m.elapsedS = 0)))).toThrow(/content hash mismatch/);
  });

  it('is bound to its run: another index, label, seed or experiment is refused, saying which (probe 3)', () => {
    const m = decodeRunState(bytes).manifest;
    expect(() => checkRunIdentity(m, { experiment: exp, runIndex: 1, seed: 3 })).not.toThrow();
    expect(() => checkRunIdentity(m, { experiment: exp, runIndex: 0, seed: 3 })).toThrow(
      /holds run 1 \(Dr\. MAS, seed 3\); expected run 0 \(GRPO, seed 3\)/,
    );
    expect(() => checkRunIdentity(m, { experiment: exp, runIndex: 1, seed: 4 })).toThrow(
      /expected run 1 \(Dr\. MAS, seed 4\)/,
    );
    const other = ExperimentSchema.parse({ ...exp, rollout: { ...exp.rollout, groupSize: 4 } });
    expect(() => checkRunIdentity(m, { experiment: other, runIndex: 1, seed: 3 })).toThrow(
      /saved for another experiment \(differs in rollout\)/,
    );
    // Live values and the step count are not the run's identity: a resumed run may change them.
    const live = ExperimentSchema.parse({ ...exp, steps: 500, optim: { ...exp.optim, lr: 1e-3 } });
    expect(() => checkRunIdentity(m, { experiment: live, runIndex: 1, seed: 3 })).not.toThrow();
  });

  it('checks the sizes a re-hashed header declares before building anything (probe 4)', () => {
    const huge = edit(bytes, (m, payload) => {
      m.models[0].weights.config.nLayers = 3e7;
      m.hash = runStateHash(m, payload);
    });
    expect(() => decodeRunState(huge)).toThrow(
      /model alice: model config nLayers is 30000000; this lab builds at most 48/,
    );
    const claims = edit(bytes, (m, payload) => {
      m.models[0].weights.byteLength = 2 ** 40;
      m.hash = runStateHash(m, payload);
    });
    expect(() => decodeRunState(claims)).toThrow(/run state's models need \d+ bytes; the manifest says \d+/);
  });
});

describe('run-state headers of the wrong shape are refused with a message, not a TypeError (found by test/fuzz)', () => {
  /** `f` edits the manifest's JSON text; the hash is kept or, with `rehash`, recomputed. */
  const raw = (f: (json: string) => string, rehash = false) =>
    edit(bytes, (m, payload) => {
      const edited = JSON.parse(f(JSON.stringify(m))) as RunStateManifest;
      Object.keys(m).forEach((k) => delete (m as unknown as Record<string, unknown>)[k]);
      Object.assign(m, edited);
      if (rehash) m.hash = runStateHash(m, payload);
    });
  it('a null model, an object for a run index or a byte length', () => {
    expect(() => decodeRunState(raw((j) => j.replace('"models":[{', '"models":[null,{')))).toThrow(
      "run state's model 0 has no weights manifest",
    );
    const obj = '{"toString":1,"valueOf":1}';
    expect(() => decodeRunState(raw((j) => j.replace(/"byteLength":\d+/, `"byteLength":${obj}`)))).toThrow(
      "run state's models need NaN bytes; the manifest says",
    );
    expect(() => decodeRunState(raw((j) => j.replace(/"runIndex":\d+/, `"runIndex":${obj}`), true))).toThrow(
      'run state names run {"toString":1,"valueOf":1}; its experiment has 2',
    );
  });
});
