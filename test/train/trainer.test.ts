import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { agentKey, evalAvgKey, M, modelKey } from '../../src/core/metrics';
import { RunTrainer } from '../../src/train/trainer';
import { computeAdvantages } from '../../src/rl/advantage';
import { InProcessEnvRunner, type EnvStepInput } from '../../src/tasks/env';
import type { TaskName } from '../../src/tasks/registry';

/** The real environment, except that trajectories 1 and 6 fail at their first transition. */
class FailingEnv extends InProcessEnvRunner {
  override async step(task: TaskName, inputs: readonly EnvStepInput[]) {
    const out = await super.step(task, inputs);
    return out.map((r, i) => ([1, 6].includes(inputs[i].traj) ? { ok: false as const, error: 'boom' } : r));
  }
}

/** A tiny experiment: nano models from scratch, 2 tasks × 4 rollouts, no evaluation. */
const tiny = (patch: Record<string, unknown> = {}) =>
  ExperimentSchema.parse({
    task: 'search',
    models: { preset: 'nano', base: 'scratch' },
    rollout: { batchSize: 2, groupSize: 4 },
    eval: { every: 0 },
    ...patch,
  });

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('RunTrainer', () => {
  it('leaves errored trajectories out of the statistics and the update alike', async () => {
    const exp = tiny({ task: 'sync', models: { preset: 'nano', base: 'shipped' } });
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 5, env: new FailingEnv() });
    try {
      const { metrics, rows, advantages, trajectories } = await t.trainStep();
      expect(metrics[M.envErrors]).toBe(2);
      const judged = trajectories.filter((tr) => ![1, 6].includes(tr.traj));
      expect(metrics[M.rewardMean]).toBeCloseTo(judged.reduce((a, tr) => a + tr.reward, 0) / 6, 12);
      rows.forEach((r, i) => [1, 6].includes(r.traj) && expect(advantages[i]).toBe(0));
      // The judged rows' advantages are those of the judged rows alone: no errored 0 in any baseline.
      const kept = rows.filter((r) => ![1, 6].includes(r.traj));
      const alone = computeAdvantages(kept, { estimator: 'grpo' }).advantages;
      expect(rows.flatMap((r, i) => ([1, 6].includes(r.traj) ? [] : [advantages[i]]))).toEqual([...alone]);
      expect(metrics[agentKey('alice', 'calls')]).toBe(6);
    } finally {
      t.dispose();
    }
  });

  it('emits every per-agent and per-model key, and tfjs memory stays flat step after step', async () => {
    const exp = tiny();
    const before = tf.memory().numTensors;
    const t = new RunTrainer({ exp, run: exp.runs[1], seed: 3 });
    try {
      const tensors: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { metrics, rows } = await t.trainStep();
        tensors.push(tf.memory().numTensors);
        expect(metrics[M.step]).toBe(i);
        expect(rows.length).toBeGreaterThanOrEqual(2 * 4 * 2); // ≥ verifier + one more call per trajectory
        for (const a of ['verifier', 'search', 'answer']) {
          expect(metrics).toHaveProperty(agentKey(a, 'calls'));
          expect(metrics).toHaveProperty(agentKey(a, 'adv/sq_mean'));
          expect(metrics).toHaveProperty(modelKey(a, 'grad_norm'));
        }
        expect(metrics[agentKey('verifier', 'calls')]).toBeGreaterThanOrEqual(8); // the verifier opens every step
        expect(metrics[M.tokensPerS]).toBeGreaterThan(0);
        expect(metrics[M.decodeForwards]).toBeGreaterThan(0);
      }
      expect(tensors[2]).toBe(tensors[1]);
    } finally {
      t.dispose();
    }
    expect(tf.memory().numTensors).toBe(before); // models, optimizer slots and caches all freed
  });

  it('times the evaluation in perf/eval_ms on the steps that evaluate, and reads 0 on the others', async () => {
    const exp = tiny({ eval: { every: 2, questions: 2, k: 2 } });
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 3 });
    try {
      const first = (await t.trainStep()).metrics;
      const second = (await t.trainStep()).metrics;
      expect(first[M.evalMs]).toBe(0);
      expect(first).not.toHaveProperty(evalAvgKey(2));
      expect(second).toHaveProperty(evalAvgKey(2));
      expect(second[M.evalMs]).toBeGreaterThan(0);
    } finally {
      t.dispose();
    }
  });

  it('gives every run the same task instances and, with equal weights, the same rollouts', async () => {
    const exp = tiny();
    const a = new RunTrainer({ exp, run: exp.runs[0], seed: 5 });
    const b = new RunTrainer({ exp, run: exp.runs[1], seed: 5 });
    try {
      expect(a.instancesAt(7)).toEqual(b.instancesAt(7));
      expect(a.instancesAt(7)).not.toEqual(a.instancesAt(8));
      const [ra, rb] = [await a.trainStep(), await b.trainStep()];
      expect(ra.rows.map((r) => r.response)).toEqual(rb.rows.map((r) => r.response));
      expect(ra.rows.map((r) => r.oldLogp)).toEqual(rb.rows.map((r) => r.oldLogp));
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('skips and records an update whose loss is not finite, and keeps running', async () => {
    const exp = tiny({ task: 'sync' });
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 1 });
    try {
      const alice = t.models.find((m) => m.id === 'alice')!;
      const g = alice.model.params.get('lnf.g')!;
      g.assign(tf.fill(g.shape, NaN));
      const r1 = await t.trainStep();
      expect(r1.metrics[M.updateSkipped]).toBe(1);
      expect(r1.metrics[modelKey('alice', 'grad_norm')]).toBeNaN();
      expect(alice.opt.step).toBe(0);
      const bob = t.models.find((m) => m.id === 'bob')!;
      expect(bob.opt.step).toBe(1); // the healthy model still updated
      const r2 = await t.trainStep();
      expect(r2.step).toBe(1);
    } finally {
      t.dispose();
    }
  });

  it('tree sampling: AT-GRPO sets of G siblings (no singleton), greedy completions counted, a failed candidate ends its tree', async () => {
    const exp = tiny({
      task: 'math',
      models: { preset: 'nano', base: 'shipped' },
      rollout: { batchSize: 2, groupSize: 4, sampling: 'tree' },
      runs: [{ label: 'AT-GRPO', estimator: 'atgrpo' }],
    });
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 2 });
    try {
      const { metrics, rows } = await t.trainStep();
      expect(metrics[M.singletonFrac]).toBe(0);
      expect(metrics[M.completionCalls]).toBeGreaterThan(0); // math has no turnReward
      expect(rows.filter((r) => r.chosen)).toHaveLength(rows.length / 4);
    } finally {
      t.dispose();
    }
    // Candidates 1 (tree 0) and 6 (tree 1) fail: both trees, all 8 branches, are env errors.
    const f = new RunTrainer({
      exp: { ...exp, task: 'sync' },
      run: exp.runs[0],
      seed: 2,
      env: new FailingEnv(),
    });
    try {
      const { metrics, trajectories } = await f.trainStep();
      expect(metrics[M.envErrors]).toBe(8);
      expect(trajectories.every((tr) => tr.status === 'error' && /boom/.test(tr.error ?? ''))).toBe(true);
    } finally {
      f.dispose();
    }
  });
});
