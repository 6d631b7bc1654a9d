/**
 * What the estimator and diagnostics tests share: a hand-computed batch, and a batch's advantages
 * and metrics made as a training step makes them.
 */
import type { EstimatorChoice } from '../../src/core/estimators';
import type { AdvantageOptions } from '../../src/core/config-sections';
import { computeAdvantages } from '../../src/rl/advantage';
import { statsToMetrics } from '../../src/rl/diagnostics';
import type { AdvantageRow } from '../../src/rl/rows';
import { sameBatchOfStep } from '../../src/rl/same-batch';

/**
 * The hand-computed Solver/Verifier batch: S = {1, 0, −0.1, 1, 0}, V = {1, 0, 0.9, 0}; trajectory
 * scores 1, −0.1/3, 0.95, 0. Per-row penalties make rows of one trajectory differ; S acts 5 times,
 * V 4 times.
 */

export const SOLVER_VERIFIER: readonly AdvantageRow[] = [
  { group: 'q', traj: 't0', agent: 'S', turn: 0, reward: 1 },
  { group: 'q', traj: 't0', agent: 'V', turn: 0, reward: 1 },
  { group: 'q', traj: 't1', agent: 'S', turn: 0, reward: 0 },
  { group: 'q', traj: 't1', agent: 'V', turn: 0, reward: 0 },
  { group: 'q', traj: 't1', agent: 'S', turn: 1, reward: -0.1 },
  { group: 'q', traj: 't2', agent: 'S', turn: 0, reward: 1 },
  { group: 'q', traj: 't2', agent: 'V', turn: 0, reward: 0.9 },
  { group: 'q', traj: 't3', agent: 'S', turn: 0, reward: 0 },
  { group: 'q', traj: 't3', agent: 'V', turn: 0, reward: 0 },
];

/**
 * One batch's advantages as trainStep makes them (src/train/trainer.ts, phase 3): the run's own,
 * from rl/advantage.ts, and the same batch under every estimator reusing them; with the step's
 * metrics in the trainer's order (the run's `adv/…` and `groups/…`, then every estimator's `shadow/…`).
 */
export function stepAdvantages(
  rows: readonly AdvantageRow[],
  estimator: EstimatorChoice,
  options: Partial<AdvantageOptions>,
  agents: readonly string[],
) {
  const own = computeAdvantages(rows, { ...options, estimator });
  const sameBatch = sameBatchOfStep(rows, own.advantages, estimator, options, agents);
  return { own, all: sameBatch.all, metrics: { ...statsToMetrics(own.stats, agents), ...sameBatch.metrics } };
}
