import { describe, expect, it } from 'vitest';
import { agentShadowKey } from '../../src/core/metrics';
import { computeAdvantages } from '../../src/rl/advantage';
import { everyEstimator, pearson, shadowAdvantages, shadowToMetrics } from '../../src/rl/shadow';

/**
 * One prompt group, two trajectories: a acts once in each, b once in the success and twice in the
 * failure (a retry). Rewards are broadcast, so the trajectory values are 1 and 0.
 */
const rows = [
  { group: 0, traj: 0, agent: 'a', turn: 0, reward: 1 },
  { group: 0, traj: 0, agent: 'b', turn: 0, reward: 1 },
  { group: 0, traj: 1, agent: 'a', turn: 0, reward: 0 },
  { group: 0, traj: 1, agent: 'b', turn: 0, reward: 0 },
  { group: 0, traj: 1, agent: 'b', turn: 1, reward: 0 },
];

describe('same-batch (shadow) estimators', () => {
  it('weighs one batch by every estimator, by hand', () => {
    const own = computeAdvantages(rows, { estimator: 'grpo' }).advantages;
    const s = shadowAdvantages(rows, own, everyEstimator(rows, {}));
    // GRPO: values {1, 0}, μ = 0.5, σ = √0.5; every row gets ±0.5/√0.5 = ±√0.5.
    // b's rows: +√0.5, −√0.5, −√0.5 → mean −√0.5/3, E[A²] = 0.5.
    expect(s.grpo.b.mean).toBeCloseTo(-Math.SQRT1_2 / 3, 5);
    expect(s.grpo.b.sqMean).toBeCloseTo(0.5, 5);
    expect(s.grpo.b.corr).toBe(1); // the run's own estimator, exactly
    // Dr. MAS: b's set {1, 0, 0}, μ = 1/3, σ = √(1/3): A = 2/√3, −1/√3, −1/√3 → mean 0, E[A²] = 2/3 = (n−1)/n.
    expect(s.drmas.b.mean).toBeCloseTo(0, 12);
    expect(s.drmas.b.sqMean).toBeCloseTo(2 / 3, 5);
    // Both are affine in the same success indicator on b's rows: correlation 1 (up to rounding).
    expect(s.drmas.b.corr).toBeCloseTo(1, 12);
    // a acts once per trajectory on the shared reward: every estimator agrees with GRPO on a.
    expect(s.drmas.a.sqMean).toBeCloseTo(s.grpo.a.sqMean, 12);
    // global-step pools the 5 rows {1, 1, 0, 0, 0}: μ = 0.4, σ = √0.3.
    expect(s['global-step'].a.sqMean).toBeCloseTo(((0.6 / Math.sqrt(0.3)) ** 2 + (0.4 / Math.sqrt(0.3)) ** 2) / 2, 5);
    // MAGRPO, set (q, agent, turn), mean baseline: b's turn-1 row is a singleton (raw score 0).
    expect(s.magrpo.b.mean).toBeCloseTo((0.5 - 0.5 + 0) / 3, 12);
  });

  it('writes one key per agent × estimator × stat, NaN for an agent without rows', () => {
    const own = computeAdvantages(rows, { estimator: 'drmas' }).advantages;
    const m = shadowToMetrics(shadowAdvantages(rows, own, everyEstimator(rows, {})), ['a', 'b', 'c']);
    expect(Object.keys(m)).toHaveLength(3 * 5 * 3);
    expect(m[agentShadowKey('b', 'drmas', 'corr')]).toBe(1);
    expect(m[agentShadowKey('b', 'grpo', 'sq_mean')]).toBeCloseTo(0.5, 5);
    expect(m[agentShadowKey('c', 'grpo', 'mean')]).toBeNaN();
  });

  it('pearson: exactly 1 on identical values, NaN on a constant, −1 on a mirror', () => {
    const x = [0.1, 0.7, -0.3, 2.9];
    expect(pearson(x, x)).toBe(1);
    expect(pearson(x, [1, 1, 1, 1])).toBeNaN();
    expect(pearson(x, x.map((v) => -2 * v + 1))).toBeCloseTo(-1, 14);
    expect(() => pearson(x, [1])).toThrow(/4 values against 1/);
  });
});
