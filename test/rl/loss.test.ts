// Reference policy loss (docs/estimators.md#policy-loss, docs/estimators.md#properties-the-tests-check): PPO clip with dual clip, aggregation modes,
// KL estimators, entropy bonus — hand-computed small tensors and identities.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGGREGATIONS,
  KL_ESTIMATORS,
  KL_TYPES,
  LOSS_AGG_MODES as AGG_MODES,
  POLICY_LOSSES,
} from '../../src/core/losses';
import { aggregate, policyLoss } from './reference-loss';

/** The vanilla PPO dual-clip loss of one token as [L, clipped, dual-clipped]. */
const ppoTokenLoss = (
  d: number,
  A: number,
  low: number,
  high: number,
  c: number,
): [number, boolean, boolean] => {
  const r = POLICY_LOSSES.vanilla.ref(d, A, { low, high, c });
  return [r.L, r.clipped, r.dualClipped];
};

/**
 * B = 2, T = 3, the last token of sequence 0 is padding (NaN log-probs must not leak).
 * Ratios r = e^d: seq 0 (A = +1): 1.5, 0.5; seq 1 (A = −1): 1.1, 4, 0.7.
 *   seq 0: r 1.5 → max(−1.5, −1.2) = −1.2 (clipped); r 0.5 → max(−0.5, −0.8) = −0.5
 *   seq 1: r 1.1 → 1.1; r 4 → max(4, 1.2) = 4, dual-capped at c = 3; r 0.7 → max(0.7, 0.8) = 0.8 (clipped)
 * Per-token L: [−1.2, −0.5 | 1.1, 3, 0.8]; sums −1.7 and 4.9; 5 tokens.
 */
const oldLogp = [-1, -2, -3, -0.5, -1, -2];
const ratios = [1.5, 0.5, NaN, 1.1, 4, 0.7];
const small = {
  logp: oldLogp.map((o, j) => o + Math.log(ratios[j])),
  oldLogp,
  mask: [1, 1, 0, 1, 1, 1],
  advantages: [1, -1],
};

describe('PPO clip with dual clip, hand-computed', () => {
  it('per-token losses and diagnostics', () => {
    const out = policyLoss(small);
    [-1.2, -0.5, 0, 1.1, 3, 0.8].forEach((e, j) =>
      expect(out.tokenPgLoss[j], `token ${j}`).toBeCloseTo(e, 14),
    );
    expect(out.pgClipfrac).toBeCloseTo(2 / 5, 15);
    expect(out.pgClipfracLower).toBeCloseTo(1 / 5, 15);
    expect(out.ppoKl).toBeCloseTo(-Math.log(1.5 * 0.5 * 1.1 * 4 * 0.7) / 5, 14);
    expect(out.entropy).toBeNaN();
    expect(out.kl).toBeNaN();
    expect(out.loss).toBe(out.pgLoss);
  });

  it.each([
    ['token-mean', 3.2 / 5],
    ['seq-mean-token-sum', 3.2 / 2],
    ['seq-mean-token-mean', (-1.7 / 2 + 4.9 / 3) / 2],
    ['seq-mean-token-sum-norm', 3.2 / 3],
    ['seq-mean-token-sum-norm-oat', 3.2 / 6],
  ] as const)('%s aggregates to %f', (aggMode, expected) => {
    expect(policyLoss(small, { aggMode }).pgLoss).toBeCloseTo(expected, 14);
  });

  it('lMax overrides the padded length in the sum-norm modes', () => {
    expect(policyLoss(small, { aggMode: 'seq-mean-token-sum-norm', lMax: 8 }).pgLoss).toBeCloseTo(
      3.2 / 8,
      14,
    );
    expect(policyLoss(small, { aggMode: 'seq-mean-token-sum-norm-oat', lMax: 8 }).pgLoss).toBeCloseTo(
      3.2 / 16,
      14,
    );
  });

  it('separate clipLow / clipHigh: a wider ceiling unclips r = 1.5', () => {
    const out = policyLoss(small, { clipHigh: 0.6 });
    expect(out.tokenPgLoss[0]).toBeCloseTo(-1.5, 14);
    expect(out.pgClipfrac).toBeCloseTo(1 / 5, 15);
    // a wider floor unclips r = 0.7 for A < 0
    expect(policyLoss(small, { clipLow: 0.4 }).tokenPgLoss[5]).toBeCloseTo(0.7, 14);
  });

  it('d is clamped to [−20, 20] before exp', () => {
    const [L] = ppoTokenLoss(50, -1, 0.2, 0.2, Infinity);
    expect(L).toBe(Math.exp(20));
  });

  it('d = 0 gives L = −A on every token and no clipping or KL', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 5 }),
        (adv, T) => {
          const lp = Array.from({ length: adv.length * T }, (_, j) => -0.1 * (j + 1));
          const out = policyLoss({ logp: lp, oldLogp: lp, mask: lp.map(() => 1), advantages: adv });
          out.tokenPgLoss.forEach((L, j) => expect(L).toBe(-adv[Math.floor(j / T)]));
          expect(out.pgClipfrac).toBe(0);
          expect(out.pgClipfracLower).toBe(0);
          expect(out.ppoKl).toBe(0);
        },
      ),
    );
  });

  it('the dual clip binds exactly when A < 0 and r > c, and then the token has zero gradient', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -2, max: 2, noNaN: true }),
        (d, A) => {
          const c = 3;
          const [L, , dual] = ppoTokenLoss(d, A, 0.2, 0.2, c);
          expect(dual).toBe(A < 0 && Math.exp(d) > c);
          if (dual) {
            expect(L).toBe(-A * c);
            expect(ppoTokenLoss(d + 1e-4, A, 0.2, 0.2, c)[0]).toBe(L); // flat in log π
          }
        },
      ),
    );
  });
});

describe('KL estimators', () => {
  // logp − ref = 0.5 and −1
  const x = { logp: [-1, -2], oldLogp: [-1, -2], refLogp: [-1.5, -1], mask: [1, 1], advantages: [0] };
  it.each([
    ['k1', [0.5, -1]],
    ['abs', [0.5, 1]],
    ['k2', [0.125, 0.5]],
    ['k3', [Math.exp(-0.5) + 0.5 - 1, Math.exp(1) - 2]], // d = ref − logp = −0.5, 1
  ] as const)('%s per token', (klType, expected) => {
    const per = KL_ESTIMATORS[klType].ref;
    expect(per(-1, -1.5)).toBeCloseTo(expected[0], 15);
    expect(per(-2, -1)).toBeCloseTo(expected[1], 15);
    expect(policyLoss(x, { klType }).kl).toBeCloseTo((expected[0] + expected[1]) / 2, 15);
  });

  it('k3 clamps d to [−20, 20] and the value to [−10, 10]', () => {
    const k3 = KL_ESTIMATORS.k3.ref;
    expect(k3(0, -12)).toBe(10); // e^−12 + 11 > 10
    expect(k3(0, 30)).toBe(10);
    expect(k3(0, -1000)).toBe(10);
    expect(k3(0, -9)).toBeCloseTo(Math.exp(-9) + 8, 14);
  });

  it('every estimator is 0 at logp = ref', () => {
    fc.assert(
      fc.property(fc.double({ min: -30, max: 0, noNaN: true }), (lp) => {
        for (const t of KL_TYPES) expect(KL_ESTIMATORS[t].ref(lp, lp)).toBe(0);
      }),
    );
  });
});

describe('total loss', () => {
  it('pg − entropyCoef·agg(entropy) + klCoef·agg(kl), all aggregated with the same mode', () => {
    const entropy = [1, 2, 99, 3, 4, 5];
    const refLogp = small.oldLogp;
    const out = policyLoss(
      { ...small, entropy, refLogp },
      { aggMode: 'seq-mean-token-mean', entropyCoef: 0.01, klCoef: 0.1, klType: 'k1' },
    );
    const ent = (1.5 + 4) / 2; // per-sequence means 1.5 and 4
    // k1 = logp − ref = log r: seq 0 mean (ln 1.5 + ln 0.5)/2, seq 1 mean ln(1.1·4·0.7)/3
    const kl = (Math.log(0.75) / 2 + Math.log(3.08) / 3) / 2;
    expect(out.entropy).toBeCloseTo(ent, 14);
    expect(out.kl).toBeCloseTo(kl, 14);
    expect(out.loss).toBeCloseTo((-1.7 / 2 + 4.9 / 3) / 2 - 0.01 * ent + 0.1 * kl, 14);
  });

  it('refuses bad shapes and options', () => {
    expect(() => policyLoss({ ...small, mask: [1, 1, 1] })).toThrow(/multiple of B/);
    expect(() => policyLoss({ ...small, logp: [0] })).toThrow(/logp has 1 entries/);
    expect(() => policyLoss(small, { clipC: 1 })).toThrow(/dual-clip/);
    expect(() => policyLoss(small, { aggMode: 'sum' as never })).toThrow(
      /Valid: token-mean, seq-mean-token-sum/,
    );
    expect(() => policyLoss(small, { klType: 'k9' as never })).toThrow(/Valid: k1, abs, k2, k3/);
    expect(() => policyLoss(small, { klCoef: 0.1 })).toThrow(/refLogp/);
    expect(() => policyLoss(small, { entropyCoef: 0.1 })).toThrow(/entropy/);
  });
});

describe('aggregation identities when every sequence has L_max tokens (docs/estimators.md#loss-aggregation)', () => {
  it('token-mean = seq-mean-token-mean = oat; seq-mean-token-sum = L_max·token-mean; verl sum-norm = B·token-mean', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        fc.infiniteStream(fc.double({ min: -3, max: 3, noNaN: true })),
        (B, T, stream) => {
          const values = [...stream.take(B * T)];
          const b = { values, mask: values.map(() => 1), B, T, lMax: T };
          const tm = aggregate('token-mean', b);
          expect(aggregate('seq-mean-token-mean', b)).toBeCloseTo(tm, 12);
          expect(aggregate('seq-mean-token-sum-norm-oat', b)).toBeCloseTo(tm, 12);
          expect(aggregate('seq-mean-token-sum', b)).toBeCloseTo(T * tm, 12);
          expect(aggregate('seq-mean-token-sum-norm', b)).toBeCloseTo(B * tm, 12);
        },
      ),
    );
  });

  it('empty sequences and batches contribute 0, never NaN', () => {
    const b = { values: [5, 5, 1, 2], mask: [0, 0, 1, 1], B: 2, T: 2, lMax: 2 };
    expect(aggregate('token-mean', b)).toBe(1.5);
    expect(aggregate('seq-mean-token-mean', b)).toBe(0.75);
    for (const mode of AGG_MODES)
      expect(aggregate(mode, { values: [], mask: [], B: 0, T: 0, lMax: 1 })).toBe(0);
    expect(policyLoss({ logp: [], oldLogp: [], mask: [], advantages: [] }).loss).toBe(0);
  });

  it('every mode documents its formula', () => {
    for (const mode of AGG_MODES) expect(AGGREGATIONS[mode].doc).toMatch(/Σ/);
  });
});
