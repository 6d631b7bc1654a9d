/**
 * The float64 reference policy loss, a test oracle (training runs src/train/ppo-loss.ts): the
 * `ref` forms of src/core/losses.ts's registries put together as verl does (docs/estimators.md#policy-loss;
 * `compute_policy_loss_vanilla`, `kl_penalty`, `agg_loss`). The tfjs loss must match it within
 * 1e-6, so it takes exactly the tensors a tfjs version gets.
 */
import {
  getAggregation,
  getKl,
  getPolicyLoss,
  rowAggregationWeights,
  type KlType,
  type LossAggMode,
  type MaskedValues,
  type PolicyLossName,
} from '../../src/core/losses';

const clamp = (x: number, lo: number, hi: number): number => Math.min(Math.max(x, lo), hi);

/** Everything per token is (B, T) row-major; `advantages` is (B), broadcast over each row's tokens. */
export interface PolicyLossInput {
  /** log π_θ(o_t) under the current parameters, (B, T). */
  logp: ArrayLike<number>;
  /** log π_old(o_t) recorded at rollout, (B, T). */
  oldLogp: ArrayLike<number>;
  /** log π_ref(o_t), (B, T); required when klCoef ≠ 0. */
  refLogp?: ArrayLike<number>;
  /** Per-token entropy of π_θ, (B, T); required when entropyCoef ≠ 0. */
  entropy?: ArrayLike<number>;
  /** 1 for response tokens, 0 for padding, (B, T). */
  mask: ArrayLike<number>;
  /** One advantage per sequence, (B). */
  advantages: ArrayLike<number>;
}

export interface PolicyLossOptions {
  /** ε_low: ratio floor 1 − ε_low (default 0.2). */
  clipLow?: number;
  /** ε_high: ratio ceiling 1 + ε_high (default 0.2; DAPO raises it). */
  clipHigh?: number;
  /** Dual-clip c > 1 (default 3): for A < 0 the loss is capped at −A·c. Infinity disables it. */
  clipC?: number;
  policyLoss?: PolicyLossName;
  aggMode?: LossAggMode;
  /** L_max for the sum-norm modes (default: T, the padded length). */
  lMax?: number;
  klType?: KlType;
  klCoef?: number;
  entropyCoef?: number;
}

export interface PolicyLossResult {
  /** pgLoss − entropyCoef·entropy + klCoef·kl. */
  loss: number;
  /** agg(L) of the clipped PPO loss. */
  pgLoss: number;
  /** agg(entropy); NaN when no entropy was given. */
  entropy: number;
  /** agg(kl); NaN when no refLogp was given. */
  kl: number;
  /** Token mean of 1[L2 > L1]: tokens where the ordinary clip binds. */
  pgClipfrac: number;
  /** Token mean of 1[A < 0 and Lc > L3]: tokens where the dual clip binds. */
  pgClipfracLower: number;
  /** Token mean of −d = log π_old − log π (verl `ppo_kl`). */
  ppoKl: number;
  /** Per-token PPO loss L, (B, T); 0 on masked tokens. */
  tokenPgLoss: Float64Array;
}

function checkShapes(x: PolicyLossInput): { B: number; T: number } {
  const B = x.advantages.length;
  const n = x.mask.length;
  if (B === 0 ? n !== 0 : n % B !== 0)
    throw new Error(`policyLoss: mask has ${n} entries, not a multiple of B = ${B}.`);
  const T = B === 0 ? 0 : n / B;
  const perToken = { logp: x.logp, oldLogp: x.oldLogp, refLogp: x.refLogp, entropy: x.entropy };
  for (const [name, arr] of Object.entries(perToken)) {
    if (arr !== undefined && arr.length !== n)
      throw new Error(`policyLoss: ${name} has ${arr.length} entries, expected B·T = ${n}.`);
  }
  return { B, T };
}

/** The full reference loss and its diagnostics for one batch of B sequences × T tokens. */
export function policyLoss(x: PolicyLossInput, options: PolicyLossOptions = {}): PolicyLossResult {
  const {
    clipLow = 0.2,
    clipHigh = 0.2,
    clipC = 3,
    aggMode = 'token-mean',
    policyLoss: lossName = 'vanilla',
    klType = 'k3',
    klCoef = 0,
    entropyCoef = 0,
  } = options;
  if (!(clipLow >= 0 && clipLow < 1) || !(clipHigh >= 0))
    throw new Error(`policyLoss: need 0 ≤ clipLow < 1 and clipHigh ≥ 0, got ${clipLow}, ${clipHigh}.`);
  if (!(clipC > 1)) throw new Error(`policyLoss: dual-clip c must be > 1, got ${clipC}.`);
  // Unknown names throw with the valid list.
  const aggregation = getAggregation(aggMode);
  const klFn = getKl(klType).ref;
  const tokenLoss = getPolicyLoss(lossName).ref;
  if (klCoef !== 0 && !x.refLogp) throw new Error('policyLoss: klCoef ≠ 0 needs refLogp.');
  if (entropyCoef !== 0 && !x.entropy) throw new Error('policyLoss: entropyCoef ≠ 0 needs entropy.');
  const { B, T } = checkShapes(x);
  const lMax = options.lMax ?? T;
  if (!(lMax > 0) && B > 0) throw new Error(`policyLoss: lMax must be > 0, got ${lMax}.`);

  // Per-token PPO loss and the token-mean diagnostics (verl's masked_mean, whatever aggMode is).
  const tokenPgLoss = new Float64Array(B * T); // (B, T)
  let tokens = 0;
  let clipped = 0;
  let dualClipped = 0;
  let negD = 0;
  for (let i = 0; i < B; i++) {
    const A = x.advantages[i];
    for (let t = 0; t < T; t++) {
      const j = i * T + t;
      const m = x.mask[j];
      if (m === 0) continue; // padding may hold garbage log-probs; it must not reach the sums
      const d = clamp(x.logp[j] - x.oldLogp[j], -20, 20);
      const {
        L,
        clipped: c1,
        dualClipped: c2,
      } = tokenLoss(d, A, { low: clipLow, high: clipHigh, c: clipC }, x.logp[j]);
      tokenPgLoss[j] = L;
      tokens += m;
      if (c1) clipped += m;
      if (c2) dualClipped += m;
      negD += -d * m;
    }
  }
  const perTokenMean = (s: number): number => s / Math.max(tokens, 1);

  // Aggregate the loss, entropy and KL with the same mode (verl agg_loss).
  const agg = (values: ArrayLike<number>): number => aggregation.ref({ values, mask: x.mask, B, T, lMax });
  const pgLoss = agg(tokenPgLoss);
  const entropy = x.entropy ? agg(x.entropy) : NaN;
  let kl = NaN;
  if (x.refLogp) {
    const ref = x.refLogp;
    kl = agg(Float64Array.from({ length: B * T }, (_, j) => (x.mask[j] === 0 ? 0 : klFn(x.logp[j], ref[j]))));
  }
  const loss = pgLoss - (entropyCoef !== 0 ? entropyCoef * entropy : 0) + (klCoef !== 0 ? klCoef * kl : 0);

  return {
    loss,
    pgLoss,
    entropy,
    kl,
    pgClipfrac: perTokenMean(clipped),
    pgClipfracLower: perTokenMean(dualClipped),
    ppoKl: perTokenMean(negD),
    tokenPgLoss,
  };
}

/** Aggregates with the named mode (the float64 reference). */
export const aggregate = (mode: string, b: MaskedValues): number => getAggregation(mode).ref(b);

/** w (B·T) with Σ w·values = aggregate(mode, {values, mask, B, T, lMax}) for every `values`. */
export function aggregationWeights(mode: string, b: Omit<MaskedValues, 'values'>): Float64Array {
  const { mask, B, T, lMax } = b;
  const rowTokens = new Float64Array(B);
  for (let j = 0; j < B * T; j++) rowTokens[Math.floor(j / T)] += mask[j];
  const c = rowAggregationWeights(mode, rowTokens, lMax, b.agents);
  return Float64Array.from({ length: B * T }, (_, j) => mask[j] * c[Math.floor(j / T)]);
}
