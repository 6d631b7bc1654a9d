/**
 * Per-agent optimizer settings (optim.perAgent) on a real update: an agent's own clip ratios and
 * entropy bonus change its model's update and diagnostics and nothing of the other agent's; its
 * own learning rate and grad clip reach its optimizer and survive live changes of the shared value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadShippedBase } from '../../src/cli/base-models';
import { ExperimentSchema } from '../../src/core/config';
import { agentKey } from '../../src/core/metrics';
import { RunTrainer } from '../../src/train/trainer';

/** search (verifier, search, answer: one model each) from the shipped nano models; two mini-batches, so the second one's ratio departs from 1. */
const exp = (perAgent: Record<string, unknown>) =>
  ExperimentSchema.parse({
    task: 'search',
    models: { preset: 'nano', base: 'shipped' },
    rollout: { batchSize: 4, groupSize: 4 },
    optim: { miniBatches: 2, perAgent },
    eval: { every: 0 },
  });

/** One step of run 0 with seed 5: its metrics and each model's weights after the update. */
async function oneStep(perAgent: Record<string, unknown>) {
  const e = exp(perAgent);
  const { checkpoints } = await loadShippedBase(e);
  const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 5, base: checkpoints });
  try {
    const { metrics } = await t.trainStep();
    const weights = Object.fromEntries(
      await Promise.all(
        t.models.map(async (m) => [m.id, await Promise.all(m.model.variables.map((v) => v.data()))] as const),
      ),
    );
    return { metrics, weights };
  } finally {
    t.dispose();
  }
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('optim.perAgent on a real update', () => {
  it("answer's own clip ratios and entropy bonus change answer's clipfrac and weights, and nothing of the other agents'", async () => {
    const shared = await oneStep({});
    const own = await oneStep({ answer: { clipLow: 0, clipHigh: 0, entropyCoef: 0.1 } });
    const clipfrac = (r: typeof shared, agent: string) => r.metrics[agentKey(agent, 'clipfrac')];
    // ε = 0: every token whose ratio moved away from 1 against its advantage is clipped.
    expect(clipfrac(own, 'answer')).toBeGreaterThan(clipfrac(shared, 'answer') + 0.1);
    for (const other of ['verifier', 'search']) {
      for (const stat of ['clipfrac', 'entropy', 'pg_loss', 'grad_norm'] as const) {
        expect(own.metrics[agentKey(other, stat)]).toBe(shared.metrics[agentKey(other, stat)]);
      }
      own.weights[other].forEach((w, i) => expect(w).toEqual(shared.weights[other][i]));
    }
    const moved = own.weights.answer.reduce(
      (n, w, i) => n + Array.from(w).filter((x, j) => x !== shared.weights.answer[i][j]).length,
      0,
    );
    expect(moved).toBeGreaterThan(100);
  });

  it("an agent's own lr and grad clip reach its optimizer and stay when the shared value changes live", () => {
    const e = exp({ answer: { lr: 1e-5, maxGradNorm: 0.25 } });
    const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 5 });
    try {
      const opt = (id: string) => t.models.find((m) => m.id === id)!.opt;
      expect([opt('search').lr, opt('search').clipNorm, opt('answer').lr, opt('answer').clipNorm]).toEqual([
        3e-4, 1, 1e-5, 0.25,
      ]);
      t.setLive('maxGradNorm', 2);
      t.setLive('lr', 1e-3);
      expect([opt('search').lr, opt('search').clipNorm, opt('answer').lr, opt('answer').clipNorm]).toEqual([
        1e-3, 2, 1e-5, 0.25,
      ]);
    } finally {
      t.dispose();
    }
  });
});
