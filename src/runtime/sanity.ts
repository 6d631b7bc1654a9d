/**
 * The start-up sanity check every backend must pass before it runs an experiment: one fixed tiny
 * forward + backward through the ops a transformer training step uses (layer norm, matmul, GELU,
 * causal softmax attention, log-softmax pick, mean) whose loss and gradients must match the CPU
 * backend. It catches backends that initialize but compute wrong (tfjs #8590: zero gradients on
 * one device). Inputs are closed-form, so every backend sees the same numbers.
 */
import type * as TF from '@tensorflow/tfjs';

/** |Δ| allowed per value, relative to 1 + |reference| (tfjs-webgpu.md §8: webgl drifts ±1.8e-3). */
export const SANITY_TOLERANCE: Record<string, number> = { webgl: 5e-3, webgpu: 1e-5, wasm: 1e-5, cpu: 1e-5 };

const N = 8; // tokens (T)
const C = 16; // model width
const H = 24; // hidden width
const V = 8; // vocabulary

/** Fills a tensor shape with a smooth deterministic pattern in [-scale, scale]. */
function pattern(tf: typeof TF, shape: [number, number], freq: number, scale: number): TF.Tensor2D {
  const n = shape[0] * shape[1];
  const values = new Float32Array(n);
  for (let i = 0; i < n; i++) values[i] = scale * Math.sin(freq * (i + 1));
  return tf.tensor2d(values, shape);
}

/**
 * Runs the fixed step on the active backend and returns [loss, Σg, Σg², g[0..3]] for each of the
 * two weight matrices, read back in one `data()` call.
 */
export async function sanityStep(tf: typeof TF): Promise<Float32Array> {
  const out = tf.tidy(() => {
    const x = pattern(tf, [N, C], 0.37, 1); // (T, C)
    const w1 = pattern(tf, [C, H], 0.11, 0.3); // (C, H)
    const w2 = pattern(tf, [H, V], 0.23, 0.3); // (H, V)
    const targets = tf.tensor1d(Array.from({ length: N }, (_, i) => (i * 3) % V), 'int32');
    const causal = tf.linalg.bandPart(tf.ones([N, N]), -1, 0); // (T, T) lower triangle
    const maskAdd = tf.mul(tf.sub(1, causal), -1e9); // finite, not -Infinity (WGSL)

    const loss = (...[a, b]: TF.Tensor[]): TF.Scalar => {
      const { mean, variance } = tf.moments(x, -1, true);
      const h = tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))); // (T, C) layer norm
      const u = tf.matMul(h, a as TF.Tensor2D); // (T, H)
      const g = tf.mul(tf.mul(u, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(u, tf.mul(0.044715, tf.pow(u, 3))), 0.7978845608)))); // GELU
      const scores = tf.add(tf.div(tf.matMul(g, tf.transpose(g)), Math.sqrt(H)), maskAdd); // (T, T)
      const att = tf.matMul(tf.softmax(scores), g); // (T, H)
      const logits = tf.matMul(att, b as TF.Tensor2D); // (T, V)
      const logp = tf.logSoftmax(logits); // (T, V)
      return tf.neg(tf.mean(tf.sum(tf.mul(logp, tf.oneHot(targets, V)), -1))) as TF.Scalar;
    };
    const { value, grads } = tf.valueAndGrads(loss)([w1, w2]);
    const summary = (g: TF.Tensor) => [tf.sum(g), tf.sum(tf.square(g)), tf.slice(tf.reshape(g, [-1]), 0, 4)];
    return tf.concat(
      [value, ...summary(grads[0]), ...summary(grads[1])].map((t) => tf.reshape(t, [-1])),
    ) as TF.Tensor1D;
  });
  const values = (await out.data()) as Float32Array;
  out.dispose();
  return values;
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
