/**
 * Loss aggregation modes: how per-token values (B sequences × T tokens, 0/1 mask) become one
 * scalar (algorithms.md §5.2; verl `agg_loss`, oat Dr. GRPO). One registry keyed by name. The same
 * modes aggregate the PPO loss, the entropy and the KL. Pure: no tfjs, no DOM, no Node APIs.
 */
import type { LossAggMode } from '../core/config';

/** Per-token values with their mask, both (B, T) row-major, and the sum-norm constant. */
export interface MaskedValues {
  values: ArrayLike<number>;
  mask: ArrayLike<number>;
  B: number;
  T: number;
  /** L_max of the sum-norm modes: the padded length T, or verl's `loss_scale_factor`. */
  lMax: number;
}

/** Σ_t v·m and Σ_t m for each sequence, (B). Masked tokens are skipped, so padding may hold anything. */
export function sequenceSums(b: MaskedValues): { sums: Float64Array; counts: Float64Array } {
  const sums = new Float64Array(b.B);
  const counts = new Float64Array(b.B);
  for (let i = 0; i < b.B; i++) {
    for (let t = 0; t < b.T; t++) {
      const m = b.mask[i * b.T + t];
      if (m === 0) continue;
      sums[i] += b.values[i * b.T + t] * m;
      counts[i] += m;
    }
  }
  return { sums, counts };
}

const total = (xs: Float64Array): number => xs.reduce((a, x) => a + x, 0);

export interface AggregationSpec {
  /** Formula (L = per-token value, m = mask, B = sequences) and reference. */
  doc: string;
  reduce: (b: MaskedValues) => number;
}

/*
 * Empty denominators: a batch or sequence with no unmasked token contributes 0 instead of NaN,
 * written as ÷ max(Σm, 1) — identical for 0/1 masks with ≥ 1 token, and one tf.maximum in tfjs.
 * verl's masked_mean adds 1e-8 instead, a relative difference far below the 1e-6 parity test.
 */
export const AGGREGATIONS = {
  'token-mean': {
    doc: 'Σ_{i,t} L·m / Σ_{i,t} m — every token weighs the same (verl default, Dr. MAS, AT-GRPO).',
    reduce: (b) => {
      const { sums, counts } = sequenceSums(b);
      return total(sums) / Math.max(total(counts), 1);
    },
  },
  'seq-mean-token-sum': {
    doc: "(1/B) Σ_i Σ_t L·m — mean over sequences of each sequence's token sum (verl).",
    reduce: (b) => (b.B === 0 ? 0 : total(sequenceSums(b).sums) / b.B),
  },
  'seq-mean-token-mean': {
    doc:
      '(1/B) Σ_i (Σ_t L·m / Σ_t m) — original GRPO; long sequences get a smaller per-token weight ' +
      '(the length bias Dr. GRPO removes, arXiv 2503.20783).',
    reduce: (b) => {
      if (b.B === 0) return 0;
      const { sums, counts } = sequenceSums(b);
      let acc = 0;
      for (let i = 0; i < b.B; i++) acc += sums[i] / Math.max(counts[i], 1);
      return acc / b.B;
    },
  },
  'seq-mean-token-sum-norm': {
    doc:
      "Σ_i Σ_t L·m / L_max — verl's Dr. GRPO mode. Despite the name it SUMS over sequences (verl #3741), " +
      'so it is B× the oat value; L_max = padded length or loss_scale_factor.',
    reduce: (b) => total(sequenceSums(b).sums) / b.lMax,
  },
  'seq-mean-token-sum-norm-oat': {
    doc:
      '(1/B) Σ_i Σ_t L·m / L_max — Dr. GRPO as oat and understand-r1-zero compute it ' +
      '(masked_sum with constant_normalizer = generate_max_length, then mean over sequences).',
    reduce: (b) => (b.B === 0 ? 0 : total(sequenceSums(b).sums) / (b.B * b.lMax)),
  },
} as const satisfies Record<LossAggMode, AggregationSpec>; // every mode the config accepts

export type AggMode = keyof typeof AGGREGATIONS;
export const AGG_MODES = Object.keys(AGGREGATIONS) as AggMode[];

/** Looks a mode up by name; unknown names throw with the valid list. */
export function getAggregation(mode: string): AggregationSpec {
  if (!Object.hasOwn(AGGREGATIONS, mode)) {
    throw new Error(`Unknown loss aggregation mode '${mode}'. Valid: ${AGG_MODES.join(', ')}.`);
  }
  return AGGREGATIONS[mode as AggMode];
}

/** Aggregates with the named mode. */
export const aggregate = (mode: string, b: MaskedValues): number => getAggregation(mode).reduce(b);
