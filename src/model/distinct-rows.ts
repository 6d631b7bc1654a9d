/**
 * The rows of one loss term as the log-prob passes take them. Rows with the same prompt and
 * response (in the default experiment most of a batch: a group's rollouts often make the same call
 * and get the same short answer) have the same log-probs, so each distinct row goes through the
 * model once, packed with rows of similar length (lengthGroups) so that little of the work is
 * padding, and its values are copied to every row that has it; the copy's gradient sums theirs.
 */
import * as tf from '@tensorflow/tfjs';
import type { GPT } from './gpt';
import { takeRows } from './layers';
import {
  disposeBatch,
  lengthGroups,
  packRows,
  responseLogprobs,
  toResponseTensors,
  type PackOptions,
  type ResponseBatch,
} from './logprobs';

/** One row's tokens, as the rollout recorded them. */
interface RowTokens {
  promptIds: readonly number[];
  responseIds: readonly number[];
}

/** The distinct rows of a term packed in length groups, and where each row's tokens come from. */
interface DistinctRows {
  batches: ResponseBatch[];
  /** (N): for each response token of the rows, row after row, its place in the groups' log-probs. */
  copy: tf.Tensor1D;
}

export function packDistinct(rows: readonly RowTokens[], opts: PackOptions): DistinctRows {
  // The distinct rows, and which one each row is.
  const distinctOf = new Map<string, number>();
  const distinct: RowTokens[] = [];
  const which = rows.map((r) => {
    const key = `${r.promptIds.join(',')}|${r.responseIds.join(',')}`;
    if (!distinctOf.has(key)) distinctOf.set(key, distinct.push(r) - 1);
    return distinctOf.get(key)!;
  });
  const groups = lengthGroups(
    distinct.map((r) => r.promptIds.length + r.responseIds.length),
    opts,
  );
  // Where each distinct row's response tokens sit in the groups' log-probs, concatenated.
  const offset = new Int32Array(distinct.length);
  let R = 0;
  for (const u of groups.flat()) {
    offset[u] = R;
    R += distinct[u].responseIds.length;
  }
  const copy = Int32Array.from(rows.flatMap((r, k) => r.responseIds.map((_, i) => offset[which[k]] + i)));
  const batches = groups.map((g) =>
    toResponseTensors(
      packRows(
        g.map((u) => ({ prompt: distinct[u].promptIds, response: distinct[u].responseIds })),
        opts,
      ),
    ),
  );
  return { batches, copy: tf.tensor1d(copy, 'int32') };
}

/** The rows' log-probs and entropies under `model`, (1, N) each; differentiable. */
export function distinctLogprobs(
  model: GPT,
  d: DistinctRows,
  temperature: number,
): { logp: tf.Tensor2D; entropy: tf.Tensor2D } {
  const scored = d.batches.map((b) => responseLogprobs(model, b, temperature));
  // (1, N): each row's values copied from its distinct row's.
  const perRow = (x: tf.Tensor1D[]) => tf.reshape(takeRows(tf.concat(x), d.copy), [1, -1]) as tf.Tensor2D;
  return { logp: perRow(scored.map((s) => s.logp)), entropy: perRow(scored.map((s) => s.entropy)) };
}

/** The rows' log-probs under a frozen model (the KL reference), (1, N); no gradient flows. */
export function frozenLogprobs(model: GPT, d: DistinctRows, temperature: number): tf.Tensor2D {
  return tf.tidy(
    () =>
      tf.reshape(
        tf.gather(tf.concat(d.batches.map((b) => responseLogprobs(model, b, temperature).logp)), d.copy),
        [1, -1],
      ) as tf.Tensor2D,
  );
}

export function disposeDistinct(d: DistinctRows): void {
  d.batches.forEach(disposeBatch);
  d.copy.dispose();
}
