/**
 * Group statistics for the GRPO family (docs/estimators.md#group-statistics) and small order-free reductions, in
 * float64. Every reduction sorts its values first, so a batch's row order can never change a
 * result, not even in the last bit. Also the gradient-spike counter used by the CLI summary.
 * Pure: no tfjs, no DOM, no Node APIs.
 */
import type { SingletonMode } from '../core/config-names';

/** Values in ascending order, as a fresh float64 array (typed-array sort is numeric). */
function sorted(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/**
 * Mean computed as m + Σ(x − m)/n with m the smallest value. Shifting by a member makes the mean
 * of n equal values exactly that value (a plain Σx/n of 0.1, 0.1, 0.1 is 0.10000000000000002),
 * which the synchronous-degeneration identity "drmas == grpo exactly" depends on (docs/estimators.md#synchronous-degeneration).
 */
export function mean(values: ArrayLike<number>): number {
  const s = sorted(values);
  const n = s.length;
  if (n === 0) return NaN;
  const m = s[0];
  let acc = 0;
  for (let i = 0; i < n; i++) acc += s[i] - m;
  return m + acc / n;
}

/** Σ(x − mu)², summed in ascending order of x. */
function sumSquares(s: Float64Array, mu: number): number {
  let ss = 0;
  for (let i = 0; i < s.length; i++) ss += (s[i] - mu) * (s[i] - mu);
  return ss;
}

/** Population variance Σ(x − mu)²/n (÷n), the sigma_k² of the amplification factor (docs/estimators.md#the-amplification-factor). */
export function populationVariance(values: ArrayLike<number>): number {
  const s = sorted(values);
  return s.length === 0 ? NaN : sumSquares(s, mean(s)) / s.length;
}

/** Unbiased std sqrt(Σ(x − mu)²/(n − 1)), like `torch.std`; NaN for n < 2. */
export function unbiasedStd(values: ArrayLike<number>): number {
  const s = sorted(values);
  return s.length < 2 ? NaN : Math.sqrt(sumSquares(s, mean(s)) / (s.length - 1));
}

/**
 * Relative spread below which a set's values count as equal. Values that are mathematically equal
 * can differ in the last bits: GRPO's trajectory means of [0.7, 1, 1] and [0.85, 0.95] come out
 * as 0.9 and 0.8999999999999999, a set with a std of ~1e-16 that ε = 0 would blow up to
 * advantages of ±0.7 (the near-zero-std pitfall, docs/estimators.md#pitfalls-guarded-against). A
 * deliberate guard beyond verl, whose float32 means have the same problem; 1e-12 is ~4500 ulps,
 * far below any reward difference a task can mean.
 */
const TIE_RTOL = 1e-12;

/** True when the set is non-empty and its values are equal up to TIE_RTOL of their magnitude. */
export function allEqual(values: ArrayLike<number>): boolean {
  if (values.length === 0) return false;
  let lo = values[0];
  let hi = values[0];
  for (let i = 1; i < values.length; i++) {
    lo = Math.min(lo, values[i]);
    hi = Math.max(hi, values[i]);
  }
  return hi - lo <= TIE_RTOL * Math.max(Math.abs(lo), Math.abs(hi));
}

/** Statistics of one normalization set: a(s) = (s − mu)/(sigma + eps), or s − mu without std. */
interface SetStats {
  mu: number;
  sigma: number;
  /** Every member's advantage is exactly 0: all-equal set, or a 'zero'-mode singleton. */
  zero: boolean;
}

/**
 * mu and sigma of one normalization set by docs/estimators.md#group-statistics:
 * - n ≥ 2: mu = mean, sigma = unbiased std; all-equal values (see TIE_RTOL) are flagged `zero`:
 *   advantage exactly 0, no rounding left in the numerator.
 * - n = 1, 'raw' (verl, Dr. MAS): mu = 0, sigma = 1, so the advantage is s/(1 + eps), NOT centred.
 * - n = 1, 'zero' (PettingLLMs' vendored verl): mu = s, sigma = 0, advantage 0 — but only when
 *   some set in the batch has ≥ 2 members (`batchHasPairs`); otherwise it falls back to 'raw'.
 */
export function setStats(
  values: ArrayLike<number>,
  singleton: SingletonMode,
  batchHasPairs: boolean,
): SetStats {
  const n = values.length;
  if (n === 0) throw new Error('setStats: empty normalization set');
  if (n === 1) {
    return singleton === 'zero' && batchHasPairs
      ? { mu: values[0], sigma: 0, zero: true }
      : { mu: 0, sigma: 1, zero: false };
  }
  if (allEqual(values)) return { mu: values[0], sigma: 0, zero: true };
  return { mu: mean(values), sigma: unbiasedStd(values), zero: false };
}

/**
 * One advantage from its set's statistics. eps is added to the std, not the variance (docs/estimators.md#group-statistics).
 * A denominator of exactly 0 (eps = 0 and a std that underflowed) is treated like a
 * zero-variance set rather than producing ±Infinity.
 */
export function normalize(s: number, st: SetStats, normalizeStd: boolean, eps: number): number {
  if (st.zero) return 0;
  const centred = s - st.mu;
  if (!normalizeStd) return centred;
  const denom = st.sigma + eps;
  return denom === 0 ? 0 : centred / denom;
}

/** Median of a non-empty ascending array. */
function medianOfSorted(s: readonly number[]): number {
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/** How many times the running median a gradient norm must exceed to count as a spike. */
export const SPIKE_FACTOR = 3;

/**
 * Gradient spikes: the steps whose value exceeds `factor` (default SPIKE_FACTOR, 3) × the median
 * of all earlier finite values. The first finite step has no history and is never a spike. Non-finite values
 * (skipped updates) are neither counted nor added to the history: the trainer records those
 * separately. Returns the spike steps' indices; `.length` is the count the CLI summary reports.
 */
export function gradSpikes(values: ArrayLike<number>, factor = SPIKE_FACTOR): number[] {
  const history: number[] = []; // ascending, so the running median is a lookup
  const spikes: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    if (history.length > 0 && v > factor * medianOfSorted(history)) spikes.push(i);
    let lo = 0;
    let hi = history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (history[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    history.splice(lo, 0, v);
  }
  return spikes;
}
