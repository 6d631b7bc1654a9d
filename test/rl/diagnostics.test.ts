// Per-agent diagnostics (docs/estimators.md#per-agent-diagnostics) and their metric names (docs/metrics.md#metrics).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentKey, M } from '../../src/core/metrics';
import { computeAdvantages, type AdvantageRow } from '../../src/rl/advantage';
import { statsToMetrics } from '../../src/rl/diagnostics';
import { SOLVER_VERIFIER } from './fixtures';

// The Solver/Verifier batch of advantage.test.ts: S = {1, 0, −0.1, 1, 0}, V = {1, 0, 0.9, 0};
// trajectory scores 1, −0.1/3, 0.95, 0.
const rows: readonly AdvantageRow[] = SOLVER_VERIFIER;

describe('per-agent stats, hand-computed', () => {
  it('calls, pooled mu_k and population sigma_k, amplification', () => {
    const { stats } = computeAdvantages(rows, { estimator: 'drmas' });
    const S = stats.agents.S;
    const V = stats.agents.V;
    expect(S.calls).toBe(5);
    expect(V.calls).toBe(4);
    expect(S.rewardMean).toBeCloseTo(0.38, 15);
    expect(V.rewardMean).toBeCloseTo(0.475, 15);
    expect(S.rewardStd).toBeCloseTo(0.5075431016179808, 14); // sqrt(Σ(r − 0.38)²/5)
    expect(V.rewardStd).toBeCloseTo(0.4763139720814413, 14);
    // (σ_k² + (μ_k − μ)²)/σ², μ = 0.47916…, σ = unbiased std of the 4 trajectory scores
    expect(S.amplification).toBeCloseTo(0.8143476422076547, 12);
    expect(V.amplification).toBeCloseTo(0.6908965954747303, 12);
  });

  it('the share of rows that carry their trajectory’s score: t0 and t3 do, t1 (a penalty) and t2 (0.95 ≠ 1) do not', () => {
    const { stats } = computeAdvantages(rows, { estimator: 'grpo' });
    expect(stats.agents.S.carried).toBe(2 / 5);
    expect(stats.agents.V.carried).toBe(2 / 4);
    // A shared reward broadcast to every row, one that no float sum of thirds gives back exactly: 1.
    const shared = rows.map((r) => ({ ...r, reward: { t0: 0.1, t1: 0.7, t2: 0.3, t3: 1 / 3 }[r.traj]! }));
    const all = computeAdvantages(shared, { estimator: 'grpo' }).stats;
    expect([all.agents.S.carried, all.agents.V.carried]).toEqual([1, 1]);
  });

  it('advantage moments under drmas: mean 0, E[A²] = (n−1)/n · σ²/(σ+eps)², min and max', () => {
    const { stats } = computeAdvantages(rows, { estimator: 'drmas' });
    // S: Σ(r − 0.38)² = 1.288, unbiased σ² = 0.322
    expect(stats.agents.S.advMean).toBeCloseTo(0, 14);
    expect(stats.agents.S.advSqMean).toBeCloseTo(
      ((4 / 5) * (1.288 / 4)) / (Math.sqrt(1.288 / 4) + 1e-6) ** 2,
      12,
    );
    expect(stats.agents.S.advMin).toBeCloseTo(-0.8458873615396867, 12);
    expect(stats.agents.S.advMax).toBeCloseTo(1.0926045086554288, 12);
    expect(stats.agents.V.advMin).toBeCloseTo(-0.8636347933912846, 12);
    expect(stats.agents.V.advMax).toBeCloseTo(0.9545437190114199, 12);
  });

  it('under a shared baseline (grpo) the agents have mean A ≠ 0', () => {
    const { stats } = computeAdvantages(rows, { estimator: 'grpo' });
    // S's rows: t0, t1 ×2, t2, t3 → (0.9089 − 2·0.8943 + 0.8216 − 0.8361)/5
    expect(stats.agents.S.advMean).toBeCloseTo(
      (0.908855003542321 - 2 * 0.8943133234856437 + 0.8216049232022581 - 0.8361466032589352) / 5,
      12,
    );
    expect(stats.agents.S.advMean).not.toBeCloseTo(0, 3);
  });

  it('singleton and zero-advantage fractions count normalization sets of the active estimator', () => {
    expect(computeAdvantages(rows, { estimator: 'atgrpo' }).stats).toMatchObject({
      sets: 3,
      singletonFrac: 1 / 3,
      zeroAdvFrac: 0,
    });
    expect(computeAdvantages(rows, { estimator: 'grpo' }).stats).toMatchObject({
      sets: 1,
      singletonFrac: 0,
      zeroAdvFrac: 0,
    });
    const flat: AdvantageRow[] = [
      { group: 0, traj: 0, agent: 'A', turn: 0, reward: 1 },
      { group: 0, traj: 1, agent: 'A', turn: 0, reward: 1 },
      { group: 1, traj: 0, agent: 'A', turn: 0, reward: 0 },
      { group: 1, traj: 1, agent: 'A', turn: 0, reward: 1 },
      { group: 2, traj: 0, agent: 'A', turn: 0, reward: 1 },
    ];
    const s = computeAdvantages(flat, { estimator: 'drmas' }).stats;
    expect(s).toMatchObject({ sets: 3, singletonFrac: 1 / 3, zeroAdvFrac: 1 / 3 });
    // Groups 0 (σ = 0) and 2 (one trajectory) have no amplification term; group 1: (1/4 + 0)/(1/2).
    expect(s.agents.A.amplification).toBeCloseTo(0.5, 15);
  });

  it('amplification is the mean over groups, not pooled over rows', () => {
    // g0: scores {1, 0}, σ² 1/2; A = {1, 0} → (1/4 + 0)/(1/2) = 1/2.
    // g1: A only on the winner → (0 + (1 − 1/2)²)/(1/2) = 1/2; B only on the loser → 1/2.
    // g2: scores {2, 0, 1}, μ 1, σ² 1; A = {2, 2, 1} → (2/9 + (5/3 − 1)²)/1 = 2/3; B = {0} → (0 + 1)/1 = 1.
    // Mean over groups: A (1/2 + 1/2 + 2/3)/3 = 5/9 (row-weighted would be 7/12); B (1/2 + 1)/2 = 3/4.
    const batch: AdvantageRow[] = [
      { group: 'g0', traj: 0, agent: 'A', turn: 0, reward: 1 },
      { group: 'g0', traj: 1, agent: 'A', turn: 0, reward: 0 },
      { group: 'g1', traj: 0, agent: 'A', turn: 0, reward: 1 },
      { group: 'g1', traj: 1, agent: 'B', turn: 0, reward: 0 },
      { group: 'g2', traj: 0, agent: 'A', turn: 0, reward: 2 },
      { group: 'g2', traj: 0, agent: 'A', turn: 1, reward: 2 },
      { group: 'g2', traj: 1, agent: 'B', turn: 0, reward: 0 },
      { group: 'g2', traj: 2, agent: 'A', turn: 0, reward: 1 },
    ];
    const { stats } = computeAdvantages(batch, { estimator: 'grpo' });
    expect(stats.agents.A.amplification).toBeCloseTo(5 / 9, 15);
    expect(stats.agents.B.amplification).toBeCloseTo(3 / 4, 15);
  });

  it('synchronous agents (one row per trajectory, shared reward) have amplification (G−1)/G', () => {
    const G = 5;
    const batch: AdvantageRow[] = [0, 0.3, 1, 0.2, 0.7].flatMap((R, i) =>
      ['A', 'B'].map((agent) => ({ group: 0, traj: i, agent, turn: 0, reward: R })),
    );
    const { stats } = computeAdvantages(batch, { estimator: 'drmas' });
    expect(stats.agents.A.amplification).toBeCloseTo((G - 1) / G, 14);
    expect(stats.agents.B.amplification).toBeCloseTo((G - 1) / G, 14);
  });
});

describe('amplification identity (docs/estimators.md#the-amplification-factor): = E[A²] of agent k under the shared GRPO baseline', () => {
  it('holds per group when every row carries its trajectory reward (eps = 0); amplification_rows likewise under global-step', () => {
    const oneGroup = fc
      .array(
        fc.record({
          reward: fc.integer({ min: -5, max: 5 }),
          agents: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 4 }),
        }),
        { minLength: 2, maxLength: 8 },
      )
      .map((trajs) =>
        trajs.flatMap((t, j) =>
          t.agents.map((k, turn): AdvantageRow => ({
            group: 0,
            traj: j,
            agent: `a${k}`,
            turn,
            reward: t.reward / 3,
          })),
        ),
      );
    fc.assert(
      fc.property(oneGroup, (batch) => {
        const { stats } = computeAdvantages(batch, { estimator: 'grpo', eps: 0 });
        const step = computeAdvantages(batch, { estimator: 'global-step', eps: 0 }).stats;
        for (const [agent, s] of Object.entries(stats.agents)) {
          if (Number.isNaN(s.amplification)) continue; // σ = 0: no term
          expect(s.amplification).toBeCloseTo(s.advSqMean, 12);
          expect(s.amplificationRows).toBeCloseTo(step.agents[agent].advSqMean, 12);
        }
      }),
    );
  });
});

describe('statsToMetrics', () => {
  it("emits docs/metrics.md's names, and a fixed key set when given the run's agents", () => {
    const { stats } = computeAdvantages(rows, { estimator: 'drmas' });
    const m = statsToMetrics(stats, ['S', 'V', 'Idle']);
    expect(m[agentKey('S', 'calls')]).toBe(5);
    expect(m['agent/S/reward/mean']).toBeCloseTo(0.38, 15);
    expect(m['agent/V/adv/sq_mean']).toBe(stats.agents.V.advSqMean);
    expect(m['agent/V/amplification']).toBe(stats.agents.V.amplification);
    expect(m['agent/Idle/calls']).toBe(0);
    expect(m['agent/Idle/adv/mean']).toBeNaN();
    expect(m[M.singletonFrac]).toBe(0);
    expect(m[M.zeroAdvFrac]).toBe(0);
    expect(Object.keys(m)).toHaveLength(3 * 10 + 2);
    expect(Object.keys(statsToMetrics(stats))).toHaveLength(2 * 10 + 2);
  });
});

describe('amplification with the default eps, and its metric keys', () => {
  // One prompt group: G trajectories, each with a broadcast reward R_t, and three agents acting
  // 0–3 times each per trajectory (variable invocation counts, as with routing and retries).
  const group = fc
    .array(
      fc.record({ reward: fc.constantFrom(0, 0.5, 1, 2), calls: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)) }),
      { minLength: 2, maxLength: 8 },
    )
    .filter((ts) => ts.every((t) => t.calls.some((c) => c > 0)) && new Set(ts.map((t) => t.reward)).size > 1);
  const rowsOf = (ts: { reward: number; calls: [number, number, number] }[]): AdvantageRow[] =>
    ts.flatMap((t, traj) =>
      t.calls.flatMap((n, a) =>
        Array.from({ length: n }, (_, turn) => ({ group: 0, traj, agent: 'ABC'[a], turn, reward: t.reward })),
      ),
    );

  it('with the default eps 1e-6 they agree up to the eps effect (σ/(σ + eps))²', () => {
    const agree = fc.property(group, (ts) => {
      // σ: the unbiased std of the group's trajectory scores (each row carries its trajectory's
      // reward, so a score is that reward).
      const R: number[] = ts.map((t) => t.reward);
      const mu = R.reduce((a, b) => a + b, 0) / R.length;
      const sigma = Math.sqrt(R.reduce((a, r) => a + (r - mu) ** 2, 0) / (R.length - 1));
      const grpo = computeAdvantages(rowsOf(ts), { estimator: 'grpo' }).stats;
      for (const s of Object.values(grpo.agents))
        expect(s.advSqMean).toBeCloseTo(s.amplification * (sigma / (sigma + 1e-6)) ** 2, 12);
    });
    // A flat bound of 1e-5 in place of the factor failed on 2–3 % of seeds: at σ ≈ 0.18 the
    // eps effect is 1.1e-5. This seed drew such a group.
    fc.assert(agree, { seed: 2083189068 });
    fc.assert(agree);
  });

  it('is emitted as agent/<name>/amplification and agent/<name>/amplification_rows', () => {
    const { stats } = computeAdvantages(rows, { estimator: 'grpo' });
    const m = statsToMetrics(stats);
    expect(m[agentKey('S', 'amplification')]).toBe(stats.agents.S.amplification);
    expect(m[agentKey('S', 'amplification_rows')]).toBe(stats.agents.S.amplificationRows);
    expect(stats.agents.S.amplificationRows).not.toBeCloseTo(stats.agents.S.amplification, 3);
  });
});
