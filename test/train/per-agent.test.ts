/**
 * Per-agent optimizer settings (optim.perAgent) on a real update: an agent's own clip ratios and
 * entropy bonus change its model's update and diagnostics and nothing of the other agent's; its
 * own learning rate sets how far its model's weights move at a step, also after a live change of
 * the shared value, which takes effect at the step it is set for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadShippedBase } from '../../src/cli/base-models';
import { ExperimentSchema, type Experiment } from '../../src/core/config';
import { agentKey } from '../../src/core/metrics';
import { RunTrainer } from '../../src/train/trainer';

/** search (verifier, search, answer: one model each) from the shipped nano models; two mini-batches by default, so the second one's ratio departs from 1. */
const exp = (perAgent: Record<string, unknown>, miniBatches = 2) =>
  ExperimentSchema.parse({
    task: 'search',
    models: { preset: 'nano', base: 'shipped' },
    rollout: { batchSize: 4, groupSize: 4 },
    optim: { miniBatches, perAgent },
    eval: { every: 0 },
  });

/** Each model's weights, by model id: one array per variable. */
async function weightsOf(t: RunTrainer): Promise<Record<string, Float32Array[]>> {
  return Object.fromEntries(
    await Promise.all(
      t.models.map(
        async (m) =>
          [m.id, (await Promise.all(m.model.variables.map((v) => v.data()))) as Float32Array[]] as const,
      ),
    ),
  );
}

/**
 * `steps` steps of run 0 with seed 5, `before(t, step)` called ahead of each: the metrics of the
 * last step, and each model's weights at the start and after every step.
 */
async function train(e: Experiment, steps = 1, before: (t: RunTrainer, step: number) => void = () => {}) {
  const { checkpoints } = await loadShippedBase(e);
  const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 5, base: checkpoints });
  try {
    const weights = [await weightsOf(t)];
    let metrics: Record<string, number> = {};
    for (let s = 0; s < steps; s++) {
      before(t, s);
      metrics = (await t.trainStep()).metrics;
      weights.push(await weightsOf(t));
    }
    return { metrics, weights };
  } finally {
    t.dispose();
  }
}

/** One step: its metrics and each model's weights after the update. */
async function oneStep(perAgent: Record<string, unknown>) {
  const { metrics, weights } = await train(exp(perAgent));
  return { metrics, weights: weights[1] };
}

/** How far each weight of a model moved from `from` to `to`, all variables in one list. */
const moves = (from: Float32Array[], to: Float32Array[]): number[] =>
  from.flatMap((w, i) => Array.from(w, (x, j) => Math.abs(to[i][j] - x)));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * `b`'s move of each weight over `a`'s, the median over the weights `a` moved by at least `least`
 * (smaller moves are mostly float32 rounding), and how many those are.
 */
function moveRatio(a: number[], b: number[], least: number): { ratio: number; weights: number } {
  const ratios = a.flatMap((x, i) => (x >= least ? [b[i] / x] : []));
  return { ratio: median(ratios), weights: ratios.length };
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

  // AdamW's first step moves a weight by lr·(g/(|g| + ε) + wd·θ): about lr where the gradient is
  // well above ε, and in proportion to lr for every weight, the gradient being the same.
  it("an agent's own lr sets how far its model's weights move, and nothing of the other agents'", async () => {
    const SHARED = 3e-4; // the default optim.lr
    const OWN = 1e-4;
    const shared = await train(exp({}, 1));
    const own = await train(exp({ answer: { lr: OWN } }, 1));
    const moved = (r: typeof own, id: string) => moves(r.weights[0][id], r.weights[1][id]);
    // The weights that move most move by their model's own lr.
    expect(Math.max(...moved(own, 'answer')) / OWN).toBeCloseTo(1, 1);
    expect(Math.max(...moved(own, 'search')) / SHARED).toBeCloseTo(1, 1);
    // Same starting weights and batch, so the same gradients: answer's moves scale by OWN/SHARED.
    const answer = moveRatio(moved(shared, 'answer'), moved(own, 'answer'), SHARED / 2);
    expect(answer.weights).toBeGreaterThan(100);
    expect(answer.ratio).toBeCloseTo(OWN / SHARED, 3);
    for (const other of ['verifier', 'search'])
      own.weights[1][other].forEach((w, i) => expect(w).toEqual(shared.weights[1][other][i]));
  });

  it('a live lr change takes effect at its step, and an agent with its own lr keeps it', async () => {
    const LIVE = 1e-3;
    const perAgent = { answer: { lr: 1e-4, maxGradNorm: 0.25 } };
    const kept = await train(exp(perAgent, 1), 2);
    const changed = await train(exp(perAgent, 1), 2, (t, step) => {
      if (step !== 1) return;
      t.setLiveNow('lr', LIVE);
      t.setLiveNow('maxGradNorm', 2);
      const opt = (id: string) => t.models.find((m) => m.id === id)!.opt;
      // The grad clip the next step takes, read where the lr is: the settings.
      expect([opt('search').clipNorm, opt('answer').clipNorm]).toEqual([2, 0.25]);
    });
    // Step 0 ran before the change; step 1 starts from the same weights, so the same gradients.
    for (const id of ['verifier', 'search', 'answer'])
      changed.weights[1][id].forEach((w, i) => expect(w).toEqual(kept.weights[1][id][i]));
    const step1 = (r: typeof kept, id: string) => moves(r.weights[1][id], r.weights[2][id]);
    const search = moveRatio(step1(kept, 'search'), step1(changed, 'search'), 3e-4 / 2);
    expect(search.weights).toBeGreaterThan(100);
    expect(search.ratio).toBeCloseTo(LIVE / 3e-4, 2);
    changed.weights[2].answer.forEach((w, i) => expect(w).toEqual(kept.weights[2].answer[i]));
  });
});
