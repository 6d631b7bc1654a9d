/**
 * The PPO update of one model on one batch, in the order it happens: epochs × mini-batches, each
 * the loss (ppoLoss), one backward per loss term, the clip by global norm and the AdamW step; then
 * the per-agent diagnostics, once, from what the steps read back. A model shared by several agents
 * gets one loss term per agent, on its own rows, whose sum is exactly the mini-batch loss: one
 * backward each gives every agent its own pre-clip gradient norm (`agent/<k>/grad_norm`,
 * docs/metrics.md#metrics), and the step applies their sum. Each step reads back once.
 */
import * as tf from '@tensorflow/tfjs';
import type { EstimatorChoice } from '../core/estimators';
import type { Optim } from '../core/config-sections';
import { packGranularity } from '../model/logprobs';
import { disposeDistinct, distinctLogprobs, frozenLogprobs, packDistinct } from '../model/distinct-rows';
import { tokenizer } from '../model/tokenizer';
import { termGradNorms, update, type LossTerm, type UpdateReport } from '../model/update';
import { rowAggregationWeights } from '../core/losses';
import {
  agentSameBatchKey,
  GRAD_NORM,
  sameBatchEstimators,
  UPDATE_DIAGNOSTICS,
  UPDATE_STATS,
  type UpdateStat,
} from '../core/metrics';
import type { EveryEstimator } from '../rl/same-batch';
import type { Row } from '../tasks/orchestrator';
import { Prng } from '../core/prng';
import type { PolicyModel } from './models';
import type { SampledTokens } from './policy';
import { ppoLoss } from './ppo-loss';

/**
 * Per-agent diagnostics keyed by metric stat (agent/<name>/<stat>): the pre-clip gradient norm of
 * the agent's term and every UPDATE_DIAGNOSTICS entry, averaged over the optimizer steps of a batch.
 */
type AgentUpdate = Record<typeof GRAD_NORM | UpdateStat, number>;

export interface ModelUpdate {
  /** Pre-clip norm of the applied gradient, mean over optimizer steps. */
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  agents: Record<string, AgentUpdate>;
}

interface UpdateOptions {
  optim: Optim;
  /** The sampling temperature: log-probs are recomputed under the same distribution. */
  temperature: number;
  /** L_max of the sum-norm aggregation modes (the generation length limit). */
  lMax: number;
  /** Seeds the mini-batch shuffle. */
  seed: number;
}

/** What one optimizer step read back, and whose terms it held: the diagnostics are made from it. */
interface StepRecord {
  report: UpdateReport;
  terms: { agent: string; wSum: number; rows: number }[];
}

/** PPO-clip on the rows `idx` of the batch (those of `m`'s agents), with these advantages. */
export async function ppoUpdate(
  m: PolicyModel,
  rows: readonly Row<SampledTokens>[],
  advantages: Float64Array,
  idx: readonly number[],
  o: UpdateOptions,
): Promise<ModelUpdate> {
  const { optim } = o;
  const rng = new Prng(o.seed);
  const steps: StepRecord[] = [];
  for (let epoch = 0; epoch < optim.epochs; epoch++) {
    // A fresh shuffle every epoch, so the mini-batches differ from one epoch to the next.
    const order = rng.shuffle(idx);
    const size = Math.ceil(order.length / optim.miniBatches);
    for (let start = 0; start < order.length; start += size) {
      const minibatch = order.slice(start, start + size);
      // The loss: PPO-clip with entropy bonus and KL penalty, one term per agent of a shared model.
      // Its inputs (packed rows, old and reference log-probs, advantages) are made once, here; the
      // policy's log-probs are recomputed inside each term, under the weights as they stand now.
      const loss = lossTerms(m, rows, advantages, minibatch, o);
      try {
        // Backward: one pass per term, so each agent's pre-clip gradient norm exists; summed. Then
        // clip by global norm and take the AdamW step, after one readback that says everything is
        // finite: a non-finite loss, gradient or step leaves the weights as they were, and says why.
        const report = await update(m.opt, loss.terms);
        const terms = loss.termInputs.map((t) => ({ agent: t.agent, wSum: t.wSum, rows: t.rows }));
        steps.push({ report, terms });
      } finally {
        loss.dispose();
      }
    }
  }
  // The diagnostics, once the weights have moved: nothing above waits on them.
  return updateDiagnostics(steps);
}

/**
 * The update's metric values: per agent, the grad norm of its term (the whole step's on a model of
 * one agent) and each UPDATE_DIAGNOSTICS sum over what it is a mean over, averaged over the steps.
 */
function updateDiagnostics(steps: readonly StepRecord[]): ModelUpdate {
  const perAgent: Record<string, AgentUpdate[]> = {};
  for (const { report, terms } of steps)
    terms.forEach((t, k) => {
      const s = report.stats[k];
      const per = { weights: t.wSum, tokens: Math.max(report.termTokens[k], 1), rows: t.rows };
      (perAgent[t.agent] ??= []).push({
        // A model of one agent has one term, whose norm is the step's (update.ts clipAndStep).
        [GRAD_NORM]: report.termGradNorms[k],
        ...(Object.fromEntries(
          UPDATE_STATS.map((key, i) => [key, s[i] / per[UPDATE_DIAGNOSTICS[key].over]]),
        ) as Record<UpdateStat, number>),
      });
    });
  const agents: Record<string, AgentUpdate> = {};
  for (const [agent, perStep] of Object.entries(perAgent)) {
    const keys = Object.keys(perStep[0]) as (keyof AgentUpdate)[];
    agents[agent] = Object.fromEntries(
      keys.map((k) => [k, perStep.reduce((acc, a) => acc + a[k], 0) / perStep.length]),
    ) as AgentUpdate;
  }
  const skipped = steps.find((s) => s.report.skipped);
  return {
    gradNorm: steps.length ? steps.reduce((acc, s) => acc + s.report.gradNorm, 0) / steps.length : NaN,
    skipped: skipped !== undefined,
    ...(skipped?.report.reason ? { reason: skipped.report.reason } : {}),
    agents,
  };
}

/**
 * One loss term per agent of `m` on the rows `chunk` (one term for a model of one agent), and the
 * tensors they hold. Each term sees only its own rows, each distinct row through the model once
 * (model/distinct-rows.ts). The loss is one weighted sum over all of the term's tokens, the same
 * loss as one padded batch of every row, with the aggregation weights of the whole mini-batch
 * (rowAggregationWeights over all of its rows).
 */
export function lossTerms(
  m: PolicyModel,
  rows: readonly Row<SampledTokens>[],
  advantages: Float64Array,
  chunk: readonly number[],
  o: UpdateOptions,
) {
  const { optim } = o;
  const cfg = m.model.config;
  const batchRows = chunk.map((i) => rows[i]);
  const rowWeight = rowAggregationWeights(
    optim.lossAgg,
    batchRows.map((r) => r.responseIds.length),
    o.lMax,
    batchRows.map((r) => r.agent),
  );
  const packOptions = {
    contextLength: cfg.contextLength,
    vocabSize: cfg.vocabSize,
    pad: tokenizer.pad,
    ...packGranularity(),
  };
  const agentsHere = [...new Set(batchRows.map((r) => r.agent))];
  // One term per agent on a shared model; a model of one agent has one term.
  const termAgents = m.agents.length > 1 ? agentsHere : [null];
  const termInputs = termAgents.map((agent) => {
    const own = batchRows.flatMap((r, b) => (agent === null || r.agent === agent ? [b] : []));
    const distinct = packDistinct(
      own.map((b) => batchRows[b]),
      packOptions,
    );
    const N = distinct.copy.size;
    // Every per-token input as (1, N): the N response tokens of `own`, row after row.
    const perToken = (values: (b: number) => readonly number[]) => tf.tensor2d(own.flatMap(values), [1, N]);
    const perRow = (value: (b: number) => number) =>
      perToken((b) => batchRows[b].responseIds.map(() => value(b)));
    return {
      /** The term's agent: a single-agent model's one term is that agent's. */
      agent: agent ?? m.agents[0],
      /** Σ w over the term's tokens: turns its weighted sums into the agent's own means. */
      wSum: own.reduce((a, b) => a + rowWeight[b] * batchRows[b].responseIds.length, 0),
      rows: own.length,
      ...distinct,
      oldLogp: perToken((b) => batchRows[b].oldLogp),
      adv: perRow((b) => advantages[chunk[b]]),
      weights: perRow((b) => rowWeight[b]),
      mask: tf.ones([1, N]) as tf.Tensor2D,
      refLogp: m.ref ? frozenLogprobs(m.ref, distinct, o.temperature) : undefined,
    };
  });
  const terms: LossTerm[] = termInputs.map((t) => () => {
    const { adv, oldLogp, weights, mask, refLogp } = t;
    const { logp, entropy } = distinctLogprobs(m.model, t, o.temperature);
    return ppoLoss({ logp, entropy, oldLogp, adv, mask, weights, ...(refLogp ? { refLogp } : {}) }, optim);
  });
  const dispose = () => {
    for (const t of termInputs) {
      disposeDistinct(t);
      tf.dispose([t.oldLogp, t.adv, t.weights, t.mask, ...(t.refLogp ? [t.refLogp] : [])]);
    }
  };
  return { termInputs, terms, dispose };
}

/**
 * Per agent of `m`: the pre-clip gradient norm its loss term would have at the current weights on
 * the rows `idx` (all in one mini-batch) with these advantages. Nothing is applied: the
 * same-batch comparison's `agent/<k>/shadow/<estimator>/grad_norm`.
 */
async function probeGradNorms(
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

/** What the same-batch gradient norms of one model are taken on. */
interface SameBatchProbe {
  model: PolicyModel;
  /** The step's rows, and the indices of those it trains on. */
  rows: readonly Row<SampledTokens>[];
  trained: readonly number[];
  /** Each estimator's advantages on the rows `trained`, in that order. */
  all: EveryEstimator;
  /** The run's own estimator (which estimators are weighed: sameBatchEstimators). */
  estimator: EstimatorChoice;
  /** The rows of `trained` the model's agents own: the norms are taken on them. */
  idx: readonly number[];
  options: UpdateOptions;
}

/**
 * diagnostics.shadowGradNorm, before the update moves the weights: each same-batch estimator's
 * gradient norm per agent on this very batch, as metric entries (agent/<a>/shadow/<e>/grad_norm).
 */
export async function shadowGradNorms(p: SameBatchProbe): Promise<[string, number][]> {
  const probes: [string, number][] = [];
  for (const e of sameBatchEstimators(p.estimator)) {
    const adv = new Float64Array(p.rows.length);
    const weighed = p.all[e]!;
    p.trained.forEach((i, j) => (adv[i] = weighed[j]));
    const norms = await probeGradNorms(p.model, p.rows, adv, p.idx, p.options);
    for (const [agent, g] of Object.entries(norms)) probes.push([agentSameBatchKey(agent, e, GRAD_NORM), g]);
  }
  return probes;
}
