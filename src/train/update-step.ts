/**
 * The policy update of one model for one batch: epochs × mini-batches of PPO-clip steps. Rows are
 * packed into fixed (B, T) buckets, in groups of similar length so that little of the work is
 * padding; the aggregation weights come from the pure layer, so a model shared by several agents
 * gets one loss term per agent, on its own rows, whose sum is exactly the batch loss: one backward
 * each gives every agent its own pre-clip gradient norm (DESIGN.md `agent/<k>/grad_norm`), and the
 * update applies their sum. Everything a step reports comes back in one readback.
 */
import * as tf from '@tensorflow/tfjs';
import type { Optim } from '../core/config';
import { disposeBatch, lengthGroups, packGranularity, packRows, responseLogprobs, toResponseTensors } from '../model/logprobs';
import { takeRows } from '../model/layers';
import { tokenizer } from '../model/tokenizer';
import { termGradNorms, update, type LossTerm } from '../model/update';
import { rowAggregationWeights } from '../core/losses';
import { UPDATE_DIAGNOSTICS, UPDATE_STATS, type UpdateStat } from '../core/metrics';
import type { Row } from '../tasks/orchestrator';
import { Prng } from '../core/prng';
import type { PolicyModel } from './models';
import type { SampledTokens } from './policy';
import { ppoLoss } from './ppo-loss';

/**
 * Per-agent diagnostics keyed by metric stat (agent/<name>/<stat>): the pre-clip gradient norm of
 * the agent's term and every UPDATE_DIAGNOSTICS entry, averaged over the optimizer steps of a batch.
 */
export type AgentUpdate = Record<'grad_norm' | UpdateStat, number>;

export interface ModelUpdate {
  /** Pre-clip norm of the applied gradient, mean over optimizer steps. */
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  agents: Record<string, AgentUpdate>;
}

export interface UpdateOptions {
  optim: Optim;
  /** The sampling temperature: log-probs are recomputed under the same distribution. */
  temperature: number;
  /** L_max of the sum-norm aggregation modes (the generation length limit). */
  lMax: number;
  /** Seeds the mini-batch shuffle. */
  seed: number;
}

export async function updateModel(
  m: PolicyModel,
  rows: readonly Row<SampledTokens>[],
  advantages: Float64Array,
  idx: readonly number[],
  o: UpdateOptions,
): Promise<ModelUpdate> {
  const { optim } = o;
  const sums: Record<string, AgentUpdate[]> = {};
  let gradNormSum = 0;
  let steps = 0;
  let skipped = false;
  let reason: string | undefined;
  const rng = new Prng(o.seed);

  for (let epoch = 0; epoch < optim.epochs; epoch++) {
    const order = rng.shuffle(idx);
    const size = Math.ceil(order.length / optim.miniBatches);
    for (let start = 0; start < order.length; start += size) {
      const chunk = order.slice(start, start + size);
      const r = await updateChunk(m, rows, advantages, chunk, o);
      steps++;
      gradNormSum += r.gradNorm;
      if (r.skipped) {
        skipped = true;
        reason ??= r.reason;
      }
      for (const [agent, a] of Object.entries(r.agents)) (sums[agent] ??= []).push(a);
    }
  }
  const agents: Record<string, AgentUpdate> = {};
  for (const [agent, perStep] of Object.entries(sums)) {
    const keys = Object.keys(perStep[0]) as (keyof AgentUpdate)[];
    agents[agent] = Object.fromEntries(keys.map((k) => [k, perStep.reduce((acc, a) => acc + a[k], 0) / perStep.length])) as AgentUpdate;
  }
  return { gradNorm: steps ? gradNormSum / steps : NaN, skipped, ...(reason ? { reason } : {}), agents };
}

/**
 * One loss term per agent of `m` on the rows `chunk` (one term for a model of one agent), and the
 * tensors they hold. Each term sees only its own rows. Rows with the same prompt and response (in
 * the default experiment most of a batch: a group's rollouts often make the same call and get the
 * same short answer) have the same log-probs, so each distinct row goes through the model once,
 * packed in length groups (lengthGroups), and its values are copied to every row that has it; the
 * copy's gradient sums theirs. The loss is then one weighted sum over all of the term's tokens,
 * the same loss as one padded batch of every row, with the aggregation weights of the whole
 * mini-batch (rowAggregationWeights over all of its rows).
 */
export function lossTerms(m: PolicyModel, rows: readonly Row<SampledTokens>[], advantages: Float64Array, chunk: readonly number[], o: UpdateOptions) {
  const { optim } = o;
  const cfg = m.model.config;
  const batchRows = chunk.map((i) => rows[i]);
  const rowWeight = rowAggregationWeights(optim.lossAgg, batchRows.map((r) => r.responseIds.length), o.lMax);
  const packOptions = { contextLength: cfg.contextLength, vocabSize: cfg.vocabSize, pad: tokenizer.pad, ...packGranularity() };
  const agentsHere = [...new Set(batchRows.map((r) => r.agent))];
  // One term per agent on a shared model; a model of one agent has one term.
  const termAgents = m.agents.length > 1 ? agentsHere : [null];
  const termInputs = termAgents.map((agent) => {
    const own = batchRows.flatMap((r, b) => (agent === null || r.agent === agent ? [b] : []));
    // The distinct rows, and which one each row of `own` is.
    const distinctOf = new Map<string, number>();
    const distinct: number[] = [];
    const which = own.map((b) => {
      const key = `${batchRows[b].promptIds.join(',')}|${batchRows[b].responseIds.join(',')}`;
      if (!distinctOf.has(key)) distinctOf.set(key, distinct.push(b) - 1);
      return distinctOf.get(key)!;
    });
    const lengths = distinct.map((b) => batchRows[b].promptIds.length + batchRows[b].responseIds.length);
    const groups = lengthGroups(lengths, packOptions);
    // Where each distinct row's response tokens sit in the groups' log-probs, concatenated.
    const offset = new Int32Array(distinct.length);
    let R = 0;
    for (const u of groups.flat()) {
      offset[u] = R;
      R += batchRows[distinct[u]].responseIds.length;
    }
    const copy = Int32Array.from(own.flatMap((b, k) => batchRows[b].responseIds.map((_, i) => offset[which[k]] + i)));
    const batches = groups.map((g) => toResponseTensors(packRows(g.map((u) => ({ prompt: batchRows[distinct[u]].promptIds, response: batchRows[distinct[u]].responseIds })), packOptions)));
    // Every per-token input as (1, N): the N response tokens of `own`, row after row.
    const perToken = (values: (b: number) => readonly number[]) => tf.tensor2d(own.flatMap(values), [1, copy.length]);
    const perRow = (value: (b: number) => number) => perToken((b) => batchRows[b].responseIds.map(() => value(b)));
    const copyT = tf.tensor1d(copy, 'int32');
    return {
      /** The term's agent: a single-agent model's one term is that agent's. */
      agent: agent ?? m.agents[0],
      /** Σ w over the term's tokens: turns its weighted sums into the agent's own means. */
      wSum: own.reduce((a, b) => a + rowWeight[b] * batchRows[b].responseIds.length, 0),
      batches,
      copy: copyT,
      oldLogp: perToken((b) => batchRows[b].oldLogp),
      adv: perRow((b) => advantages[chunk[b]]),
      weights: perRow((b) => rowWeight[b]),
      mask: tf.ones([1, copy.length]) as tf.Tensor2D,
      refLogp: m.ref ? tf.tidy(() => tf.reshape(tf.gather(tf.concat(batches.map((b) => responseLogprobs(m.ref!, b, o.temperature).logp)), copyT), [1, -1]) as tf.Tensor2D) : undefined,
    };
  });
  const terms: LossTerm[] = termInputs.map((t) => () => {
    const scored = t.batches.map((b) => responseLogprobs(m.model, b, o.temperature));
    // (1, N): each row's values copied from its distinct row's.
    const perRow = (x: tf.Tensor1D[]) => tf.reshape(takeRows(tf.concat(x), t.copy), [1, -1]) as tf.Tensor2D;
    const { adv, oldLogp, weights, mask, refLogp } = t;
    const logp = perRow(scored.map((s) => s.logp));
    const entropy = perRow(scored.map((s) => s.entropy));
    return ppoLoss({ logp, entropy, oldLogp, adv, mask, weights, ...(refLogp ? { refLogp } : {}) }, optim);
  });
  const dispose = () => {
    for (const t of termInputs) {
      t.batches.forEach(disposeBatch);
      tf.dispose([t.copy, t.oldLogp, t.adv, t.weights, t.mask, ...(t.refLogp ? [t.refLogp] : [])]);
    }
  };
  return { batchRows, termInputs, terms, shared: termAgents.length > 1, dispose };
}

/**
 * Per agent of `m`: the pre-clip gradient norm its loss term would have at the current weights on
 * the rows `idx` (all in one mini-batch) with these advantages. Nothing is applied: the
 * same-batch comparison's `agent/<k>/shadow/<estimator>/grad_norm`.
 */
export async function probeGradNorms(
  m: PolicyModel,
  rows: readonly Row<SampledTokens>[],
  advantages: Float64Array,
  idx: readonly number[],
  o: UpdateOptions,
): Promise<Record<string, number>> {
  if (idx.length === 0) return {};
  const p = lossTerms(m, rows, advantages, idx, o);
  try {
    const norms = await termGradNorms(m.opt, p.terms);
    return Object.fromEntries(p.termInputs.map((t, k) => [t.agent, norms[k]]));
  } finally {
    p.dispose();
  }
}

/** One optimizer step on the rows `chunk`. */
async function updateChunk(
  m: PolicyModel,
  rows: readonly Row<SampledTokens>[],
  advantages: Float64Array,
  chunk: readonly number[],
  o: UpdateOptions,
): Promise<{ gradNorm: number; skipped: boolean; reason?: string; agents: Record<string, AgentUpdate> }> {
  const { batchRows, termInputs, terms, shared, dispose } = lossTerms(m, rows, advantages, chunk, o);
  try {
    const report = await update(m.model, m.opt, terms);
    const agents: Record<string, AgentUpdate> = {};
    termInputs.forEach((t, k) => {
      const s = report.stats[k];
      const agent = t.agent;
      const rowsOwn = batchRows.filter((r) => r.agent === agent).length;
      const tokens = s[UPDATE_STATS.length];
      const per = { weights: t.wSum, tokens: Math.max(tokens, 1), rows: rowsOwn };
      agents[agent] = {
        grad_norm: shared ? report.termGradNorms[k] : report.gradNorm,
        ...(Object.fromEntries(UPDATE_STATS.map((key, i) => [key, s[i] / per[UPDATE_DIAGNOSTICS[key].over]])) as Record<UpdateStat, number>),
      };
    });
    return { gradNorm: report.gradNorm, skipped: report.skipped, ...(report.reason ? { reason: report.reason } : {}), agents };
  } finally {
    dispose();
  }
}
