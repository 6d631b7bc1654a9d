// Hand-computed cases for every estimator and the group-statistics edge cases (docs/estimators.md#group-statistics, docs/estimators.md#advantage-estimators).
// Expected numbers were worked out independently from the rules (Python `statistics`), not by
// running this code.
import { describe, expect, it } from 'vitest';
import { ESTIMATOR_NAMES, advantageBasis, getEstimator } from '../../src/core/estimators';
import { computeAdvantages, type AdvantageRow } from '../../src/rl/advantage';
import { SOLVER_VERIFIER } from './fixtures';

const EPS = 1e-6;

/**
 * One prompt group, Solver S and Verifier V, four rollouts (the math task's shape, docs/tasks.md#math):
 *   t0: S=1, V=1                (success)
 *   t1: S=0, V=0, S(retry)=−0.1 (failure; the retry row was invalid: −0.1 penalty)
 *   t2: S=1, V=0.9              (success; V's verdict was invalid: −0.1 penalty)
 *   t3: S=0, V=0                (failure)
 * Per-row penalties make rows of one trajectory differ; S acts 5 times, V 4 times.
 */
const rows: readonly AdvantageRow[] = SOLVER_VERIFIER;

function expectClose(actual: Float64Array, expected: number[], digits = 12): void {
  expect(actual.length).toBe(expected.length);
  expected.forEach((e, i) => expect(actual[i], `row ${i}`).toBeCloseTo(e, digits));
}

describe('estimators on a hand-computed batch', () => {
  it('grpo: one score per trajectory (mean of its rows), normalized over the 4 trajectories', () => {
    // scores 1, −0.1/3, 0.95, 0; mu = 0.47916…, unbiased sigma = 0.57306…
    const { advantages } = computeAdvantages(rows, { estimator: 'grpo' });
    const a0 = 0.908855003542321,
      a1 = -0.8943133234856437,
      a2 = 0.8216049232022581,
      a3 = -0.8361466032589352;
    expectClose(advantages, [a0, a0, a1, a1, a1, a2, a2, a3, a3]);
  });

  it('drmas: per (group, agent) over rows — S over 5 rows, V over 4', () => {
    // S: {1,0,−0.1,1,0}, mu 0.38; V: {1,0,0.9,0}, mu 0.475
    const { advantages } = computeAdvantages(rows, { estimator: 'drmas' });
    expectClose(
      advantages,
      [
        1.0926045086554288, 0.9545437190114199, -0.6696608278855853, -0.8636347933912846, -0.8458873615396867,
        1.0926045086554288, 0.7727258677711495, -0.6696608278855853, -0.8636347933912846,
      ],
    );
  });

  it('atgrpo: per (group, agent, turn); the lone turn-1 row is a singleton (raw: s/(1+eps))', () => {
    const { advantages } = computeAdvantages(rows, { estimator: 'atgrpo' });
    const s = 0.8660239037870368; // ±0.5/(sqrt(1/3)+eps) for S's turn-0 set {1,0,1,0}
    expectClose(advantages, [
      s,
      0.9545437190114199,
      -s,
      -0.8636347933912846,
      -0.1 / (1 + EPS),
      s,
      0.7727258677711495,
      -s,
      -0.8636347933912846,
    ]);
    expect(advantages[4]).toBe(-0.1 / (1 + EPS));
  });

  it("atgrpo with singleton 'zero': the singleton gets 0 because other sets have ≥ 2 members", () => {
    const raw = computeAdvantages(rows, { estimator: 'atgrpo' }).advantages;
    const zero = computeAdvantages(rows, { estimator: 'atgrpo', singleton: 'zero' }).advantages;
    expect(zero[4]).toBe(0);
    for (const i of [0, 1, 2, 3, 5, 6, 7, 8]) expect(zero[i]).toBe(raw[i]);
  });

  it('global-step: the group over all 9 rows of both agents', () => {
    const { advantages } = computeAdvantages(rows, { estimator: 'global-step' });
    const hi = 1.0979022627923842,
      lo = -0.8023131920405885;
    expectClose(advantages, [hi, hi, lo, lo, -0.9923347375238858, hi, 0.907880717309087, lo, lo]);
  });

  it('magrpo: mean baseline per (group, agent, turn), never a std, even with normalizeStd true', () => {
    const { advantages } = computeAdvantages(rows, { estimator: 'magrpo', normalizeStd: true });
    expectClose(advantages, [0.5, 0.525, -0.5, -0.475, -0.1, 0.5, 0.425, -0.5, -0.475], 15);
    const zero = computeAdvantages(rows, { estimator: 'magrpo', singleton: 'zero' }).advantages;
    expect(zero[4]).toBe(0);
  });

  it('normalizeStd false: Dr. GRPO centering only', () => {
    const g = computeAdvantages(rows, { estimator: 'grpo', normalizeStd: false }).advantages;
    expectClose(
      g,
      [
        0.5208333333333334, 0.5208333333333334, -0.5125, -0.5125, -0.5125, 0.4708333333333333,
        0.4708333333333333, -0.47916666666666663, -0.47916666666666663,
      ],
      15,
    );
    const d = computeAdvantages(rows, { estimator: 'drmas', normalizeStd: false }).advantages;
    expectClose(d, [0.62, 0.525, -0.38, -0.475, -0.48, 0.62, 0.425, -0.38, -0.475], 15);
  });

  it('eps is added to the std, not the variance', () => {
    // set {0, 2}: mu 1, unbiased sigma sqrt(2); eps = 0.5 → ±1/(sqrt(2) + 0.5)
    const two: AdvantageRow[] = [
      { group: 0, traj: 0, agent: 0, turn: 0, reward: 0 },
      { group: 0, traj: 1, agent: 0, turn: 0, reward: 2 },
    ];
    const { advantages } = computeAdvantages(two, { estimator: 'drmas', eps: 0.5 });
    expect(advantages[0]).toBeCloseTo(-1 / (Math.SQRT2 + 0.5), 15);
    expect(advantages[1]).toBeCloseTo(1 / (Math.SQRT2 + 0.5), 15);
  });
});

describe('edge cases', () => {
  const r = (
    group: number | string,
    traj: number | string,
    agent: string,
    reward: number,
    turn = 0,
  ): AdvantageRow => ({ group, traj, agent, turn, reward });

  it('an all-equal set gives exactly 0, even when the mean would round (0.1 × 3)', () => {
    const batch = [r(0, 0, 'A', 0.1), r(0, 1, 'A', 0.1), r(0, 2, 'A', 0.1)];
    for (const estimator of ESTIMATOR_NAMES) {
      const { advantages, stats } = computeAdvantages(batch, { estimator });
      expect([...advantages], estimator).toEqual([0, 0, 0]);
      expect(stats.zeroAdvFrac).toBe(1);
      expect(stats.singletonFrac).toBe(0);
    }
  });

  it('equal trajectory means that round differently are a tie, not a ±0.7 advantage (eps = 0)', () => {
    // means 0.9 and 0.8999999999999999: a std of ~1e-16 that eps = 0 would divide by
    const batch = [
      r(0, 0, 'A', 0.7),
      r(0, 0, 'B', 1),
      r(0, 0, 'A', 1),
      r(0, 1, 'A', 0.85),
      r(0, 1, 'B', 0.95),
    ];
    const { advantages, stats } = computeAdvantages(batch, { estimator: 'grpo', eps: 0 });
    expect([...advantages]).toEqual([0, 0, 0, 0, 0]);
    expect(stats.zeroAdvFrac).toBe(1);
  });

  it("singleton group under grpo: raw s/(1+eps), not centred; 'zero' falls back to raw when every set is a singleton", () => {
    const batch = [r('a', 0, 'A', 0.7), r('b', 0, 'A', -0.3)];
    const raw = computeAdvantages(batch, { estimator: 'grpo' });
    expect([...raw.advantages]).toEqual([0.7 / (1 + EPS), -0.3 / (1 + EPS)]);
    expect(raw.stats.singletonFrac).toBe(1);
    // PettingLLMs: only if all groups are singletons, mean 0 / std 1 — so 'zero' equals 'raw' here.
    const zero = computeAdvantages(batch, { estimator: 'grpo', singleton: 'zero' });
    expect([...zero.advantages]).toEqual([...raw.advantages]);
    // std off: the raw score itself.
    expect([...computeAdvantages(batch, { estimator: 'grpo', normalizeStd: false }).advantages]).toEqual([
      0.7, -0.3,
    ]);
  });

  it("singleton 'zero' with a pair elsewhere in the batch: the singleton gets 0", () => {
    const batch = [r('a', 0, 'A', 0.7), r('b', 0, 'A', 1), r('b', 1, 'A', 0)];
    const { advantages, stats } = computeAdvantages(batch, { estimator: 'grpo', singleton: 'zero' });
    expect(advantages[0]).toBe(0);
    expect(advantages[1]).toBeCloseTo(0.5 / (Math.SQRT1_2 + EPS), 12);
    expect(stats.singletonFrac).toBe(0.5);
  });

  it('an agent that never acts in a group has no set there and no stats from it', () => {
    // group g1: A and B act; group g2: only A acts.
    const batch = [
      r('g1', 0, 'A', 1),
      r('g1', 0, 'B', 1),
      r('g1', 1, 'A', 0),
      r('g1', 1, 'B', 0),
      r('g2', 0, 'A', 1),
      r('g2', 1, 'A', 0),
    ];
    const { advantages, stats } = computeAdvantages(batch, { estimator: 'drmas' });
    const a = 0.5 / (Math.SQRT1_2 + EPS);
    expectClose(advantages, [a, a, -a, -a, a, -a], 15);
    expect(stats.sets).toBe(3);
    expect(stats.agents.A.calls).toBe(4);
    expect(stats.agents.B.calls).toBe(2);
  });

  it('groups never mix: identical trajectory ids in different groups are different trajectories', () => {
    const batch = [r(1, 0, 'A', 1), r(1, 1, 'A', 0), r(2, 0, 'A', 5), r(2, 1, 'A', 5)];
    const { advantages } = computeAdvantages(batch, { estimator: 'grpo' });
    const a = 0.5 / (Math.SQRT1_2 + EPS);
    expectClose(advantages, [a, -a, 0, 0], 15);
  });

  it('ids compare by String(id): group 1 and group "1" are one group', () => {
    const batch = [r(1, 0, 'A', 1), r('1', 1, 'A', 0)];
    expect(computeAdvantages(batch, { estimator: 'drmas' }).stats.sets).toBe(1);
  });

  it('non-finite rewards are refused with the offending rows named', () => {
    const batch = [r(0, 0, 'A', 1), r(0, 1, 'A', NaN), r(0, 2, 'A', 0), r(0, 3, 'A', -Infinity)];
    expect(() => computeAdvantages(batch, { estimator: 'grpo' })).toThrow(/row 1 \(NaN\), 3 \(-Infinity\)/);
  });

  it('unknown estimator names throw with the valid list; bad options are refused', () => {
    expect(() => computeAdvantages(rows, { estimator: 'ppo' as never })).toThrow(
      "Unknown advantage estimator 'ppo'. Valid: grpo, drmas, atgrpo, global-step, magrpo, mars2.",
    );
    expect(() => getEstimator('toString')).toThrow(/Unknown advantage estimator/);
    expect(() => computeAdvantages(rows, { estimator: 'grpo', eps: -1 })).toThrow(/eps/);
    expect(() => computeAdvantages(rows, { estimator: 'grpo', singleton: 'drop' as never })).toThrow(
      /singleton/,
    );
  });

  it('an empty batch gives no advantages and no agents', () => {
    const { advantages, stats } = computeAdvantages([], { estimator: 'drmas' });
    expect(advantages.length).toBe(0);
    expect(stats.agents).toEqual({});
    expect(stats.sets).toBe(0);
  });
});

describe('what an advantage was computed from, in words', () => {
  const row = { agent: 'S', turn: 1 }; // S's second call (the hand batch's retry in t1)
  it('follows each estimator’s registry entry: its value, its set, and whether the std divides', () => {
    expect(advantageBasis('grpo', row)).toBe(
      'trajectory score = mean of its rows’ rewards, normalized by the mean and std of the G trajectory scores of its question (GRPO)',
    );
    expect(advantageBasis('drmas', row)).toBe(
      'this row’s reward, normalized by the mean and std of agent S’s rows over the G rollouts of its question (Dr. MAS)',
    );
    expect(advantageBasis('atgrpo', row)).toBe(
      'this row’s reward, normalized by the mean and std of agent S’s call-2 rows over the G rollouts of its question (AT-GRPO)',
    );
    // Without the std (advantage.normalizeStd=false), and MAGRPO, which never divides.
    expect(advantageBasis('drmas', row, false)).toMatch(
      /^this row’s reward, minus the mean of agent S’s rows/,
    );
    expect(advantageBasis('magrpo', row)).toMatch(
      /^this row’s reward, minus the mean of agent S’s call-2 rows/,
    );
  });

  it('the words match the numbers: GRPO gives the retry row its trajectory’s advantage, Dr. MAS its own', () => {
    const g = computeAdvantages(SOLVER_VERIFIER, { estimator: 'grpo', eps: 0 }).advantages;
    const d = computeAdvantages(SOLVER_VERIFIER, { estimator: 'drmas', eps: 0 }).advantages;
    // t1's rows (2, 3, 4): one trajectory score for all under GRPO; per row under Dr. MAS.
    expect(g[4]).toBe(g[2]);
    expect(d[4]).not.toBe(d[2]);
  });
});
