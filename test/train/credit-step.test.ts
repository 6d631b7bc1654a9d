/**
 * A real trainer step with counterfactual credit (search, shipped base models): what the rollout
 * inspector shows per row — its agent's credit and the outcome of the replay without that agent —
 * is consistent with the trajectory's outcome, and the metric keys include the credit stats.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { agentKey, M } from '../../src/core/metrics';
import { loadShippedBase } from '../../src/cli/base-models';
import { RunTrainer } from '../../src/train/trainer';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('a train step with counterfactual credit', () => {
  it('gives each row credit = outcome − outcome without its agent, and emits the credit keys', async () => {
    const exp = ExperimentSchema.parse({
      task: 'search',
      rollout: { batchSize: 2, groupSize: 4 },
      eval: { every: 0 },
      runs: [{ label: 'A', estimator: 'drmas', reward: { credit: 'counterfactual', creditWeight: 0.5 } }],
    });
    const { checkpoints } = await loadShippedBase(exp);
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 4, base: checkpoints });
    try {
      const keys = t.metricKeys();
      for (const a of t.agents)
        for (const s of ['credit/mean', 'credit/std', 'credit/se'] as const)
          expect(keys).toContain(agentKey(a, s));
      const r = await t.trainStep();
      const c = r.credit!;
      expect(c.weight).toBe(0.5);
      r.rows.forEach((row, i) => {
        const traj = r.trajectories[row.traj];
        if (traj.status !== 'ok') return;
        expect(c.rowCredit[i]).toBeCloseTo(traj.reward - c.rowWithout[i], 12);
      });
      expect(r.metrics[M.creditReplays]).toBe(3 * r.trajectories.filter((x) => x.status === 'ok').length);
      for (const a of t.agents) expect(r.metrics).toHaveProperty(agentKey(a, 'credit/mean'));
      expect(r.metrics[M.creditMs]).toBeGreaterThanOrEqual(0);
    } finally {
      t.dispose();
    }
  });
});
