/**
 * The start-up sanity check every backend must pass before it runs an experiment: one forward +
 * backward of the lab's own GPT (a tiny seeded instance, the same layers as the policies: one-hot
 * embedding, layer norm, causal attention, GELU, tied head, log-prob pick) whose loss and
 * gradients, and the change one AdamW update makes, must match the CPU backend, and so must one
 * decoding step's attention over a KV cache. It runs whatever the backend runs for the policies —
 * on wasm and webgpu their fused kernels (src/model/kernels) — so it catches backends, and kernels
 * on an adapter, that initialize but compute wrong: tfjs #8590 (zero gradients on one device),
 * tfjs-wasm's oneHot ignoring its dtype, a WGSL program miscompiled by a driver.
 */
import * as tf from '@tensorflow/tfjs';
import { GPT, MASK } from '../model/gpt';
import { gptConfig } from '../core/gpt-config';
import { disposeBatch, packRows, toTensors } from '../model/logprobs';
import { AdamW } from '../model/optim';
import { update } from '../model/update';
import { nextTokenLoss } from '../model/warmstart';
import { cachedAttention } from '../model/kernels/attention';
import { Prng } from '../core/prng';

/** |Δ| allowed per value, relative to 1 + |reference| (docs/backends.md#numerical-agreement: webgl drifts ±1.8e-3). */
export const SANITY_TOLERANCE: Record<string, number> = { webgl: 5e-3, webgpu: 1e-5, wasm: 1e-5, cpu: 1e-5 };

const CONFIG = gptConfig('nano', { contextLength: 16, dModel: 16, nLayers: 1, nHeads: 2, dMlp: 32 });

/**
 * Runs the fixed step on the active backend: returns [loss, Σg and Σg² of each parameter, then
 * after one clipped AdamW update: the gradient norm, Σ(θ' − θ) and Σ(θ' − θ)² of each parameter,
 * then Σy and Σy² of a cached attention (decoding)].
 */
export async function sanityStep(): Promise<Float32Array> {
  const model = GPT.create(CONFIG, 1);
  const rows = [
    { prompt: [1, 20, 31, 42], response: [50, 51, 2] },
    { prompt: [1, 9, 13], response: [44, 60, 61, 62, 2] },
  ];
  const batch = toTensors(
    packRows(rows, { contextLength: CONFIG.contextLength, vocabSize: CONFIG.vocabSize, pad: 0 }),
  );
  try {
    const out = tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => nextTokenLoss(model, batch), model.variables);
      const summary = model.variables.flatMap((v) => [
        tf.sum(grads[v.name]),
        tf.sum(tf.square(grads[v.name])),
      ]);
      return tf.stack([value, ...summary]);
    });
    const grads = (await out.data()) as Float32Array;
    out.dispose();
    // Then one real update (update.ts: global norm, clip, AdamW; fused kernels where the backend has
    // them): each parameter's change. ε = 1e-3 keeps g/(√v̂ + ε) smooth in g, so float noise in tiny
    // gradients cannot flip a change's size between backends.
    const before = model.variables.map((v) => tf.clone(v));
    const opt = new AdamW(model, { lr: 1e-3, eps: 1e-3, weightDecay: 0.1, clipNorm: 0.5 });
    try {
      const report = await update(opt, [() => ({ loss: nextTokenLoss(model, batch) })]);
      const change = tf.tidy(() =>
        tf.stack(
          model.variables.flatMap((v, i) => [
            tf.sum(tf.sub(v, before[i])),
            tf.sum(tf.square(tf.sub(v, before[i]))),
          ]),
        ),
      );
      const changes = (await change.data()) as Float32Array;
      change.dispose();
      return Float32Array.from([...grads, report.gradNorm, ...changes, ...(await decodeAttention())]);
    } finally {
      tf.dispose(before);
      opt.dispose();
    }
  } finally {
    disposeBatch(batch);
    model.dispose();
  }
}

/**
 * One decoding step's attention (the path the training step does not take): 2 rows, one new query
 * each over 5 cached positions, row 1's first two masked as left padding. [Σy, Σy²].
 */
async function decodeAttention(): Promise<number[]> {
  const rng = new Prng(3);
  const values = (n: number) => Array.from({ length: n }, () => rng.next() * 2 - 1);
  const { dModel: C, nHeads: H } = CONFIG;
  const out = tf.tidy(() => {
    const q = tf.tensor2d(values(2 * C), [2, C]);
    const k = tf.tensor3d(values(2 * 5 * C), [2, 5, C]);
    const v = tf.tensor3d(values(2 * 5 * C), [2, 5, C]);
    const bias = tf.tensor4d([0, 0, 0, 0, 0, MASK, MASK, 0, 0, 0], [2, 1, 1, 5]);
    const y = cachedAttention(q, k, v, bias, H);
    return tf.stack([tf.sum(y), tf.sum(tf.square(y))]);
  });
  const data = await out.data();
  out.dispose();
  return Array.from(data);
}

/** Largest |a − b| / (1 + |b|) over the two result vectors; Infinity on NaN or length mismatch. */
export function maxRelativeDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i]));
    if (!(d <= worst)) worst = Number.isNaN(d) ? Infinity : d;
  }
  return worst;
}
