import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { decodeFramed, encodeFramed } from '../../src/core/signed-file';
import {
  checkRunIdentity,
  decodeRunState,
  encodeRunState,
  runStateHash,
  type RunStateManifest,
} from '../../src/train/run-state';
import { saveRunState } from '../../src/train/trainer-state';
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
beforeAll(async () => {
  await tf.setBackend('wasm');
  const t = new RunTrainer({ exp, run: exp.runs[1], seed: 3 });
  try {
    await t.trainStep();
    bytes = encodeRunState(await saveRunState(t));
  } finally {
    t.dispose();
  }
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
