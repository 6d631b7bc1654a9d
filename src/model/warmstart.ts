/**
 * Supervised warm-start: next-token cross-entropy on given token sequences, averaged over the
 * positions the loss mask selects (e.g. demonstration responses). Used to make base models from
 * task demonstrations before RL. Shares packing with logprobs.ts and the update with update.ts.
 */
import * as tf from '@tensorflow/tfjs';
import type { GPT } from './gpt';
import { tokenLogprobs, type TokenBatch } from './logprobs';
import type { AdamW } from './optim';
import { update, type UpdateReport } from './update';

/** Mean −log p(target) over masked positions: (). Caller disposes. */
export function nextTokenLoss(model: GPT, batch: TokenBatch): tf.Scalar {
  return tf.tidy(() => {
    const { logp } = tokenLogprobs(model, batch); // (B, T), zero off the mask
    return tf.div(tf.neg(tf.sum(logp)), tf.maximum(tf.sum(batch.mask), 1)) as tf.Scalar;
  });
}

/** One supervised AdamW step; the report's loss is the pre-update mean cross-entropy. */
export function supervisedStep(model: GPT, opt: AdamW, batch: TokenBatch): Promise<UpdateReport> {
  return update(opt, [() => ({ loss: nextTokenLoss(model, batch) })]);
}
