// Properties of the estimators over random multi-agent batches (docs/estimators.md#synchronous-degeneration, docs/estimators.md#properties-the-tests-check): per-set
// moments, shift/scale invariance, row order, synchronous degeneration.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ESTIMATOR_NAMES, type EstimatorName } from '../../src/core/estimators';
import { computeAdvantages, type AdvantageRow } from '../../src/rl/advantage';

/** The normalization sets, written out here independently of the registry. */
const SET_KEY: Record<EstimatorName, (r: AdvantageRow) => string> = {
  grpo: (r) => `${r.group}`,
  drmas: (r) => `${r.group}|${r.agent}`,
  atgrpo: (r) => `${r.group}|${r.agent}|${r.turn}`,
  'global-step': (r) => `${r.group}`,
  magrpo: (r) => `${r.group}|${r.agent}|${r.turn}`,
  mars2: (r) => `${r.group}`,
};

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
function sd(xs: number[]): number {
  const mu = mean(xs);
  return Math.sqrt(xs.reduce((acc, v) => acc + (v - mu) ** 2, 0) / (xs.length - 1));
}

interface TestSet {
  /** One value per unit: a trajectory's mean reward for grpo, a row's reward otherwise. */
  values: number[];
  /** Each unit's advantage. */
  adv: number[];
  /** The rows in the set. */
  rows: number[];
}

/** The normalization sets of a batch, rebuilt from SET_KEY. */
function sets(rows: AdvantageRow[], adv: Float64Array, name: EstimatorName): TestSet[] {
  const out = new Map<string, Map<string, { values: number[]; adv: number; rows: number[] }>>();
  rows.forEach((r, i) => {
    const set = out.get(SET_KEY[name](r)) ?? new Map();
    out.set(SET_KEY[name](r), set);
    const unit = name === 'grpo' ? `${r.traj}` : `${i}`;
    const u = set.get(unit) ?? { values: [], adv: adv[i], rows: [] };
    u.values.push(r.reward);
    u.rows.push(i);
    set.set(unit, u);
  });
  return [...out.values()].map((s) => {
    const units = [...s.values()];
    return {
      // a trajectory of equal rows scores exactly that reward (a naive Σ/n of −0.8 ×3 would not)
      values: units.map((u) => (u.values.every((v) => v === u.values[0]) ? u.values[0] : mean(u.values))),
      adv: units.map((u) => u.adv),
      rows: units.flatMap((u) => u.rows),
    };
  });
}

/** Per row: the size n of its set and the set's unbiased σ. */
function setInfo(rows: AdvantageRow[], name: EstimatorName): { n: number; sigma: number }[] {
  const info: { n: number; sigma: number }[] = [];
  for (const s of sets(rows, new Float64Array(rows.length), name))
    for (const i of s.rows) info[i] = { n: s.values.length, sigma: sd(s.values) };
  return info;
}

/**
 * Random batches: 1–4 groups × 1–6 trajectories; each trajectory has a reward on a 0.1 grid (ties
 * and all-equal sets are common) and 1–5 rows by agents 0–2, some carrying a −0.1 penalty.
 */
const batchArb = fc
  .array(
    fc.array(
      fc.record({
        reward: fc.integer({ min: -10, max: 10 }),
        calls: fc.array(
          fc.record({ agent: fc.integer({ min: 0, max: 2 }), penalty: fc.constantFrom(0, 0, 0, 0.1) }),
          { minLength: 1, maxLength: 5 },
        ),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((groups) => {
    const rows: AdvantageRow[] = [];
    groups.forEach((trajs, g) =>
      trajs.forEach((t, j) => {
        const turns = [0, 0, 0];
        for (const c of t.calls)
          rows.push({
            group: `g${g}`,
            traj: j,
            agent: `a${c.agent}`,
            turn: turns[c.agent]++,
            reward: t.reward / 10 - c.penalty,
          });
      }),
    );
    return rows;
  });

const estimatorArb = fc.constantFrom(...ESTIMATOR_NAMES);
/** Values equal up to rounding (the estimators treat a relative spread ≤ 1e-12 as a tie). */
const tie = (values: number[]): boolean =>
  Math.max(...values) - Math.min(...values) <= 1e-12 * Math.max(...values.map(Math.abs));
const informative = (values: number[]): boolean => values.length >= 2 && !tie(values);

describe('per-set moments', () => {
  it('each set with n ≥ 2 and unequal values: mean A = 0 and, with std, E[A²] = (n−1)/n (eps = 0: to 1e-9)', () => {
    fc.assert(
      fc.property(batchArb, estimatorArb, (rows, name) => {
        const { advantages } = computeAdvantages(rows, { estimator: name, eps: 0 });
        for (const s of sets(rows, advantages, name)) {
          if (!informative(s.values)) continue;
          const n = s.values.length;
          expect(Math.abs(mean(s.adv))).toBeLessThan(1e-9);
          if (name !== 'magrpo') expect(mean(s.adv.map((a) => a * a))).toBeCloseTo((n - 1) / n, 9);
        }
      }),
    );
  });

  it('with the default eps the second moment is (n−1)/n · σ²/(σ + eps)²', () => {
    fc.assert(
      fc.property(
        batchArb,
        fc.constantFrom<EstimatorName>('grpo', 'drmas', 'atgrpo', 'global-step'),
        (rows, name) => {
          const { advantages } = computeAdvantages(rows, { estimator: name });
          for (const s of sets(rows, advantages, name)) {
            if (!informative(s.values)) continue;
            const n = s.values.length;
            const sigma = sd(s.values);
            expect(mean(s.adv.map((a) => a * a))).toBeCloseTo(
              ((n - 1) / n) * (sigma / (sigma + 1e-6)) ** 2,
              9,
            );
          }
        },
      ),
    );
  });

  it('all-equal sets are exactly 0, for every estimator', () => {
    fc.assert(
      fc.property(batchArb, estimatorArb, (rows, name) => {
        const { advantages } = computeAdvantages(rows, { estimator: name });
        for (const s of sets(rows, advantages, name))
          if (s.values.length >= 2 && tie(s.values)) expect(s.adv.every((a) => a === 0)).toBe(true);
      }),
    );
  });
});

describe('invariances', () => {
  it('adding a constant to every reward changes no advantage outside singleton sets', () => {
    fc.assert(
      fc.property(
        batchArb,
        estimatorArb,
        fc.double({ min: -5, max: 5, noNaN: true }),
        fc.boolean(),
        (rows, name, b, normalizeStd) => {
          const a = computeAdvantages(rows, { estimator: name, normalizeStd }).advantages;
          const shifted = computeAdvantages(
            rows.map((r) => ({ ...r, reward: r.reward + b })),
            { estimator: name, normalizeStd },
          ).advantages;
          const info = setInfo(rows, name);
          rows.forEach((_, i) => {
            if (info[i].n >= 2) expect(Math.abs(shifted[i] - a[i])).toBeLessThan(1e-9);
          });
        },
      ),
    );
  });

  it('multiplying rewards by c > 0: std-normalized advantages unchanged up to eps; centred ones and singletons scale by c', () => {
    fc.assert(
      fc.property(batchArb, estimatorArb, fc.double({ min: 0.1, max: 10, noNaN: true }), (rows, name, c) => {
        const scaled = rows.map((r) => ({ ...r, reward: r.reward * c }));
        const run = (rs: AdvantageRow[], o: { eps?: number; normalizeStd?: boolean }): Float64Array =>
          computeAdvantages(rs, { estimator: name, ...o }).advantages;
        const [a, ac] = [run(rows, {}), run(scaled, {})];
        const [a0, ac0] = [run(rows, { eps: 0 }), run(scaled, { eps: 0 })];
        const [off, offc] = [run(rows, { normalizeStd: false }), run(scaled, { normalizeStd: false })];
        const info = setInfo(rows, name);
        rows.forEach((_, i) => {
          expect(Math.abs(offc[i] - c * off[i])).toBeLessThan(1e-9);
          if (name === 'magrpo' || info[i].n === 1) {
            expect(Math.abs(ac[i] - c * a[i])).toBeLessThan(1e-9); // no std, or raw singleton s/(1+eps)
            return;
          }
          expect(Math.abs(ac0[i] - a0[i])).toBeLessThan(1e-9); // eps = 0: exactly invariant
          // with eps: a = a0·σ/(σ + eps), and the scaled batch has σ → cσ
          const { sigma } = info[i];
          expect(a[i]).toBeCloseTo((a0[i] * sigma) / (sigma + 1e-6), 9);
          expect(ac[i]).toBeCloseTo((a0[i] * c * sigma) / (c * sigma + 1e-6), 9);
        });
      }),
    );
  });

  it('row order never changes advantages or stats, to the last bit', () => {
    fc.assert(
      fc.property(
        batchArb.chain((rows) =>
          fc.tuple(
            fc.constant(rows),
            fc.shuffledSubarray(
              rows.map((_, i) => i),
              { minLength: rows.length, maxLength: rows.length },
            ),
          ),
        ),
        estimatorArb,
        fc.constantFrom('raw' as const, 'zero' as const),
        ([rows, perm], name, singleton) => {
          const base = computeAdvantages(rows, { estimator: name, singleton });
          const permuted = computeAdvantages(
            perm.map((i) => rows[i]),
            { estimator: name, singleton },
          );
          perm.forEach((i, j) => expect(Object.is(permuted.advantages[j], base.advantages[i])).toBe(true));
          expect(permuted.stats).toEqual(base.stats);
        },
      ),
    );
  });
});

describe('synchronous degeneration (docs/estimators.md#synchronous-degeneration): K agents act once per trajectory on a shared reward', () => {
  const syncArb = fc
    .record({
      K: fc.integer({ min: 1, max: 4 }),
      groups: fc.array(fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 2, maxLength: 8 }), {
        minLength: 1,
        maxLength: 4,
      }),
    })
    .map(({ K, groups }) => {
      const rows: AdvantageRow[] = [];
      groups.forEach((rewards, g) =>
        rewards.forEach((R, i) => {
          for (let k = 0; k < K; k++) rows.push({ group: g, traj: i, agent: k, turn: 0, reward: R / 7 });
        }),
      );
      return { K, groups, rows };
    });

  it('drmas == grpo == one-turn atgrpo exactly', () => {
    fc.assert(
      fc.property(syncArb, fc.boolean(), ({ rows }, normalizeStd) => {
        const grpo = computeAdvantages(rows, { estimator: 'grpo', normalizeStd }).advantages;
        expect(computeAdvantages(rows, { estimator: 'drmas', normalizeStd }).advantages).toEqual(grpo);
        expect(computeAdvantages(rows, { estimator: 'atgrpo', normalizeStd }).advantages).toEqual(grpo);
      }),
    );
  });

  it('global-step == grpo · sqrt((GK−1)/(K(G−1))) to 1e-9 relative (eps = 0); equal with std off', () => {
    fc.assert(
      fc.property(syncArb, ({ K, groups, rows }) => {
        const grpo = computeAdvantages(rows, { estimator: 'grpo', eps: 0 }).advantages;
        const step = computeAdvantages(rows, { estimator: 'global-step', eps: 0 }).advantages;
        const grpoOff = computeAdvantages(rows, { estimator: 'grpo', normalizeStd: false }).advantages;
        const stepOff = computeAdvantages(rows, { estimator: 'global-step', normalizeStd: false }).advantages;
        rows.forEach((r, i) => {
          const G = groups[r.group as number].length;
          const factor = Math.sqrt((G * K - 1) / (K * (G - 1)));
          expect(Math.abs(step[i] - grpo[i] * factor)).toBeLessThanOrEqual(1e-9 * Math.abs(step[i]) + 1e-12); // absolute floor: a reward at the mean cancels to ~1e-16
          expect(Math.abs(stepOff[i] - grpoOff[i])).toBeLessThan(1e-12);
        });
      }),
    );
  });

  it('worked example: G = 2, K = 2, rewards {1, 0} → grpo ±1/√2, global-step ±√3/2', () => {
    const rows: AdvantageRow[] = [0, 1].flatMap((i) =>
      ['A', 'B'].map((agent) => ({ group: 0, traj: i, agent, turn: 0, reward: 1 - i })),
    );
    const grpo = computeAdvantages(rows, { estimator: 'grpo', eps: 0 }).advantages;
    const step = computeAdvantages(rows, { estimator: 'global-step', eps: 0 }).advantages;
    expect(grpo[0]).toBeCloseTo(Math.SQRT1_2, 15); // 0.5 / sqrt(0.5)
    expect(step[0]).toBeCloseTo(Math.sqrt(3) / 2, 15); // 0.5 / sqrt(1/3), factor sqrt(3/2)
    expect(step[3]).toBeCloseTo(-Math.sqrt(3) / 2, 15);
  });
});
