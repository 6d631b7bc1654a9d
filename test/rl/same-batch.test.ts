import { describe, expect, it } from 'vitest';
import { agentSameBatchKey } from '../../src/core/metrics';
import { computeAdvantages } from '../../src/rl/advantage';
import { ESTIMATOR_NAMES } from '../../src/core/estimators';
import { everyEstimator, pearson, weighSameBatch, sameBatchToMetrics } from '../../src/rl/same-batch';
import { demoRollout } from '../tasks/helpers';
import { stepAdvantages } from './fixtures';

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

describe('same-batch estimators', () => {
  it('weighs one batch by every estimator, by hand', () => {
    const own = computeAdvantages(rows, { estimator: 'grpo' }).advantages;
    const s = weighSameBatch(rows, own, everyEstimator(rows, {}));
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
    expect(s['global-step'].a.sqMean).toBeCloseTo(
      ((0.6 / Math.sqrt(0.3)) ** 2 + (0.4 / Math.sqrt(0.3)) ** 2) / 2,
      5,
    );
    // MAGRPO, set (q, agent, turn), mean baseline: b's turn-1 row is a singleton (raw score 0).
    expect(s.magrpo.b.mean).toBeCloseTo((0.5 - 0.5 + 0) / 3, 12);
  });

  it('writes one key per agent × estimator × stat, NaN for an agent without rows', () => {
    const own = computeAdvantages(rows, { estimator: 'drmas' }).advantages;
    const m = sameBatchToMetrics(weighSameBatch(rows, own, everyEstimator(rows, {})), ['a', 'b', 'c']);
    expect(Object.keys(m)).toHaveLength(3 * 6 * 3);
    expect(m[agentSameBatchKey('b', 'drmas', 'corr')]).toBe(1);
    expect(m[agentSameBatchKey('b', 'grpo', 'sq_mean')]).toBeCloseTo(0.5, 5);
    expect(m[agentSameBatchKey('c', 'grpo', 'mean')]).toBeNaN();
  });

  it('pearson: exactly 1 on identical values, NaN on a constant, −1 on a mirror', () => {
    const x = [0.1, 0.7, -0.3, 2.9];
    expect(pearson(x, x)).toBe(1);
    expect(pearson(x, [1, 1, 1, 1])).toBeNaN();
    expect(
      pearson(
        x,
        x.map((v) => -2 * v + 1),
      ),
    ).toBeCloseTo(-1, 14);
    expect(() => pearson(x, [1])).toThrow(/4 values against 1/);
  });
});

/**
 * A training step's advantage metrics (adv/…, groups/…, shadow/…) on a seeded math batch (3
 * questions × 4 demonstrator rollouts, 30 % mistakes, so the verifier rejects some answers and
 * the solver retries: the estimators differ), recorded from the trainer's code before it stopped
 * computing its own estimator twice (computeAdvantages, then everyEstimator over all five again);
 * `traj_reward_share`, added since, is 1: every row of this batch carries its trajectory's reward.
 */
const RECORDED_DRMAS: [string, number][] = [
  ['agent/solver/calls', 17],
  ['agent/solver/reward/mean', 0.7647058823529411],
  ['agent/solver/reward/std', 0.4241825029957634],
  ['agent/solver/adv/mean', 2.220446049250313e-16],
  ['agent/solver/adv/sq_mean', 0.5294097664261558],
  ['agent/solver/adv/min', -1.2909919487406465],
  ['agent/solver/adv/max', 0.7302954100093224],
  ['agent/solver/amplification', 0.9833333333333335],
  ['agent/solver/amplification_rows', 0.9674603174603176],
  ['agent/solver/traj_reward_share', 1],
  ['agent/verifier/calls', 12],
  ['agent/verifier/reward/mean', 0.8333333333333334],
  ['agent/verifier/reward/std', 0.37267799624996484],
  ['agent/verifier/adv/mean', 0],
  ['agent/verifier/adv/sq_mean', 0.499998000006],
  ['agent/verifier/adv/min', -1.499997000006],
  ['agent/verifier/adv/max', 0.499999000002],
  ['agent/verifier/amplification', 0.75],
  ['agent/verifier/amplification_rows', 0.7960317460317461],
  ['agent/verifier/traj_reward_share', 1],
  ['groups/singleton_frac', 0],
  ['groups/zero_adv_frac', 0.3333333333333333],
  ['agent/solver/shadow/grpo/mean', -0.14705852941235276],
  ['agent/solver/shadow/grpo/sq_mean', 0.6323504117722941],
  ['agent/solver/shadow/grpo/corr', 0.9875095027950336],
  ['agent/verifier/shadow/grpo/mean', 0],
  ['agent/verifier/shadow/grpo/sq_mean', 0.499998000006],
  ['agent/verifier/shadow/grpo/corr', 1],
  ['agent/solver/shadow/drmas/mean', 2.220446049250313e-16],
  ['agent/solver/shadow/drmas/sq_mean', 0.5294097664261558],
  ['agent/solver/shadow/drmas/corr', 1],
  ['agent/verifier/shadow/drmas/mean', 0],
  ['agent/verifier/shadow/drmas/sq_mean', 0.499998000006],
  ['agent/verifier/shadow/drmas/corr', 1],
  ['agent/solver/shadow/atgrpo/mean', -2.220446049250313e-16],
  ['agent/solver/shadow/atgrpo/sq_mean', 0.4117631277441691],
  ['agent/solver/shadow/atgrpo/corr', 0.8835117187085562],
  ['agent/verifier/shadow/atgrpo/mean', 0],
  ['agent/verifier/shadow/atgrpo/sq_mean', 0.499998000006],
  ['agent/verifier/shadow/atgrpo/corr', 1],
  ['agent/solver/shadow/global-step/mean', -0.06357081245884277],
  ['agent/solver/shadow/global-step/sq_mean', 0.6253942763903187],
  ['agent/solver/shadow/global-step/corr', 0.9976158541717876],
  ['agent/verifier/shadow/global-step/mean', 0.09005865098336097],
  ['agent/verifier/shadow/global-step/sq_mean', 0.5306856698363408],
  ['agent/verifier/shadow/global-step/corr', 0.9953255722142642],
  ['agent/solver/shadow/magrpo/mean', 0],
  ['agent/solver/shadow/magrpo/sq_mean', 0.11764705882352941],
  ['agent/solver/shadow/magrpo/corr', 0.8932929346930722],
  ['agent/verifier/shadow/magrpo/mean', 0],
  ['agent/verifier/shadow/magrpo/sq_mean', 0.125],
  ['agent/verifier/shadow/magrpo/corr', 1],
  // mars2 is global-step's (rows; group; group): the same numbers on a parallel batch.
  ['agent/solver/shadow/mars2/mean', -0.06357081245884277],
  ['agent/solver/shadow/mars2/sq_mean', 0.6253942763903187],
  ['agent/solver/shadow/mars2/corr', 0.9976158541717876],
  ['agent/verifier/shadow/mars2/mean', 0.09005865098336097],
  ['agent/verifier/shadow/mars2/sq_mean', 0.5306856698363408],
  ['agent/verifier/shadow/mars2/corr', 0.9953255722142642],
];

describe("a step's advantages, each estimator once", () => {
  it("gives the metrics recorded before, to the last bit, and reuses the run's own advantages", async () => {
    const b = await demoRollout('math', 0.3, 3, 4, 7);
    const rows = b.rows.map((r) => ({
      group: r.group,
      traj: r.traj,
      agent: r.agent,
      turn: r.turn,
      reward: r.reward,
    }));
    expect(rows).toHaveLength(29);
    const options = { normalizeStd: true, eps: 1e-6, singleton: 'raw' as const };
    const { own, all, metrics } = stepAdvantages(rows, 'drmas', options, ['solver', 'verifier']);
    expect(Object.entries(metrics)).toEqual(RECORDED_DRMAS);
    // The run's own estimator is not computed a second time: the same batch holds the same array.
    expect(all.drmas).toBe(own.advantages);
    // mars2 and global-step share one definition (rows; group; group): computed once, one array.
    expect(all.mars2).toBe(all['global-step']);
    for (const e of ESTIMATOR_NAMES)
      expect(all[e], e).toEqual(computeAdvantages(rows, { ...options, estimator: e }).advantages);
  });
});
