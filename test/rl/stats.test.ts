// Group statistics (docs/estimators.md#group-statistics) and the gradient-spike counter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allEqual,
  gradSpikes,
  mean,
  normalize,
  populationVariance,
  setStats,
  unbiasedStd,
} from '../../src/rl/stats';

describe('reductions', () => {
  it('mean of equal values is exactly that value (a naive Σx/n of 0.1 ×3 is not)', () => {
    expect((0.1 + 0.1 + 0.1) / 3).not.toBe(0.1);
    expect(mean([0.1, 0.1, 0.1])).toBe(0.1);
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
        fc.integer({ min: 1, max: 50 }),
        (x, n) => {
          expect(mean(Array(n).fill(x)) === x).toBe(true); // === : −0 and +0 both fine
        },
      ),
    );
  });

  it('unbiased std divides by n − 1, population variance by n', () => {
    expect(unbiasedStd([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(5 / 3), 15);
    expect(populationVariance([1, 2, 3, 4])).toBeCloseTo(1.25, 15);
    expect(unbiasedStd([7])).toBeNaN();
  });

  it('results do not depend on the order of values, to the last bit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -100, max: 100 }), { minLength: 2, maxLength: 30 }),
        (xs) => {
          const ys = [...xs].reverse();
          expect(Object.is(mean(ys), mean(xs))).toBe(true);
          expect(Object.is(unbiasedStd(ys), unbiasedStd(xs))).toBe(true);
        },
      ),
    );
  });

  it('allEqual: exact ties, and ties up to a few thousand ulps (the same mean rounded two ways)', () => {
    expect(allEqual([2, 2, 2])).toBe(true);
    expect(allEqual([0, 0])).toBe(true);
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(allEqual([0.3, 0.1 + 0.2])).toBe(true);
    expect(allEqual([2, 2, 2.0000001])).toBe(false);
    expect(allEqual([0, 1e-300])).toBe(false);
    expect(allEqual([])).toBe(false);
  });
});

describe('setStats and normalize (docs/estimators.md#group-statistics)', () => {
  it("singleton 'raw': mu 0, sigma 1 → s/(1+eps)", () => {
    const st = setStats([0.4], 'raw', true);
    expect(st).toEqual({ mu: 0, sigma: 1, zero: false });
    expect(normalize(0.4, st, true, 1e-6)).toBe(0.4 / (1 + 1e-6));
    expect(normalize(0.4, st, false, 1e-6)).toBe(0.4);
  });

  it("singleton 'zero': advantage 0 when the batch has a larger set, else the 'raw' rule", () => {
    expect(normalize(0.4, setStats([0.4], 'zero', true), true, 0)).toBe(0); // eps = 0 must not give NaN
    expect(setStats([0.4], 'zero', false)).toEqual({ mu: 0, sigma: 1, zero: false });
  });

  it('all-equal set → exactly 0, also with eps = 0 and std off, and for means that differ by an ulp', () => {
    expect(normalize(0.3, setStats([0.3, 0.1 + 0.2], 'raw', true), true, 0)).toBe(0);
    const st = setStats([0.3, 0.3, 0.3], 'raw', true);
    expect(st.zero).toBe(true);
    expect(normalize(0.3, st, true, 0)).toBe(0);
    expect(normalize(0.3, st, false, 1e-6)).toBe(0);
  });

  it('n ≥ 2: (s − mu)/(sigma + eps), unbiased sigma; population-std advantage = unbiased · sqrt(n/(n−1))', () => {
    const xs = [0, 1, 3];
    const st = setStats(xs, 'raw', true);
    expect(st.mu).toBeCloseTo(4 / 3, 15);
    expect(st.sigma).toBeCloseTo(Math.sqrt(7 / 3), 15); // Σ(x − 4/3)² = 14/3, ÷ 2
    const a = normalize(3, st, true, 0);
    expect(a).toBeCloseTo(5 / 3 / Math.sqrt(7 / 3), 15);
    const aPop = (3 - st.mu) / Math.sqrt(populationVariance(xs));
    expect(aPop).toBeCloseTo(a * Math.sqrt(3 / 2), 14);
  });

  it('an empty set is a bug, not a silent NaN', () => {
    expect(() => setStats([], 'raw', true)).toThrow(/empty/);
  });
});

describe('gradSpikes: steps above 3× the median of earlier finite steps', () => {
  it('hand-computed', () => {
    // medians before each step: –, 1, 1, 1, 1, 1, 1, (NaN skipped), 1
    expect(gradSpikes([1, 1, 1, 5, 1, 2, 10, NaN, 3.5])).toEqual([3, 6, 8]);
    expect(gradSpikes([2, 4, 13])).toEqual([2]); // median of [2, 4] is 3: 13 > 9
    expect(gradSpikes([2, 4, 9])).toEqual([]); // 9 is not > 9
    expect(gradSpikes([2, 4, 9], 2)).toEqual([2]);
    expect(gradSpikes([])).toEqual([]);
    expect(gradSpikes([100])).toEqual([]);
  });

  it('agrees with a direct re-sort at every step', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { maxLength: 60 }), (xs) => {
        const expected: number[] = [];
        xs.forEach((v, i) => {
          if (i === 0) return;
          const h = xs.slice(0, i).sort((a, b) => a - b);
          const med = h.length % 2 ? h[h.length >> 1] : (h[h.length / 2 - 1] + h[h.length / 2]) / 2;
          if (v > 3 * med) expected.push(i);
        });
        expect(gradSpikes(xs)).toEqual(expected);
      }),
    );
  });
});
