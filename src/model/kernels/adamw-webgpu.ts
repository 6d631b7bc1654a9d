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
 * few dispatches for all parameters (countNonFinite) — is the whole rollback check. The backend is
 * reached structurally (runWebGPUProgram), as the wasm kernels reach theirs.
 */
import * as tf from '@tensorflow/tfjs';
import { gpuBackend, isFiniteWgsl, NAN_WGSL } from './webgpu';

const WORKGROUP = 128;

/** An elementwise program over 1-D float32 inputs of one length; `body` sets `r` from them and `uniforms`. */
function program(key: string, inputs: string[], uniforms: string[], body: string, n: number): object {
  return {
    variableNames: inputs,
    outputShape: [n],
    shaderKey: `agentwise_adamw_${key}`,
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(n / WORKGROUP), 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    size: true,
    uniforms: uniforms.map((u) => `${u} : f32,`).join(' '),
    getUserCode: () => `
      ${isFiniteWgsl}
      fn main(index : i32) {
        if (index < uniforms.size) {
          ${body}
          setOutputAtIndex(index, r);
        }
      }`,
  };
}

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
  const be = gpuBackend();
  const n = theta.size;
  const c = tf.reshape(scale, [1]);
  const run = (p: object, inputs: tf.Tensor[], data: number[]) =>
    tf
      .engine()
      .makeTensorFromTensorInfo(
        be.runWebGPUProgram(p, inputs.map((t) => (t === c ? t : tf.reshape(t, [n]))), 'float32', data.map((x) => ({ type: 'float32' as const, data: [x] }))),
      )
      .reshape(theta.shape);
  const m2 = run(program('m', ['M', 'G', 'C'], ['b1', 'omb1'], 'let r = uniforms.b1 * M[index] + uniforms.omb1 * (C[0] * G[index]);', n), [m, g, c], [k.beta1, 1 - k.beta1]);
  const v2 = run(
    program('v', ['V', 'G', 'C'], ['b2', 'omb2'], 'let gs = C[0] * G[index];\n          let r = uniforms.b2 * V[index] + uniforms.omb2 * (gs * gs);', n),
    [v, g, c],
    [k.beta2, 1 - k.beta2],
  );
  const w2 = run(
    program(
      'w',
      ['W', 'M', 'V'],
      ['keep', 'lr', 'bc1', 'bc2', 'eps'],
      `let u = (M[index] / uniforms.bc1) / (sqrt(V[index] / uniforms.bc2) + uniforms.eps);
          let w = W[index] * uniforms.keep - u * uniforms.lr;
          let r = select(${NAN_WGSL}, w, isFiniteF32(w) && isFiniteF32(V[index]));`,
      n,
    ),
    [theta, m2, v2],
    [k.keep, k.lr, k.bc1, k.bc2, k.eps],
  );
  return [m2, v2, w2];
}

/** Inputs per counting program: 7 storage buffers plus the output fit the default limit of 8. */
const COUNT_INPUTS = 7;
const COUNT_WORKGROUP = 256;

/** One workgroup counts the non-finite values of up to 7 tensors (by their bits: no isnan to trust). */
function countProgram(k: number): object {
  const names = Array.from({ length: k }, (_, i) => `X${i}`);
  const loops = names
    .map((x, i) => `for (var i = i32(localId.x); i < uniforms.x${i}Shape; i = i + ${COUNT_WORKGROUP}) { if (!isFiniteF32(${x}[i])) { bad = bad + 1.0; } }`)
    .join('\n        ');
  return {
    variableNames: names,
    outputShape: [1],
    shaderKey: `agentwise_count_nonfinite_${k}`,
    dispatchLayout: { x: [0] },
    dispatch: [1, 1, 1],
    workgroupSize: [COUNT_WORKGROUP, 1, 1],
    getUserCode: () => `
      ${isFiniteWgsl}
      var<workgroup> partial : array<f32, ${COUNT_WORKGROUP}>;
      fn main(index : i32) {
        var bad = 0.0;
        ${loops}
        partial[localId.x] = bad;
        workgroupBarrier();
        for (var s = ${COUNT_WORKGROUP / 2}u; s > 0u; s = s / 2u) {
          if (localId.x < s) { partial[localId.x] = partial[localId.x] + partial[localId.x + s]; }
          workgroupBarrier();
        }
        if (localId.x == 0u) { setOutputAtIndex(0, partial[0]); }
      }`,
  };
}

/** How many values of `xs` are NaN or ±Inf, as a float32 scalar: ⌈n/7⌉ dispatches and one AddN per 7 of those. */
export function countNonFinite(xs: readonly tf.Tensor[]): tf.Scalar {
  const be = gpuBackend();
  return tf.tidy(() => {
    const counts: tf.Tensor[] = [];
    for (let i = 0; i < xs.length; i += COUNT_INPUTS) {
      const group = xs.slice(i, i + COUNT_INPUTS).map((x) => tf.reshape(x, [-1]));
      counts.push(tf.engine().makeTensorFromTensorInfo(be.runWebGPUProgram(countProgram(group.length), group, 'float32', [])));
    }
    while (counts.length > 1) counts.splice(0, COUNT_INPUTS, tf.addN(counts.slice(0, COUNT_INPUTS)));
    return tf.reshape(counts[0] ?? tf.zeros([1]), []) as tf.Scalar;
  });
}
