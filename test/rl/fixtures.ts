/**
 * The hand-computed Solver/Verifier batch shared by the estimator and diagnostics tests:
 * S = {1, 0, −0.1, 1, 0}, V = {1, 0, 0.9, 0}; trajectory scores 1, −0.1/3, 0.95, 0.
 * Per-row penalties make rows of one trajectory differ; S acts 5 times, V 4 times.
 */
import type { AdvantageRow } from '../../src/rl/rows';

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
