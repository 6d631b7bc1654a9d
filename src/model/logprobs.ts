/**
 * Per-token log-probs and entropies of given responses under the current model, for the policy
 * update and supervised warm-start. Rows (prompt, response) are packed on the CPU into right-padded
 * (B, T) arrays whose sizes are rounded up to fixed buckets, so shaders compile once (docs/backends.md#readbacks-and-shape-buckets); the
 * update packs rows of similar length together (lengthGroups), with finer buckets on the CPU
 * backends (packGranularity). Layout follows nanoGPT's (x, y): inputs = seq[:-1],
 * targets = seq[1:], mask = 1 on response targets.
 */
import * as tf from '@tensorflow/tfjs';
import type { GPT } from './gpt';
import { pick } from './layers';
import { logSoftmaxPick } from './kernels/rowwise';
import { fusedKernelsAvailable } from './kernels/wasm';

/** One agent invocation's tokens. The prompt must be non-empty (it ends with the role token). */
interface TokenRow {
  prompt: readonly number[];
  response: readonly number[];
}

/** Rows packed into flat (B, T) arrays; rows beyond `rows` and positions past a row's end are padding. */
interface Packed {
  B: number;
  T: number;
  /** Real rows (≤ B). */
  rows: number;
  inputs: Int32Array; // (B*T)
  targets: Int32Array; // (B*T)
  /** 1 where the target is a response token. */
  mask: Float32Array; // (B*T)
  /** Flat index of each row's first response target, and its response length. */
  starts: number[];
  lengths: number[];
}

export interface PackOptions {
  contextLength: number;
  vocabSize: number;
  pad: number;
  /** B is rounded up to a multiple of this (default 8). */
  batchMultiple?: number;
  /** T is rounded up to a multiple of this, capped at contextLength (default 16). */
  lengthMultiple?: number;
}

/**
 * How finely packed shapes are bucketed on the current backend. The GPU backends compile a
 * program per shape, so B and T come in coarse buckets there (the packRows defaults, docs/backends.md#readbacks-and-shape-buckets); the
 * CPU backends compile nothing and pay for every padded position, so there B is exact and T a
 * multiple of 4 (the SIMD width).
 */
export function packGranularity(): Pick<PackOptions, 'batchMultiple' | 'lengthMultiple'> {
  return ['wasm', 'cpu'].includes(tf.getBackend()) ? { batchMultiple: 1, lengthMultiple: 4 } : {};
}

/** Rounds n up to a multiple of `step`. */
export function bucket(n: number, step: number): number {
  return Math.max(step, Math.ceil(n / step) * step);
}

/** Positions a row of `length` tokens (prompt + response) takes as inputs: all but the last, at least 1. */
const positionsOf = (length: number) => Math.max(1, length - 1);

/** The padded (B, T) of a pack of `rows` rows whose longest takes `positions` positions (the buckets of PackOptions). */
function packShape(
  rows: number,
  positions: number,
  opts: Pick<PackOptions, 'contextLength' | 'batchMultiple' | 'lengthMultiple'>,
): { B: number; T: number } {
  return {
    B: bucket(rows, opts.batchMultiple ?? 8),
    T: Math.min(opts.contextLength, bucket(positions, opts.lengthMultiple ?? 16)),
  };
}

/** Packs rows into fixed-bucket arrays; token ids are validated here, on the CPU (webgpu doesn't check, docs/backends.md#ops-to-avoid). */
export function packRows(rows: readonly TokenRow[], opts: PackOptions): Packed {
  const longest = Math.max(...rows.map((r) => positionsOf(r.prompt.length + r.response.length)), 1);
  if (longest > opts.contextLength)
    throw new Error(`a row needs ${longest} positions; the model's context is ${opts.contextLength}`);
  const { B, T } = packShape(rows.length, longest, opts);
  const inputs = new Int32Array(B * T).fill(opts.pad);
  const targets = new Int32Array(B * T).fill(opts.pad);
  const mask = new Float32Array(B * T);
  const starts: number[] = [];
  const lengths: number[] = [];
  rows.forEach((row, b) => {
    if (row.prompt.length === 0)
      throw new Error(`row ${b} has an empty prompt: the first response token needs a context`);
    const seq = [...row.prompt, ...row.response];
    seq.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= opts.vocabSize)
        throw new Error(`row ${b} token ${i} is ${id}, outside the vocabulary 0..${opts.vocabSize - 1}`);
    });
    for (let j = 0; j + 1 < seq.length; j++) {
      inputs[b * T + j] = seq[j];
      targets[b * T + j] = seq[j + 1];
    }
    const start = b * T + row.prompt.length - 1;
    mask.fill(1, start, start + row.response.length);
    starts.push(start);
    lengths.push(row.response.length);
  });
  return { B, T, rows: rows.length, inputs, targets, mask, starts, lengths };
}

/**
 * A forward and backward pass costs about one unit per padded position, a little more per position
 * the longer the rows (attention), plus a fixed cost per pass (one kernel call per op): on wasm
 * with the nano model about 44 µs per position and 3 ms per pass, i.e. about 64 positions.
 */
const PASS_COST = 64;
const ATTENTION_SPAN = 600;
const packCost = (B: number, T: number) => B * T * (1 + T / ATTENTION_SPAN) + PASS_COST;

/**
 * Splits rows, given as their lengths (prompt + response), into groups to pack one by one (each
 * its own right-padded (B, T) batch), so that short rows do not carry the padding of the longest:
 * rows sorted by length and cut where packCost says the padding saved outweighs one more pass.
 * Cuts fall only where the length bucket T changes: between two, one pack is always cheaper.
 * Returns the row indices of each group, shortest rows first.
 */
export function lengthGroups(
  lengths: readonly number[],
  opts: Omit<PackOptions, 'vocabSize' | 'pad'>,
): number[][] {
  const Tof = (n: number) => packShape(1, positionsOf(n), opts).T;
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  // Runs of rows sharing one T; a group is a range of runs, found by dynamic programming.
  const ends: number[] = []; // exclusive end of each run in `order`
  order.forEach((r, k) => {
    if (k + 1 === order.length || Tof(lengths[order[k + 1]]) !== Tof(lengths[r])) ends.push(k + 1);
  });
  const best = [0]; // best[j]: cost of the first j runs
  const cut = [0];
  for (let j = 1; j <= ends.length; j++) {
    best[j] = Infinity;
    for (let i = 0; i < j; i++) {
      const from = i === 0 ? 0 : ends[i - 1];
      const { B, T } = packShape(ends[j - 1] - from, positionsOf(lengths[order[ends[j - 1] - 1]]), opts);
      const c = best[i] + packCost(B, T);
      if (c < best[j]) [best[j], cut[j]] = [c, i];
    }
  }
  const groups: number[][] = [];
  for (let j = ends.length; j > 0; j = cut[j])
    groups.unshift(order.slice(cut[j] === 0 ? 0 : ends[cut[j] - 1], ends[j - 1]));
  return groups;
}

/** Device copies of a packed batch. Caller disposes (disposeBatch). */
export interface TokenBatch {
  inputs: tf.Tensor2D; // (B, T) int32
  targets: tf.Tensor2D; // (B, T) int32
  mask: tf.Tensor2D; // (B, T) float32
}

export function toTensors(p: Packed): TokenBatch {
  return {
    inputs: tf.tensor2d(p.inputs, [p.B, p.T], 'int32'),
    targets: tf.tensor2d(p.targets, [p.B, p.T], 'int32'),
    mask: tf.tensor2d(p.mask, [p.B, p.T], 'float32'),
  };
}

export function disposeBatch(b: TokenBatch | ResponseBatch): void {
  tf.dispose(Object.values(b));
}

/**
 * log π(target) and the entropy of π, (N) each, from logits (N, V) divided by `temperature`: on wasm
 * with the fused kernels one kernel each way (logSoftmaxPick), elsewhere tfjs's ops.
 */
export function score(
  logits: tf.Tensor2D,
  targets: tf.Tensor1D,
  temperature: number,
): { logp: tf.Tensor1D; entropy: tf.Tensor1D } {
  const scaled = temperature === 1 ? logits : tf.div(logits, temperature);
  if (fusedKernelsAvailable('rowwise')) return logSoftmaxPick(scaled as tf.Tensor2D, targets);
  const logpAll = tf.logSoftmax(scaled) as tf.Tensor2D; // (N, V)
  return {
    logp: pick(logpAll, targets), // (N)
    entropy: tf.neg(tf.sum(tf.mul(tf.exp(logpAll), logpAll), -1)), // (N)
  };
}

/**
 * log π(target | inputs) and the entropy of π at every position, both (B, T) and zero where
 * mask is 0. `temperature` divides the logits first; pass the sampler's temperature so the update
 * scores tokens under the same distribution the sampler reported (sampler.ts). Differentiable;
 * call inside a loss function for gradients. Caller disposes both.
 */
export function tokenLogprobs(
  model: GPT,
  batch: TokenBatch,
  temperature = 1,
): { logp: tf.Tensor2D; entropy: tf.Tensor2D } {
  const [B, T] = batch.inputs.shape;
  return tf.tidy(() => {
    const { logp, entropy } = score(
      model.forward(batch.inputs),
      tf.reshape(batch.targets, [-1]),
      temperature,
    ); // (B*T) each
    return {
      logp: tf.mul(tf.reshape(logp, [B, T]), batch.mask) as tf.Tensor2D, // (B, T)
      entropy: tf.mul(tf.reshape(entropy, [B, T]), batch.mask) as tf.Tensor2D, // (B, T)
    };
  });
}

/** Flat (B*T) index of every response target, row after row (the order of each row's response tokens). */
export function responsePositions(p: Packed): Int32Array {
  const at = new Int32Array(p.lengths.reduce((a, n) => a + n, 0));
  let k = 0;
  p.starts.forEach((s, r) => {
    for (let i = 0; i < p.lengths[r]; i++) at[k++] = s + i;
  });
  return at;
}

/** Device copies of a packed batch for responseLogprobs. Caller disposes (disposeBatch). */
export interface ResponseBatch {
  inputs: tf.Tensor2D; // (B, T) int32
  /** responsePositions: (R) int32. */
  at: tf.Tensor1D;
  /** The response tokens, (R) int32. */
  targets: tf.Tensor1D;
}

export function toResponseTensors(p: Packed): ResponseBatch {
  const at = responsePositions(p);
  return {
    inputs: tf.tensor2d(p.inputs, [p.B, p.T], 'int32'),
    at: tf.tensor1d(at, 'int32'),
    targets: tf.tensor1d(
      Int32Array.from(at, (j) => p.targets[j]),
      'int32',
    ),
  };
}

/**
 * tokenLogprobs of the response tokens alone, (R) each in responsePositions order: only those
 * positions go through the final LayerNorm, the head and the softmax (in the default experiment
 * about one position in eight is a response token). Differentiable; caller disposes both.
 */
export function responseLogprobs(
  model: GPT,
  batch: ResponseBatch,
  temperature = 1,
): { logp: tf.Tensor1D; entropy: tf.Tensor1D } {
  return tf.tidy(() => score(model.forward(batch.inputs, { at: batch.at }), batch.targets, temperature));
}
