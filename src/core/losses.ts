/**
 * The loss registries: policy losses (with their clipping), KL estimators and aggregation modes
 * (docs/estimators.md#policy-loss; verl `core_algos.py`). Each entry is data holding every form of its concept:
 * the doc line (dropdowns, README), the float64 reference (`ref`, what the tests hold the device to)
 * and the device form (`device`, written once against `Ops` so this file needs no tfjs; training
 * passes tfjs ops). The config's name lists are these registries' keys, so adding a KL type or a
 * mode is one entry here. Lookups of unknown names throw with the valid list. Pure: no tfjs.
 *
 * Why core and not rl (rl holds the rest of the math, docs/architecture.md#layers): the config's enums need these names, and
 * core sits below rl. Splitting the names and docs (core) from the forms (rl) would write each
 * concept in two places again; an entry here is plain data and functions over numbers or over an
 * `Ops` the caller supplies, so core stays free of tfjs and of every layer above it.
 */

import { lookup, namesOf } from './registry';

/** The element-wise ops a device form may use; T a float tensor, B a boolean one (tfjs in training). */
export interface Ops<T, B> {
  add(a: T | number, b: T | number): T;
  sub(a: T | number, b: T | number): T;
  mul(a: T | number, b: T | number): T;
  neg(a: T): T;
  abs(a: T): T;
  square(a: T): T;
  exp(a: T): T;
  clip(a: T, lo: number, hi: number): T;
  max(a: T, b: T): T;
  min(a: T, b: T): T;
  lt(a: T, b: number): B;
  gt(a: T, b: T): B;
  and(a: B, b: B): B;
  where(c: B, a: T, b: T): T;
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(Math.max(x, lo), hi);

// ---- policy losses ------------------------------------------------------------------------------

/** ε_low, ε_high of the ratio clip and the dual-clip bound c > 1. */
interface Clip {
  low: number;
  high: number;
  c: number;
}

/** Per token: the loss L and whether the ratio clip / the dual clip binds. */
interface TokenLoss<T, B> {
  L: T;
  clipped: B;
  dualClipped: B;
}

interface PolicyLossSpec {
  /** The name people know it by (the loss menu, the experiment's Updates summary). */
  label: string;
  doc: string;
  /**
   * d = clamp(log π − log π_old, −20, 20), A the token's advantage, logp = log π itself (a loss
   * with no ratio, REINFORCE, reads it directly: its gradient must not pass through d's clamp).
   */
  ref: (d: number, A: number, clip: Clip, logp: number) => TokenLoss<number, boolean>;
  device: <T, B>(o: Ops<T, B>, d: T, A: T, clip: Clip, logp: T) => TokenLoss<T, B>;
}

export const POLICY_LOSSES = {
  vanilla: {
    label: 'PPO clipped',
    doc:
      'PPO clip with dual clip (verl compute_policy_loss_vanilla, docs/estimators.md#ppo-clip-with-dual-clip): r = eᵈ, ' +
      'Lc = max(−A·r, −A·clip(r, 1 − ε_low, 1 + ε_high)), L = A < 0 ? min(−A·c, Lc) : Lc.',
    ref: (d, A, clip) => {
      const r = Math.exp(clamp(d, -20, 20));
      const L1 = -A * r;
      const L2 = -A * clamp(r, 1 - clip.low, 1 + clip.high);
      const Lc = Math.max(L1, L2);
      if (A >= 0) return { L: Lc, clipped: L2 > L1, dualClipped: false };
      const L3 = -A * clip.c; // only formed for A < 0, so c = Infinity never meets A = 0
      return { L: Math.min(L3, Lc), clipped: L2 > L1, dualClipped: Lc > L3 };
    },
    device: (o, d, A, clip) => {
      const r = o.exp(d);
      const L1 = o.neg(o.mul(A, r));
      const L2 = o.neg(o.mul(A, o.clip(r, 1 - clip.low, 1 + clip.high)));
      const Lc = o.max(L1, L2);
      const L3 = o.neg(o.mul(A, clip.c));
      const negative = o.lt(A, 0);
      return {
        L: o.where(negative, o.min(L3, Lc), Lc),
        clipped: o.gt(L2, L1),
        dualClipped: o.and(negative, o.gt(Lc, L3)),
      };
    },
  },
  reinforce: {
    label: 'REINFORCE',
    doc:
      'REINFORCE on the response, as CoMLRL runs MAGRPO (docs/estimators.md#reinforce): L = −A·log π per token, no ' +
      'ratio and no clip, so its gradient is −A·∇log π whatever π_old was; summed over the response by ' +
      'seq-mean-token-sum aggregation it is −A·Σ log π per sequence. Clip fraction 0.',
    ref: (_d, A, _clip, logp) => ({ L: -A * logp, clipped: false, dualClipped: false }),
    device: (o, _d, A, _clip, logp) => {
      // Nothing is clipped: |A| < −1 is false on every token (a boolean tensor of A's shape).
      const never = o.lt(o.abs(A), -1);
      return { L: o.neg(o.mul(A, logp)), clipped: never, dualClipped: never };
    },
  },
} as const satisfies Record<string, PolicyLossSpec>;

export type PolicyLossName = keyof typeof POLICY_LOSSES;
export const POLICY_LOSS_NAMES = namesOf(POLICY_LOSSES);
export const getPolicyLoss = (name: string): PolicyLossSpec => lookup(POLICY_LOSSES, 'policy loss', name);

// ---- KL estimators ------------------------------------------------------------------------------

/** A KL estimator between the policy and the reference, per token (docs/estimators.md#kl-estimators; verl `kl_penalty`). */
interface KlSpec {
  doc: string;
  ref: (logp: number, refLogp: number) => number;
  device: <T, B>(o: Ops<T, B>, logp: T, refLogp: T) => T;
}

export const KL_ESTIMATORS = {
  k1: {
    doc: 'k1 = log π − log π_ref (verl "kl"/"k1"); unbiased, high variance, can be negative.',
    ref: (lp, ref) => lp - ref,
    device: (o, lp, ref) => o.sub(lp, ref),
  },
  abs: {
    doc: '|log π − log π_ref| (verl "abs").',
    ref: (lp, ref) => Math.abs(lp - ref),
    device: (o, lp, ref) => o.abs(o.sub(lp, ref)),
  },
  k2: {
    doc: '½ (log π − log π_ref)² (verl "mse"/"k2").',
    ref: (lp, ref) => 0.5 * (lp - ref) ** 2,
    device: (o, lp, ref) => o.mul(0.5, o.square(o.sub(lp, ref))),
  },
  k3: {
    doc:
      'k3 low-variance KL (verl "low_var_kl"/"k3", Schulman): d = clamp(log π_ref − log π, −20, 20), ' +
      'kl = clamp(eᵈ − d − 1, −10, 10). Non-negative; the clamps keep one bad token from exploding the loss.',
    ref: (lp, ref) => {
      const d = clamp(ref - lp, -20, 20);
      return clamp(Math.exp(d) - d - 1, -10, 10);
    },
    device: (o, lp, ref) => {
      const d = o.clip(o.sub(ref, lp), -20, 20);
      return o.clip(o.sub(o.sub(o.exp(d), d), 1), -10, 10);
    },
  },
} as const satisfies Record<string, KlSpec>;

export type KlType = keyof typeof KL_ESTIMATORS;
export const KL_TYPES = namesOf(KL_ESTIMATORS);
export const getKl = (name: string): KlSpec => lookup(KL_ESTIMATORS, 'KL type', name);

// ---- aggregation modes --------------------------------------------------------------------------

/** Per-token values with their 0/1 mask, both (B, T) row-major, and the sum-norm constant. */
export interface MaskedValues {
  values: ArrayLike<number>;
  mask: ArrayLike<number>;
  B: number;
  T: number;
  /** L_max of the sum-norm modes: the padded length T, or verl's `loss_scale_factor`. */
  lMax: number;
  /** Each sequence's agent, for the modes that balance agents (absent: one agent). */
  agents?: readonly string[];
}

/** What a mode's weight may depend on: token counts of the whole batch and of each row. */
interface MaskCounts {
  B: number;
  lMax: number;
  tokens: number;
  rowTokens: Float64Array;
  /** Each row's agent (absent: one agent). */
  rowAgents?: readonly string[];
  /** Per agent, its rows' tokens (its size is the number of agents): counted once per batch. */
  agentTokens: Map<string, number>;
}

/** Per agent, its rows' response tokens; rows with no agent given are one agent. */
function agentTokens(rowTokens: ArrayLike<number>, agents?: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < rowTokens.length; i++) {
    const a = agents?.[i] ?? '';
    out.set(a, (out.get(a) ?? 0) + rowTokens[i]);
  }
  return out;
}

interface AggregationSpec {
  /** Formula (L = per-token value, m = mask, B = sequences) and reference. */
  doc: string;
  /** The float64 reference: the scalar as the mode's definition writes it. */
  ref: (b: MaskedValues) => number;
  /**
   * The device form: every mode is linear, agg(L) = Σ_{i,t} w_i·m_{i,t}·L_{i,t}, with a weight per
   * row that depends only on the mask; training computes w on the CPU and the loss is one
   * weighted sum, so per-agent terms of one batch add up to it exactly.
   */
  rowWeight: (c: MaskCounts, row: number) => number;
}

/** Σ_t v·m and Σ_t m for each sequence, (B). Masked tokens are skipped, so padding may hold anything. */
function sequenceSums(b: MaskedValues): { sums: Float64Array; counts: Float64Array } {
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

/*
 * Empty denominators: a batch or sequence with no unmasked token contributes 0 instead of NaN,
 * written as ÷ max(Σm, 1) — identical for 0/1 masks with ≥ 1 token, and one tf.maximum in tfjs.
 * verl's masked_mean adds 1e-8 instead, a relative difference far below the 1e-6 parity test.
 */
export const AGGREGATIONS = {
  'token-mean': {
    doc: 'Σ_{i,t} L·m / Σ_{i,t} m — every token weighs the same (verl default, Dr. MAS, AT-GRPO).',
    ref: (b) => {
      const { sums, counts } = sequenceSums(b);
      return total(sums) / Math.max(total(counts), 1);
    },
    rowWeight: (c) => 1 / Math.max(c.tokens, 1),
  },
  'seq-mean-token-sum': {
    doc: "(1/B) Σ_i Σ_t L·m — mean over sequences of each sequence's token sum (verl).",
    ref: (b) => (b.B === 0 ? 0 : total(sequenceSums(b).sums) / b.B),
    rowWeight: (c) => 1 / c.B,
  },
  'seq-mean-token-mean': {
    doc:
      '(1/B) Σ_i (Σ_t L·m / Σ_t m) — original GRPO; long sequences get a smaller per-token weight ' +
      '(the length bias Dr. GRPO removes, arXiv 2503.20783).',
    ref: (b) => {
      if (b.B === 0) return 0;
      const { sums, counts } = sequenceSums(b);
      let acc = 0;
      for (let i = 0; i < b.B; i++) acc += sums[i] / Math.max(counts[i], 1);
      return acc / b.B;
    },
    rowWeight: (c, i) => 1 / (c.B * Math.max(c.rowTokens[i], 1)),
  },
  'seq-mean-token-sum-norm': {
    doc:
      "Σ_i Σ_t L·m / L_max — verl's Dr. GRPO mode. Despite the name it SUMS over sequences (verl #3741), " +
      'so it is B× the oat value; L_max = padded length or loss_scale_factor.',
    ref: (b) => total(sequenceSums(b).sums) / b.lMax,
    rowWeight: (c) => 1 / c.lMax,
  },
  'seq-mean-token-sum-norm-oat': {
    doc:
      '(1/B) Σ_i Σ_t L·m / L_max — Dr. GRPO as oat and understand-r1-zero compute it ' +
      '(masked_sum with constant_normalizer = generate_max_length, then mean over sequences).',
    ref: (b) => (b.B === 0 ? 0 : total(sequenceSums(b).sums) / (b.B * b.lMax)),
    rowWeight: (c) => 1 / (c.B * c.lMax),
  },
  'agent-token-mean': {
    doc:
      "(1/K) Σ_k Σ_{i∈k,t} L·m / Σ_{i∈k,t} m — each agent's token mean, averaged over the K agents of the batch: " +
      'loss balancing by 1/n_k, so an agent that is invoked more often weighs no more (the Dr. MAS reviewers’ ' +
      'loss-balance ablation). With one agent per model it is token-mean.',
    ref: (b) => {
      const { sums, counts } = sequenceSums(b);
      const tokens = agentTokens(counts, b.agents);
      let acc = 0;
      for (let i = 0; i < b.B; i++) acc += sums[i] / Math.max(tokens.get(b.agents?.[i] ?? '')!, 1);
      return tokens.size === 0 ? 0 : acc / tokens.size;
    },
    rowWeight: (c, i) => 1 / (c.agentTokens.size * Math.max(c.agentTokens.get(c.rowAgents?.[i] ?? '')!, 1)),
  },
} as const satisfies Record<string, AggregationSpec>;

export type LossAggMode = keyof typeof AGGREGATIONS;
export const LOSS_AGG_MODES = namesOf(AGGREGATIONS);
export const getAggregation = (mode: string): AggregationSpec =>
  lookup(AGGREGATIONS, 'loss aggregation mode', mode);

/**
 * Each row's weight w_i, from the response tokens of every row of the batch (B = rowTokens.length
 * sequences): a row's tokens weigh w_i each, so the aggregate is Σ_i w_i·Σ_t m·L however the rows
 * are then packed.
 */
export function rowAggregationWeights(
  mode: string,
  rowTokens: ArrayLike<number>,
  lMax: number,
  rowAgents?: readonly string[],
): Float64Array {
  const counts = Float64Array.from(rowTokens);
  const c: MaskCounts = {
    B: counts.length,
    lMax,
    tokens: counts.reduce((a, n) => a + n, 0),
    rowTokens: counts,
    rowAgents,
    agentTokens: agentTokens(counts, rowAgents),
  };
  const spec = getAggregation(mode);
  return counts.map((_, i) => spec.rowWeight(c, i));
}
