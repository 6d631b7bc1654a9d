import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { M } from '../../src/core/metrics';
import { decodeRunState, encodeRunState } from '../../src/train/run-state';
import { resumeRunTrainer, saveRunState } from '../../src/train/trainer-state';
import { RunTrainer } from '../../src/train/trainer';

/** nano models from scratch, a KL reference (so it must be saved too), 2 tasks × 4 rollouts. */
const exp = ExperimentSchema.parse({
  task: 'search',
  models: { preset: 'nano', base: 'scratch' },
  rollout: { batchSize: 2, groupSize: 4 },
  optim: { klCoef: 0.05 },
  eval: { every: 0 },
});

/** Everything a step computes, without the wall-clock and memory readings. */
const science = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(m).filter(([k]) => !k.startsWith('perf/') && !k.startsWith('mem/') && k !== M.timeS),
  );

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('resuming a run from its saved state', () => {
  it('repeats the uninterrupted run bit for bit, live parameter changes and KL reference included', async () => {
    const before = tf.memory().numTensors;
    const straight = new RunTrainer({ exp, run: exp.runs[1], seed: 11 });
    const expected: Record<string, number>[] = [];
    try {
      for (let s = 0; s < 4; s++) {
        if (s === 1) straight.setLiveNow('lr', 2e-3);
        expected.push(science((await straight.trainStep()).metrics));
      }
    } finally {
      straight.dispose();
    }

    const first = new RunTrainer({ exp, run: exp.runs[1], seed: 11 });
    let bytes: Uint8Array;
    try {
      await first.trainStep();
      first.setLiveNow('lr', 2e-3);
      await first.trainStep();
      bytes = encodeRunState(await saveRunState(first));
    } finally {
      first.dispose();
    }

    const resumed = resumeRunTrainer(decodeRunState(bytes));
    try {
      expect(resumed.step).toBe(2);
      expect(resumed.liveValues().lr).toBe(2e-3);
      const got = [
        science((await resumed.trainStep()).metrics),
        science((await resumed.trainStep()).metrics),
      ];
      expect(got[0][M.step]).toBe(2);
      expect(got).toEqual(expected.slice(2));
      // The steps after the save still learn: the update is not a no-op.
      expect(got[1]['agent/answer/grad_norm']).toBeGreaterThan(0);
    } finally {
      resumed.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses a corrupt, truncated or foreign state file, saying what is wrong', async () => {
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 1 });
    let bytes: Uint8Array;
    try {
      bytes = encodeRunState(await saveRunState(t));
    } finally {
      t.dispose();
    }
    const flipped = bytes.slice();
    flipped[flipped.length - 5] ^= 0xff;
    expect(() => decodeRunState(flipped)).toThrow(/content hash mismatch/);
    expect(() => decodeRunState(bytes.slice(0, bytes.length - 64))).toThrow(/truncated or padded/);
    expect(() => decodeRunState(bytes.slice(0, 30))).toThrow(/truncated: manifest/);
    expect(() => decodeRunState(new TextEncoder().encode('AGWGPT01 a model checkpoint'))).toThrow(
      /not an Agentwise run state file/,
    );
    expect(() =>
      resumeRunTrainer({
        ...decodeRunState(bytes),
        manifest: { ...decodeRunState(bytes).manifest, step: -1 },
      }),
    ).toThrow(/step must be an integer/);
  });
});
