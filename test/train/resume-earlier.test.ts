/**
 * A plan run state saved by the build before the role block (73-id vocabulary, models and agents
 * named solver and coder, a per-agent dial under solver) resumes: its models are migrated, its
 * AdamW moments grow by zero rows, and it trains on under planner and executor.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { signCheckpoint, type Checkpoint } from '../../src/model/checkpoint';
import { decodeRunState, encodeRunState, packRunState, unpackRunState } from '../../src/train/run-state';
import { resumeRunTrainer, saveRunState } from '../../src/train/trainer-state';
import { RunTrainer } from '../../src/train/trainer';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const exp = ExperimentSchema.parse({
  task: 'plan',
  models: { preset: 'nano', base: 'scratch' },
  rollout: { batchSize: 2, groupSize: 2 },
  optim: { perAgent: { planner: { lr: 0.002 } } },
  eval: { every: 0 },
});

const OLD_V = 73;
const old = (s: string) => s.replace('planner', 'solver').replace('executor', 'coder');

/** `ckpt` with wte cut back to the first 73 ids, as the earlier build wrote it. */
function earlier(ckpt: Checkpoint): Checkpoint {
  const m = ckpt.manifest;
  const C = m.config.dModel;
  const all = new Float32Array(ckpt.weights);
  const weights = cut(all, m.vocab.length, C);
  const { version: _v, hash: _h, fieldHashes: _f, ...header } = m;
  return signCheckpoint(
    {
      ...header,
      config: { ...m.config, vocabSize: OLD_V },
      vocab: m.vocab.slice(0, OLD_V),
      params: [{ name: 'wte', shape: [OLD_V, C] }, ...m.params.slice(1)],
      byteLength: weights.byteLength,
      notes: { ...m.notes, agents: (m.notes.agents as string[]).map(old) },
    },
    weights.buffer as ArrayBuffer,
  );
}

function cut(all: Float32Array, V: number, C: number): Float32Array {
  const out = new Float32Array(all.length - (V - OLD_V) * C);
  out.set(all.subarray(0, OLD_V * C));
  out.set(all.subarray(V * C), OLD_V * C);
  return out;
}

describe('a run state of an earlier build', () => {
  it('resumes plan under planner and executor, its models migrated and its moments grown by zeros', async () => {
    const first = new RunTrainer({ exp, run: exp.runs[0], seed: 3 });
    let bytes: Uint8Array;
    let saved: ReturnType<typeof unpackRunState>;
    try {
      await first.trainStep();
      const state = await saveRunState(first);
      saved = unpackRunState(state);
      const { format: _f, version: _v, models: _m, byteLength: _b, hash: _h, ...meta } = state.manifest;
      const experiment = JSON.parse(old(JSON.stringify(meta.experiment)));
      expect(experiment.optim.perAgent).toEqual({ solver: { lr: 0.002 } });
      const C = saved[0].checkpoint.manifest.config.dModel;
      const V = saved[0].checkpoint.manifest.vocab.length;
      bytes = encodeRunState(
        packRunState(
          { ...meta, experiment },
          saved.map((p) => ({
            id: old(p.state.id),
            preset: p.state.preset,
            agents: p.state.agents.map(old),
            checkpoint: earlier(p.checkpoint),
            moments: { step: p.moments.step, m: cut(p.moments.m, V, C), v: cut(p.moments.v, V, C) },
            ref: null,
          })),
        ),
      );
    } finally {
      first.dispose();
    }

    const state = decodeRunState(bytes);
    expect(state.manifest.models.map((m) => [m.id, m.weights.vocab.length])).toEqual([
      ['solver', 73],
      ['coder', 73],
    ]);
    const parts = unpackRunState(state);
    expect(parts.map((p) => [p.state.id, p.state.agents, p.checkpoint.manifest.vocab.length])).toEqual([
      ['planner', ['planner'], 89],
      ['executor', ['executor'], 89],
    ]);
    expect(parts[0].checkpoint.migrated).toBe('vocabulary migrated on load, 73 → 89 ids');
    const C = parts[0].checkpoint.manifest.config.dModel;
    // The first 73 rows' moments as saved, the block's zeros; the weights' ids 0–72 as saved.
    expect(parts[0].moments.m.subarray(0, 73 * C)).toEqual(saved[0].moments.m.subarray(0, 73 * C));
    expect(parts[0].moments.v.subarray(73 * C, 89 * C).every((x) => x === 0)).toBe(true);
    expect(parts[0].moments.m.length).toBe(saved[0].moments.m.length);
    expect(new Float32Array(parts[0].checkpoint.weights).subarray(0, 73 * C)).toEqual(
      new Float32Array(saved[0].checkpoint.weights).subarray(0, 73 * C),
    );

    const resumed = resumeRunTrainer(state);
    try {
      expect(resumed.step).toBe(1);
      expect(resumed.models.map((m) => m.id)).toEqual(['planner', 'executor']);
      expect(resumed.exp.optim.perAgent).toEqual({ planner: { lr: 0.002 } });
      const { metrics } = await resumed.trainStep();
      expect(metrics.step).toBe(1);
      expect(Number.isFinite(metrics['agent/planner/grad_norm'])).toBe(true);
      expect(Number.isFinite(metrics['model/executor/grad_norm'])).toBe(true);
      expect(Object.keys(metrics).filter((k) => /solver|coder/.test(k))).toEqual([]);
    } finally {
      resumed.dispose();
    }
  });
});
