// Estimator mars2 (docs/estimators.md#mars2): one normalization over all nodes of a search tree, every
// agent's together, on hand-computed trees; then each agent's rows are its own.
import { describe, expect, it } from 'vitest';
import { computeAdvantages, type AdvantageRow } from '../../src/rl/advantage';
import { estimatorDef } from '../../src/core/estimators';

/**
 * Two trees (groups) of an mcts batch, one row per node (traj = node):
 *   tree 0: coder 1, 0.5; tester 0, 0.25, 0.75 → μ = 0.5, deviations 0.5, 0, −0.5, −0.25, 0.25,
 *           Σd² = 0.625, σ (unbiased) = √(0.625/4) = 0.3952847075210474
 *   tree 1: coder 1, tester 0, 0 → μ = 1/3, σ = √((4/9 + 1/9 + 1/9)/2) = 0.5773502691896258
 */
const node = (group: number, traj: number, agent: string, reward: number): AdvantageRow => ({
  group,
  traj,
  agent,
  turn: 0,
  reward,
});
const trees: AdvantageRow[] = [
  node(0, 0, 'coder', 1),
  node(0, 1, 'tester', 0),
  node(0, 2, 'coder', 0.5),
  node(0, 3, 'tester', 0.25),
  node(0, 4, 'tester', 0.75),
  node(1, 5, 'tester', 0),
  node(1, 6, 'coder', 1),
  node(1, 7, 'tester', 0),
];

describe('mars2: tree-wide normalization', () => {
  it('is the algebra’s (rows; group; group)', () => {
    expect(estimatorDef('mars2')).toMatchObject({ unit: 'rows', meanOver: ['group'], stdOver: ['group'] });
  });

  it('normalizes each tree over all its nodes, across agents, and matches the hand-computed tree', () => {
    const { advantages, stats } = computeAdvantages(trees, { estimator: 'mars2', eps: 0 });
    const s0 = 0.3952847075210474;
    const s1 = 0.5773502691896258;
    const expected = [0.5 / s0, -0.5 / s0, 0, -0.25 / s0, 0.25 / s0, -1 / 3 / s1, 2 / 3 / s1, -1 / 3 / s1];
    expected.forEach((e, i) => expect(advantages[i], `row ${i}`).toBeCloseTo(e, 12));
    // Split by agent afterwards: the coder's rows keep the tree's baseline, so its mean advantage is
    // positive (it scored above the tree), where Dr. MAS centres each agent on itself.
    const coder = [0, 2, 6].map((i) => advantages[i]);
    expect(stats.agents.coder.advMean).toBeCloseTo(coder.reduce((a, b) => a + b) / 3, 12);
    expect(stats.agents.coder.advMean).toBeCloseTo((0.5 / s0 + 2 / 3 / s1) / 3, 12);
    const drmas = computeAdvantages(trees, { estimator: 'drmas', eps: 0 });
    // Dr. MAS on tree 0: the coder's two rows centred on their own mean 0.75, ±0.25/√0.125 = ±1/√2.
    expect(drmas.advantages[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(drmas.advantages[2]).toBeCloseTo(-Math.SQRT1_2, 12);
  });
});
