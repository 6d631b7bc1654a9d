/**
 * AdamW's update as three WGSL programs per parameter on the webgpu backend, in place of the ~15
 * elementwise tfjs ops (each a dispatch) of optim.ts's plain formulation: about half of a train
 * step's dispatches were the optimizer's (issue 17). Same arithmetic, same order, f32 throughout:
 *   m ← β₁·m + (1−β₁)·c·g,   v ← β₂·v + (1−β₂)·(c·g)²,
 *   θ ← θ·(1 − lr·wd) − lr·(m/bc₁)/(√(v/bc₂) + ε).
 * The constants (1−β₁, 1 − lr·wd, …) are computed in JS as the plain path computes them, so both
 * paths see the same f32 values; the clip coefficient c is a device scalar (update.ts computes it
 * from the gradient norm without a readback). The θ program writes NaN wherever the new θ or v is
 * not finite (a non-finite m always makes θ non-finite), so one count of non-finite θ values — a
 * few dispatches for all parameters (countNonFinite) — is the whole rollback check.
 */
import * as tf from '@tensorflow/tfjs';
import { runProgram, sumOver } from './webgpu';

export interface AdamWConstants {
  beta1: number;
  beta2: number;
  /** The clip coefficient, for the wasm kernel (adamw-wasm.ts); the WGSL programs read it from a device scalar. */
  scale: number;
  lr: number;
  /** 1 − lr·wd for decayed parameters, 1 for the others. */
  keep: number;
  bc1: number;
  bc2: number;
  eps: number;
}

/** Whether the fused update can run: the webgpu backend is active. */
export function fusedAdamWAvailable(): boolean {
  return tf.getBackend() === 'webgpu';
}

/**
 * New (m, v, θ) for one parameter, θ NaN wherever it or v is not finite; `scale` is the clip
 * coefficient c as a scalar tensor. The caller assigns them and disposes.
 */
export function adamWStep(theta: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, scale: tf.Scalar, k: AdamWConstants): [tf.Tensor, tf.Tensor, tf.Tensor] {
  const n = [theta.size];
  const flat = (t: tf.Tensor) => tf.reshape(t, n);
  const c = tf.reshape(scale, [1]);
  const m2 = runProgram(
    { key: 'adamw_m', inputs: ['M', 'G', 'C'], outShape: n, body: 'let r = uniforms.b1 * M[index] + uniforms.omb1 * (C[0] * G[index]);' },
    [flat(m), flat(g), c],
    [['b1', 'f32', k.beta1], ['omb1', 'f32', 1 - k.beta1]],
  );
  const v2 = runProgram(
    { key: 'adamw_v', inputs: ['V', 'G', 'C'], outShape: n, body: 'let gs = C[0] * G[index];\n          let r = uniforms.b2 * V[index] + uniforms.omb2 * (gs * gs);' },
    [flat(v), flat(g), c],
    [['b2', 'f32', k.beta2], ['omb2', 'f32', 1 - k.beta2]],
  );
  const w2 = runProgram(
    {
      key: 'adamw_w',
      inputs: ['W', 'M', 'V'],
      outShape: n,
      body: `let u = (M[index] / uniforms.bc1) / (sqrt(V[index] / uniforms.bc2) + uniforms.eps);
          let w = W[index] * uniforms.keep - u * uniforms.lr;
          let r = select(uniforms.NAN, w, isFiniteF32(w) && isFiniteF32(V[index]));`,
    },
    [flat(theta), m2, v2],
    [['keep', 'f32', k.keep], ['lr', 'f32', k.lr], ['bc1', 'f32', k.bc1], ['bc2', 'f32', k.bc2], ['eps', 'f32', k.eps]],
  );
  return [m2, v2, w2].map((t) => tf.reshape(t, theta.shape)) as [tf.Tensor, tf.Tensor, tf.Tensor];
}

/** How many values of `xs` are NaN or ±Inf, as a float32 scalar. */
export function countNonFinite(xs: readonly tf.Tensor[]): tf.Scalar {
  return sumOver('nonfinite', xs, (x) => `select(0.0, 1.0, !isFiniteF32(${x}))`);
}
