// optim.policyLoss=reinforce (docs/estimators.md#reinforce): L = −A·log π, no ratio, no clip. Its gradient
// is −A·∇Σ log π over the response: checked by central finite differences on the float64 reference and
// against the closed form on the device, on a batch whose ratios lie far outside every clip range.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { UPDATE_STATS } from '../../src/core/metrics';
import { ppoLoss } from '../../src/train/ppo-loss';
import { aggregationWeights, policyLoss } from '../rl/reference-loss';

/** B = 3 sequences of T = 4; row 1 ends after 2 tokens. log π − log π_old spans ±1.5: ratios 0.22–4.5. */
const B = 3;
const T = 4;
const mask = [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0];
const oldLogp = [-1.2, -0.4, -2.0, -0.9, -0.3, -1.7, 0, 0, -2.5, -0.6, -1.1, 0];
const shift = [1.5, -1.5, 0.9, -0.2, 1.2, -0.8, 0, 0, -1.4, 0.3, 1.0, 0];
const logp = oldLogp.map((o, j) => o + shift[j]);
const advantages = [0.75, -1.25, 0.5];
/** seq-mean-token-sum: (1/B) Σ_i Σ_t L, the per-sequence sum CoMLRL's REINFORCE takes. */
const aggMode = 'seq-mean-token-sum' as const;

const reference = (lp: readonly number[], loss: 'reinforce' | 'vanilla' = 'reinforce') =>
  policyLoss({ logp: lp, oldLogp, mask, advantages }, { policyLoss: loss, aggMode, lMax: T });

describe('policy loss reinforce', () => {
  it('is −(1/B) Σ_i A_i Σ_t log π, with clip fraction 0 where PPO would clip', () => {
    const r = reference(logp);
    let want = 0;
    for (let j = 0; j < B * T; j++) want += mask[j] ? -advantages[Math.floor(j / T)] * logp[j] : 0;
    expect(r.pgLoss).toBeCloseTo(want / B, 12);
    expect(r.pgClipfrac).toBe(0);
    expect(r.pgClipfracLower).toBe(0);
    expect(reference(logp, 'vanilla').pgClipfrac).toBeGreaterThan(0.5); // the same batch clips under PPO
  });

  it('has gradient −A·∇Σ log π: central finite differences on the float64 reference', () => {
    const h = 1e-6;
    for (let j = 0; j < B * T; j++) {
      const up = [...logp];
      const down = [...logp];
      up[j] += h;
      down[j] -= h;
      const fd = (reference(up).pgLoss - reference(down).pgLoss) / (2 * h);
      const want = mask[j] ? -advantages[Math.floor(j / T)] / B : 0;
      expect(Math.abs(fd - want)).toBeLessThan(1e-8);
      // PPO's gradient on the same token is not that: the ratio (and its clip) is in it.
      if (mask[j] && Math.abs(shift[j]) > 0.5) {
        const ppo = (reference(up, 'vanilla').pgLoss - reference(down, 'vanilla').pgLoss) / (2 * h);
        expect(Math.abs(ppo - want)).toBeGreaterThan(1e-3);
      }
    }
  });

  describe('on the device (cpu backend)', () => {
    beforeAll(async () => {
      await tf.setBackend('cpu');
    });

    it('autodiff through ppoLoss gives −A·w per token, and every clip count is 0', async () => {
      const w = aggregationWeights(aggMode, { mask, B, T, lMax: T });
      const t = (a: ArrayLike<number>) => tf.tensor2d(Float32Array.from(a), [B, T]);
      const adv = t(mask.map((m, j) => m * advantages[Math.floor(j / T)]));
      const inputs = {
        oldLogp: t(oldLogp),
        entropy: t(mask.map(() => 0)),
        adv,
        mask: t(mask),
        weights: t(w),
      };
      const opts = {
        policyLoss: 'reinforce' as const,
        clipLow: 0.2,
        clipHigh: 0.2,
        dualClip: 3,
        klType: 'k3' as const,
        klCoef: 0,
        entropyCoef: 0,
      };
      const lp = t(logp);
      const grad = tf.grad((x: tf.Tensor) => ppoLoss({ ...inputs, logp: x as tf.Tensor2D }, opts).loss)(lp);
      const { loss, stats, tokens } = ppoLoss({ ...inputs, logp: lp }, opts);
      const g = await grad.data();
      const [value] = await loss.data();
      const s = await stats.data();
      tf.dispose([grad, loss, stats, tokens, lp, ...Object.values(inputs)]);
      for (let j = 0; j < B * T; j++)
        expect(g[j]).toBeCloseTo(mask[j] ? -advantages[Math.floor(j / T)] * w[j] : 0, 6);
      expect(value).toBeCloseTo(reference(logp).pgLoss, 5);
      expect(s[UPDATE_STATS.indexOf('clipfrac')]).toBe(0);
    });
  });
});
