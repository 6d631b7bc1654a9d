/**
 * Evaluation metrics over k samples per question (docs/estimators.md#evaluation-metrics): avg@k and pass@k as the
 * Dr. MAS code computes them (empirical), and optionally the unbiased pass@k estimator of
 * Chen et al. 2021 (arXiv 2107.03374). Pure: no tfjs, no DOM, no Node APIs.
 */

export interface EvalAtK {
  /** Samples per question. */
  k: number;
  /** avg@k: mean over questions of (successes / k). */
  avg: number;
  /** pass@k: mean over questions of 1[any of the k samples succeeded] (empirical, Dr. MAS). */
  pass: number;
  /** Unbiased pass@`unbiasedK` from the n = k samples, when asked for. */
  passUnbiased?: number;
}

/**
 * Unbiased pass@k from n samples of which c succeeded: 1 − C(n−c, k)/C(n, k), computed as
 * 1 − Π_{i=n−c+1..n} (1 − k/i) so no binomial coefficient is ever formed (they overflow near
 * n = 1030). If fewer than k samples failed, every draw of k contains a success: 1.
 */
export function passAtKUnbiased(n: number, c: number, k: number): number {
  if (![n, c, k].every(Number.isInteger) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new Error(`passAtKUnbiased: need integers 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n}, c=${c}, k=${k}.`);
  }
  if (n - c < k) return 1;
  let allFail = 1; // C(n−c, k)/C(n, k): probability that k draws without replacement all fail
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * avg@k and pass@k over questions, each with the same number k of sampled outcomes
 * (true = success). `unbiasedK` (≤ k) adds Chen et al.'s estimator, averaged over questions.
 */
export function evalAtK(
  outcomes: readonly (readonly boolean[])[],
  options: { unbiasedK?: number } = {},
): EvalAtK {
  const Q = outcomes.length;
  const k = Q === 0 ? 0 : outcomes[0].length;
  if (Q > 0 && k === 0) throw new Error('evalAtK: a question has no samples.');
  const uneven = outcomes.findIndex((o) => o.length !== k);
  if (uneven >= 0)
    throw new Error(
      `evalAtK: question ${uneven} has ${outcomes[uneven].length} samples, question 0 has ${k}.`,
    );

  let avg = 0;
  let pass = 0;
  let unbiased = 0;
  for (const o of outcomes) {
    const c = o.filter(Boolean).length;
    avg += c / k;
    pass += c > 0 ? 1 : 0;
    if (options.unbiasedK !== undefined) unbiased += passAtKUnbiased(k, c, options.unbiasedK);
  }
  const result: EvalAtK = { k, avg: avg / Q, pass: pass / Q }; // Q = 0 gives NaN: no questions, no score
  if (options.unbiasedK !== undefined) result.passUnbiased = unbiased / Q;
  return result;
}
