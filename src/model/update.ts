/**
 * One optimizer update of one model from one or more loss terms, with one readback on webgpu (two,
 * free ones, on the CPU backends): each term (e.g. each agent's loss on a shared model) gets its own backward pass so its pre-clip gradient
 * norm can be reported; the update applies their sum, clipped by global norm (docs/estimators.md#clipping-and-adamw).
 * A non-finite loss or gradient skips the update and says why (docs/architecture.md#reliability), and so
 * does a finite one that would make a weight or a moment non-finite (the staged update is dropped).
 */
import * as tf from '@tensorflow/tfjs';
import { clipCoef, globalNorm } from './grad-norm';
import type { AdamW, StagedUpdate } from './optim';

/** A loss term: a scalar loss, and optional diagnostics (1-D) and token count to read back with it. */
export type LossTerm = () => { loss: tf.Scalar; stats?: tf.Tensor; tokens?: tf.Scalar };

export interface UpdateReport {
  /** Sum of the terms' losses. */
  loss: number;
  /** Pre-clip global norm of the applied (summed) gradient: model/<id>/grad_norm. */
  gradNorm: number;
  /** Per term: loss and pre-clip gradient norm (agent/<name>/grad_norm with a shared model). */
  termLosses: number[];
  termGradNorms: number[];
  /** Each term's stats, flattened, in term order. */
  stats: Float32Array[];
  /** Each term's token count (0 for a term that gives none). */
  termTokens: number[];
  skipped: boolean;
  /** Why the update was skipped. */
  reason?: string;
}

/**
 * Each term's pre-clip gradient norm at the current weights (one backward each, one readback);
 * nothing is applied. For diagnostics: what a loss would do to the model, without doing it.
 */
export async function termGradNorms(opt: AdamW, terms: readonly LossTerm[]): Promise<number[]> {
  const norms: tf.Scalar[] = [];
  try {
    for (const term of terms) {
      // A term's stats are made inside variableGrads' tidy and go with it.
      const { value, grads } = tf.variableGrads(() => term().loss, opt.variables);
      norms.push(globalNorm(Object.values(grads)));
      tf.dispose([value, ...Object.values(grads)]);
    }
    const packed = tf.stack(norms);
    const data = (await packed.data()) as Float32Array;
    packed.dispose();
    return Array.from(data);
  } finally {
    tf.dispose(norms);
  }
}

/** The summed gradient of some loss terms and what each term reads back; clipAndStep consumes it. */
interface Backward {
  grads: tf.NamedTensorMap;
  losses: tf.Scalar[];
  /** Each term's pre-clip gradient norm; only with more than one term (one term's is the total). */
  norms: tf.Scalar[];
  stats: tf.Tensor[];
  tokens: tf.Scalar[];
}

/**
 * One backward pass per term, their gradients summed: a term's own gradient exists only here, so
 * its pre-clip norm is taken on the way. Nothing is read back yet.
 */
function backward(opt: AdamW, terms: readonly LossTerm[]): Backward {
  if (terms.length === 0) throw new Error('update: no loss terms');
  let sum: tf.NamedTensorMap | null = null;
  const losses: tf.Scalar[] = [];
  const norms: tf.Scalar[] = [];
  const stats: tf.Tensor[] = [];
  const tokens: tf.Scalar[] = [];
  try {
    for (const term of terms) {
      let kept: tf.Tensor | undefined;
      let count: tf.Scalar | undefined;
      // variableGrads runs f inside a tidy: stats survive only if kept (docs/backends.md#memory).
      const { value, grads } = tf.variableGrads(() => {
        const out = term();
        if (out.stats) kept = tf.keep(tf.reshape(out.stats, [-1]));
        if (out.tokens) count = tf.keep(out.tokens);
        return out.loss;
      }, opt.variables);
      losses.push(value);
      stats.push(kept ?? tf.zeros([0]));
      tokens.push(count ?? tf.scalar(0));
      if (terms.length > 1) norms.push(globalNorm(Object.values(grads)));
      if (sum === null) sum = grads;
      else {
        const acc: tf.NamedTensorMap = sum;
        for (const name of Object.keys(grads)) {
          const prev = acc[name];
          acc[name] = prev ? tf.add(prev, grads[name]) : tf.clone(grads[name]);
          tf.dispose([prev, grads[name]]);
        }
      }
    }
    return { grads: sum!, losses, norms, stats, tokens };
  } catch (e) {
    if (sum) tf.dispose(Object.values(sum));
    tf.dispose([...losses, ...norms, ...stats, ...tokens]);
    throw e;
  }
}

/**
 * Clips the summed gradient by its global norm and takes the AdamW step, reading back every loss,
 * norm and stat and the update's finiteness in one `await data()`; the step is assigned only if
 * all of it is finite. Frees `b`.
 */
async function clipAndStep(opt: AdamW, b: Backward): Promise<UpdateReport> {
  const { grads, losses, norms, stats, tokens } = b;
  let staged: StagedUpdate | undefined;
  try {
    // On webgpu, where each readback is a GPU sync, the update is computed before anything is read
    // back, clipped by the norm on the device (stageClipped), and assigned only if the one readback
    // says the loss, the norms and it are finite. On the CPU backends a readback costs nothing: the
    // norm comes back first and the update (wasm's one AdamW kernel) takes the number.
    const clipped = tf.getBackend() === 'webgpu' ? opt.stageClipped(grads) : undefined;
    staged = clipped;
    const total = clipped ? tf.clone(clipped.norm) : globalNorm(Object.values(grads));
    if (losses.length === 1) norms.push(tf.clone(total));
    // The readback: [losses (K), term norms (K), total norm, non-finite count of the staged update,
    // term tokens (K), stats...]
    const packed = tf.tidy(() =>
      tf.concat([
        tf.stack(losses),
        tf.stack(norms),
        tf.reshape(total, [1]),
        staged ? tf.reshape(staged.bad, [1]) : tf.zeros([1]),
        tf.stack(tokens),
        ...stats,
      ]),
    );
    const data = (await packed.data()) as Float32Array;
    packed.dispose();
    total.dispose();
    const K = losses.length;
    const termLosses = Array.from(data.subarray(0, K));
    const termGradNorms = Array.from(data.subarray(K, 2 * K));
    const gradNorm = data[2 * K];
    const updateBad = data[2 * K + 1];
    const termTokens = Array.from(data.subarray(2 * K + 2, 3 * K + 2));
    let offset = 3 * K + 2;
    const statArrays = stats.map((s) => data.slice(offset, (offset += s.size)));
    const report: UpdateReport = {
      loss: termLosses.reduce((a, b) => a + b, 0),
      gradNorm,
      termLosses,
      termGradNorms,
      stats: statArrays,
      termTokens,
      skipped: false,
    };
    const bad = termLosses.findIndex((x) => !Number.isFinite(x));
    const badNorm = termGradNorms.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) report.reason = `loss of term ${bad} is ${termLosses[bad]}`;
    else if (badNorm >= 0 || !Number.isFinite(gradNorm))
      report.reason = `gradient norm is ${badNorm >= 0 ? termGradNorms[badNorm] : gradNorm}${badNorm >= 0 ? ` (term ${badNorm})` : ''}`;
    else {
      // On webgpu the staged update's check came back above; elsewhere the update is staged now.
      const checked = staged !== undefined;
      staged ??= opt.stage(grads, clipCoef(gradNorm, opt.clipNorm));
      if ((checked ? updateBad : (await staged.bad.data())[0]) === 0) staged.commit();
      else report.reason = 'the update made a weight or an AdamW moment non-finite; rolled back';
    }
    report.skipped = report.reason !== undefined;
    return report;
  } finally {
    staged?.dispose();
    tf.dispose(Object.values(grads));
    tf.dispose([...losses, ...norms, ...stats, ...tokens]);
  }
}

/** backward then clipAndStep: one optimizer update of `opt`'s variables from these loss terms. */
export async function update(opt: AdamW, terms: readonly LossTerm[]): Promise<UpdateReport> {
  return clipAndStep(opt, backward(opt, terms));
}
