/**
 * The PPO-style policy loss on the device, the tfjs twin of src/rl/loss.ts (which a test holds it
 * to within 1e-6 on the cpu backend). Aggregation is a weighted sum with weights from
 * src/rl/agg-weights.ts, so one batch splits exactly into per-agent terms. Per token:
 *   d = clamp(log π − log π_old, −20, 20), r = eᵈ
 *   Lc = max(−A·r, −A·clip(r, 1 − ε_low, 1 + ε_high)),  L = A < 0 ? min(−A·c, Lc) : Lc
 *   loss = Σ w·L − β_H·Σ w·H + β_KL·Σ w·KL
 */
import * as tf from '@tensorflow/tfjs';
import type { KlType } from '../core/config';

/** All (B, T); zero outside response tokens. `weights` are also zero outside this term's rows. */
export interface PpoInputs {
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

export interface PpoOptions {
  clipLow: number;
  clipHigh: number;
  clipC: number;
  klType: KlType;
  klCoef: number;
  entropyCoef: number;
}

/** Order of the diagnostics vector returned with the loss. */
export const PPO_STATS = ['pg_loss', 'entropy', 'kl', 'clipped', 'dual_clipped', 'neg_d', 'tokens'] as const;

function klPerToken(type: KlType, logp: tf.Tensor, ref: tf.Tensor): tf.Tensor {
  switch (type) {
    case 'k1':
      return tf.sub(logp, ref);
    case 'abs':
      return tf.abs(tf.sub(logp, ref));
    case 'k2':
      return tf.mul(0.5, tf.square(tf.sub(logp, ref)));
    case 'k3': {
      const d = tf.clipByValue(tf.sub(ref, logp), -20, 20);
      return tf.clipByValue(tf.sub(tf.sub(tf.exp(d), d), 1), -10, 10);
    }
  }
}

/**
 * The scalar loss (differentiable in `logp` and `entropy`) and the 7 diagnostics of PPO_STATS:
 * weighted pg/entropy/kl, and token counts of clipping, dual clipping, Σ(−d) and tokens over `mask`.
 */
export function ppoLoss(x: PpoInputs, o: PpoOptions): { loss: tf.Scalar; stats: tf.Tensor1D } {
  return tf.tidy(() => {
    const { mask, weights, adv } = x;
    const d = tf.clipByValue(tf.sub(x.logp, x.oldLogp), -20, 20); // (B, T)
    const r = tf.exp(d);
    const L1 = tf.neg(tf.mul(adv, r));
    const L2 = tf.neg(tf.mul(adv, tf.clipByValue(r, 1 - o.clipLow, 1 + o.clipHigh)));
    const Lc = tf.maximum(L1, L2);
    const L3 = tf.neg(tf.mul(adv, o.clipC));
    const negative = tf.less(adv, 0);
    const L = tf.mul(tf.where(negative, tf.minimum(L3, Lc), Lc), mask); // (B, T)

    const wsum = (t: tf.Tensor) => tf.sum(tf.mul(weights, t));
    const pg = wsum(L);
    const ent = wsum(x.entropy);
    const kl = x.refLogp ? wsum(tf.mul(klPerToken(o.klType, x.logp, x.refLogp), mask)) : tf.scalar(0);
    let loss = pg;
    if (o.entropyCoef !== 0) loss = tf.sub(loss, tf.mul(o.entropyCoef, ent));
    if (o.klCoef !== 0) {
      if (!x.refLogp) throw new Error('ppoLoss: klCoef ≠ 0 needs refLogp');
      loss = tf.add(loss, tf.mul(o.klCoef, kl));
    }

    const count = (c: tf.Tensor) => tf.sum(tf.mul(tf.cast(c, 'float32'), mask));
    const stats = tf.stack([
      pg,
      ent,
      kl,
      count(tf.greater(L2, L1)),
      count(tf.logicalAnd(negative, tf.greater(Lc, L3))),
      tf.sum(tf.mul(tf.neg(d), mask)),
      tf.sum(mask),
    ]) as tf.Tensor1D;
    return { loss: loss as tf.Scalar, stats };
  });
}
