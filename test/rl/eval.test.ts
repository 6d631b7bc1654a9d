// avg@k, empirical pass@k (Dr. MAS) and the unbiased pass@k of Chen et al. (docs/estimators.md#evaluation-metrics).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evalAtK, passAtKUnbiased } from '../../src/rl/eval';

const T = true;
const F = false;

/** C(n, k) exactly, for the small n of these tests. */
function binom(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('avg@k and pass@k', () => {
  it('known values', () => {
    const r = evalAtK([
      [T, F, F, F],
      [F, F, F, F],
      [T, T, T, T],
    ]);
    expect(r.k).toBe(4);
    expect(r.avg).toBeCloseTo((0.25 + 0 + 1) / 3, 15);
    expect(r.pass).toBeCloseTo(2 / 3, 15);
    expect(r.passUnbiased).toBeUndefined();
  });

  it('unbiased option: per question 1 − C(n−c,k)/C(n,k), averaged', () => {
    const r = evalAtK(
      [
        [T, F, F, F],
        [F, F, F, F],
        [T, T, F, F],
      ],
      { unbiasedK: 2 },
    );
    // q0: 1 − C(3,2)/C(4,2) = 1/2; q1: 0; q2: 1 − C(2,2)/C(4,2) = 5/6
    expect(r.passUnbiased).toBeCloseTo((0.5 + 0 + 5 / 6) / 3, 15);
  });

  it('pass@k ≥ avg@k; unbiased pass@1 = avg@k; unbiased pass@n = empirical pass@n', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 8 })
          .chain((k) =>
            fc.array(fc.array(fc.boolean(), { minLength: k, maxLength: k }), { minLength: 1, maxLength: 6 }),
          ),
        (qs) => {
          const r = evalAtK(qs);
          expect(r.pass).toBeGreaterThanOrEqual(r.avg);
          expect(evalAtK(qs, { unbiasedK: 1 }).passUnbiased).toBeCloseTo(r.avg, 12);
          expect(evalAtK(qs, { unbiasedK: r.k }).passUnbiased).toBeCloseTo(r.pass, 12);
        },
      ),
    );
  });

  it('refuses ragged inputs; no questions gives NaN', () => {
    expect(() => evalAtK([[T, F], [T]])).toThrow(/question 1 has 1 samples/);
    expect(() => evalAtK([[]])).toThrow(/no samples/);
    expect(evalAtK([]).avg).toBeNaN();
  });
});

describe('unbiased pass@k (Chen et al. 2021)', () => {
  it('known values', () => {
    expect(passAtKUnbiased(5, 2, 2)).toBeCloseTo(0.7, 15); // 1 − C(3,2)/C(5,2) = 1 − 3/10
    expect(passAtKUnbiased(4, 1, 1)).toBeCloseTo(0.25, 15);
    expect(passAtKUnbiased(10, 0, 5)).toBe(0);
    expect(passAtKUnbiased(10, 6, 5)).toBe(1); // only 4 failures: every 5-draw has a success
    expect(passAtKUnbiased(16, 1, 16)).toBe(1);
  });

  it('matches the binomial formula for small n', () => {
    for (let n = 1; n <= 12; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++)
          expect(passAtKUnbiased(n, c, k)).toBeCloseTo(1 - binom(n - c, k) / binom(n, k), 12);
  });

  it('stays finite where binomial coefficients overflow', () => {
    const p = passAtKUnbiased(2000, 3, 100);
    expect(Number.isFinite(p)).toBe(true);
    expect(p).toBeCloseTo(1 - (1900 * 1899 * 1898) / (2000 * 1999 * 1998), 12);
  });

  it('refuses impossible arguments', () => {
    expect(() => passAtKUnbiased(5, 6, 1)).toThrow(/0 ≤ c ≤ n/);
    expect(() => passAtKUnbiased(5, 1, 6)).toThrow();
    expect(() => passAtKUnbiased(5, 1, 0)).toThrow();
    expect(() => passAtKUnbiased(5.5, 1, 1)).toThrow();
  });
});
