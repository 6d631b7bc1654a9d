/**
 * The optional same-batch gradient norms (diagnostics.shadowGradNorm): per agent, the pre-clip
 * gradient norm under every estimator on the run's own batch, at the step's starting weights.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { ESTIMATOR_NAMES } from '../../src/core/estimators';
import { agentKey, agentSameBatchKey } from '../../src/core/metrics';
import { loadShippedBase } from '../../src/cli/base-models';
import { RunTrainer } from '../../src/train/trainer';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const exp = (over: object) =>
  ExperimentSchema.parse({
    task: 'sync',
    rollout: { batchSize: 4, groupSize: 4 },
    eval: { every: 0 },
    ...over,
  });

async function firstStep(e: ReturnType<typeof exp>) {
  const { checkpoints } = await loadShippedBase(e);
  const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 11, base: checkpoints });
  try {
    return { agents: t.agents, keys: t.metricKeys(), metrics: (await t.trainStep()).metrics };
  } finally {
    t.dispose();
  }
}

describe('same-batch gradient norms', () => {
  it('are off by default: no keys, no extra backward passes', async () => {
    const { keys, metrics } = await firstStep(exp({}));
    expect(keys.some((k) => k.endsWith('/grad_norm') && k.includes('/shadow/'))).toBe(false);
    expect(metrics[agentSameBatchKey('alice', 'drmas', 'grad_norm')]).toBeUndefined();
  });

  for (const assignment of ['per-agent', 'shared'] as const) {
    it(`${assignment} models: the run's own estimator gives its own grad norm; on sync grpo and drmas give the same`, async () => {
      const { agents, keys, metrics } = await firstStep(
        exp({ models: { assignment }, diagnostics: { shadowGradNorm: true } }),
      );
      for (const agent of agents) {
        for (const e of ESTIMATOR_NAMES) expect(keys).toContain(agentSameBatchKey(agent, e, 'grad_norm'));
        const own = metrics[agentKey(agent, 'grad_norm')];
        expect(own).toBeGreaterThan(0);
        // One epoch, one mini-batch: the probe and the update take the same gradient.
        expect(metrics[agentSameBatchKey(agent, 'grpo', 'grad_norm')]).toBeCloseTo(own, 5);
        expect(metrics[agentSameBatchKey(agent, 'drmas', 'grad_norm')]).toBe(
          metrics[agentSameBatchKey(agent, 'grpo', 'grad_norm')],
        );
        // global-step scales every advantage by √((GK−1)/(K(G−1))) = √(7/6) here, and so the gradient.
        expect(metrics[agentSameBatchKey(agent, 'global-step', 'grad_norm')] / own).toBeCloseTo(
          Math.sqrt(7 / 6),
          3,
        );
      }
    });
  }
});
