import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { getKl, getPolicyLoss, KL_TYPES, LOSS_AGG_MODES as AGG_MODES } from '../../src/core/losses';
import { UPDATE_STATS } from '../../src/core/metrics';
import { ppoLoss, tensorOps } from '../../src/train/ppo-loss';
import { aggregationWeights, policyLoss } from '../rl/reference-loss';

/** A seeded batch whose ratios straddle both clip ranges and the dual-clip bound. */
function batch(seed: number) {
  let s = seed;
  const rand = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const B = 6;
  const T = 9;
  const lengths = [9, 4, 1, 7, 0, 5];
  const mask = new Float32Array(B * T);
  lengths.forEach((n, i) => mask.fill(1, i * T, i * T + n));
  const per = () => Float32Array.from({ length: B * T }, (_, j) => (mask[j] ? -3 * rand() - 0.05 : 0));
  const oldLogp = per();
  // log-ratio in [−1.5, 1.5]: r from 0.22 to 4.5, past 1 ± 0.2 and past c = 3.
  const logp = Float32Array.from(oldLogp, (v, j) => (mask[j] ? v + (rand() - 0.5) * 3 : 0));
  const refLogp = Float32Array.from(oldLogp, (v, j) => (mask[j] ? v + (rand() - 0.5) : 0));
  const entropy = Float32Array.from({ length: B * T }, (_, j) => (mask[j] ? 2 * rand() : 0));
  const advantages = Float32Array.from([1.3, -0.7, 0, -2.1, 0.4, 0.9]);
  return { B, T, mask, oldLogp, logp, refLogp, entropy, advantages };
}

describe('tfjs PPO loss vs the pure reference (cpu backend)', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  const cases = AGG_MODES.flatMap((aggMode) => KL_TYPES.map((klType) => ({ aggMode, klType })));
  it.each(cases)('$aggMode, $klType: loss and diagnostics agree within 1e-6', async ({ aggMode, klType }) => {
    const x = batch(7);
    const opts = {
      policyLoss: 'vanilla' as const,
      clipLow: 0.2,
      clipHigh: 0.28,
      dualClip: 3,
      klType,
      klCoef: 0.05,
      entropyCoef: 0.01,
    };
    const ref = policyLoss(
      {
        logp: x.logp,
        oldLogp: x.oldLogp,
        refLogp: x.refLogp,
        entropy: x.entropy,
        mask: x.mask,
        advantages: x.advantages,
      },
      { ...opts, clipC: opts.dualClip, aggMode, lMax: x.T },
    );
    const w = aggregationWeights(aggMode, { mask: x.mask, B: x.B, T: x.T, lMax: x.T });
    const adv = Float32Array.from(
      { length: x.B * x.T },
      (_, j) => x.advantages[Math.floor(j / x.T)] * x.mask[j],
    );
    const t = (a: ArrayLike<number>) => tf.tensor2d(Float32Array.from(a), [x.B, x.T]);
    const inputs = {
      logp: t(x.logp),
      oldLogp: t(x.oldLogp),
      refLogp: t(x.refLogp),
      entropy: t(x.entropy),
      adv: t(adv),
      mask: t(x.mask),
      weights: t(w),
    };
    const { loss, stats, tokens: count } = ppoLoss(inputs, opts);
    // The registries' device forms on their own: the KL estimator's weighted sum, dual-clipped tokens.
    const parts = tf.tidy(() => {
      const d = tf.clipByValue(tf.sub(inputs.logp, inputs.oldLogp), -20, 20);
      const token = getPolicyLoss('vanilla').device(
        tensorOps,
        d,
        inputs.adv,
        { low: 0.2, high: 0.28, c: 3 },
        inputs.logp,
      );
      const kl = getKl(klType).device(tensorOps, inputs.logp, inputs.refLogp);
      return tf.stack([
        tf.sum(tf.mul(tf.mul(kl, inputs.mask), inputs.weights)),
        tf.sum(tf.mul(tf.cast(token.dualClipped, 'float32'), inputs.mask)),
      ]);
    });
    const [lossValue] = await loss.data();
    const statValues = await stats.data();
    const s = Object.fromEntries(UPDATE_STATS.map((k, i) => [k, statValues[i]]));
    const [tokens] = await count.data();
    const [kl, dualClipped] = await parts.data();
    tf.dispose([loss, stats, count, parts, ...Object.values(inputs)]);

    expect(Math.abs(lossValue - ref.loss)).toBeLessThan(1e-6);
    expect(Math.abs(s.pg_loss - ref.pgLoss)).toBeLessThan(1e-6);
    expect(Math.abs(s.entropy - ref.entropy)).toBeLessThan(1e-6);
    expect(Math.abs(kl - ref.kl)).toBeLessThan(1e-6);
    expect(s.clipfrac / tokens).toBeCloseTo(ref.pgClipfrac, 12);
    expect(dualClipped / tokens).toBeCloseTo(ref.pgClipfracLower, 12);
    expect(Math.abs(s.kl / tokens - ref.ppoKl)).toBeLessThan(1e-6);
    // The batch exercises every branch.
    expect(ref.pgClipfrac).toBeGreaterThan(0.1);
    expect(ref.pgClipfracLower).toBeGreaterThan(0);
  });
});
