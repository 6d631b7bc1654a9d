/**
 * Everything else works on a workflow unchanged: one step of a workflow (the parts family at N = 3)
 * under every named estimator and a custom one, with tree sampling, per-agent settings and
 * counterfactual credit, each producing finite advantages and an update of every agent's model.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { ESTIMATOR_NAMES } from '../../src/core/estimators';
import { agentKey, GRAD_NORM } from '../../src/core/metrics';
import { RunTrainer } from '../../src/train/trainer';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const workflow = { family: 'parts', args: { agents: 3, mix: 0.5 } };
const agents = ['ann', 'ben', 'cal'];

const cases: [string, Record<string, unknown>][] = [
  ...ESTIMATOR_NAMES.filter((e) => e !== 'mars2').map((e): [string, Record<string, unknown>] => [
    e,
    { estimator: e },
  ]),
  [
    'custom (rows; group, agent; batch)',
    { estimator: 'custom', advantage: { unit: 'rows', meanOver: 'group,agent', stdOver: 'batch' } },
  ],
  ['drmas with tree sampling', { estimator: 'drmas', rollout: { sampling: 'tree' } }],
  [
    'drmas with a per-agent learning rate',
    { estimator: 'drmas', optim: { perAgent: { ben: { lr: 1e-3 } } } },
  ],
  ['grpo with counterfactual credit', { estimator: 'grpo', reward: { credit: 'counterfactual' } }],
];

describe('a workflow under every estimator and setting', () => {
  it.each(cases)('%s: one step, finite advantages, every agent updated', async (_, run) => {
    const exp = ExperimentSchema.parse({
      task: 'workflow',
      workflow,
      models: { base: 'scratch' },
      rollout: { batchSize: 2, groupSize: 4 },
      eval: { every: 0 },
      runs: [{ label: 'R', ...run }],
    });
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 4 });
    try {
      const { metrics, advantages, rows } = await t.trainStep();
      expect(rows.length).toBeGreaterThan(0);
      expect(advantages.every(Number.isFinite)).toBe(true);
      for (const a of agents) expect(metrics[agentKey(a, GRAD_NORM)]).toBeGreaterThanOrEqual(0);
    } finally {
      t.dispose();
    }
  });
});
