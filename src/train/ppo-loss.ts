/**
 * The policy loss of one term on the device: the device forms of core/losses.ts's registries run
 * on tfjs ops (a test holds the result to the float64 references within 1e-6 on the cpu backend).
 * Aggregation is a weighted sum with the registry's weights, so one batch splits exactly into
 * per-agent terms:  loss = Σ w·L − β_H·Σ w·H + β_KL·Σ w·KL. The per-agent diagnostics of
 * core/metrics.ts's UPDATE_DIAGNOSTICS come back with it, one sum each.
 */
import * as tf from '@tensorflow/tfjs';
import type { Optim } from '../core/config-sections';
import { getKl, getPolicyLoss, type Ops } from '../core/losses';
import { UPDATE_DIAGNOSTICS, UPDATE_STATS, type TokenTerms } from '../core/metrics';

/** All (B, T) and zero outside response tokens, or (1, R) of the response tokens alone. `weights` are also zero outside this term's rows. */
interface PpoInputs {
  logp: tf.Tensor2D;
  entropy: tf.Tensor2D;
  oldLogp: tf.Tensor2D;
  refLogp?: tf.Tensor2D;
  /** The row's advantage on each of its response tokens. */
  adv: tf.Tensor2D;
  /** Response tokens of this term's rows (0/1). */
  mask: tf.Tensor2D;
  weights: tf.Tensor2D;
}

type PpoOptions = Pick<
  Optim,
  'policyLoss' | 'clipLow' | 'clipHigh' | 'dualClip' | 'klType' | 'klCoef' | 'entropyCoef'
>;

/** core/losses.ts's Ops on tfjs tensors. */
export const tensorOps: Ops<tf.Tensor, tf.Tensor> = {
  add: (a, b) => tf.add(a, b),
  sub: (a, b) => tf.sub(a, b),
  mul: (a, b) => tf.mul(a, b),
  neg: (a) => tf.neg(a),
  abs: (a) => tf.abs(a),
  square: (a) => tf.square(a),
  exp: (a) => tf.exp(a),
  clip: (a, lo, hi) => tf.clipByValue(a, lo, hi),
  max: (a, b) => tf.maximum(a, b),
  min: (a, b) => tf.minimum(a, b),
  lt: (a, b) => tf.less(a, b),
  gt: (a, b) => tf.greater(a, b),
  and: (a, b) => tf.logicalAnd(a, b),
  where: (c, a, b) => tf.where(c, a, b),
};

/**
 * The scalar loss (differentiable in `logp` and `entropy`), in UPDATE_STATS order each
 * diagnostic's sum (Σ w·x for 'weights', Σ m·x otherwise), and Σ m, the term's tokens.
 */
export function ppoLoss(
  x: PpoInputs,
  o: PpoOptions,
): { loss: tf.Scalar; stats: tf.Tensor1D; tokens: tf.Scalar } {
  return tf.tidy(() => {
    const { mask, weights } = x;
    const d = tf.clipByValue(tf.sub(x.logp, x.oldLogp), -20, 20); // (B, T)
    const clip = { low: o.clipLow, high: o.clipHigh, c: o.dualClip };
    const token = getPolicyLoss(o.policyLoss).device(tensorOps, d, x.adv, clip, x.logp);
    const L = tf.mul(token.L, mask);

    const wsum = (t: tf.Tensor) => tf.sum(tf.mul(weights, t));
    let loss = wsum(L);
    if (o.entropyCoef !== 0) loss = tf.sub(loss, tf.mul(o.entropyCoef, wsum(x.entropy)));
    if (o.klCoef !== 0) {
      if (!x.refLogp) throw new Error('ppoLoss: klCoef ≠ 0 needs refLogp');
      loss = tf.add(
        loss,
        tf.mul(o.klCoef, wsum(tf.mul(getKl(o.klType).device(tensorOps, x.logp, x.refLogp), mask))),
      );
    }

    const terms: TokenTerms<tf.Tensor> = {
      pgLoss: L,
      entropy: x.entropy,
      clipped: tf.cast(token.clipped, 'float32'),
      dualClipped: tf.cast(token.dualClipped, 'float32'),
      negD: tf.neg(d),
      mask,
    };
    const sums = UPDATE_STATS.map((k) => {
      const v = UPDATE_DIAGNOSTICS[k].of(terms);
      return UPDATE_DIAGNOSTICS[k].over === 'weights' ? wsum(v) : tf.sum(tf.mul(v, mask));
    });
    return { loss: loss as tf.Scalar, stats: tf.stack(sums) as tf.Tensor1D, tokens: tf.sum(mask) };
  });
}
