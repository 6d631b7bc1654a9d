/**
 * AdamW's update as three WGSL programs per parameter on the webgpu backend, in place of the ~15
 * elementwise tfjs ops (each a dispatch) of optim.ts's plain formulation: about half of a train
 * step's dispatches were the optimizer's (issue 17). Same arithmetic, same order, f32 throughout:
 *   m ← β₁·m + (1−β₁)·c·g,   v ← β₂·v + (1−β₂)·(c·g)²,
 *   θ ← θ·(1 − lr·wd) − lr·(m/bc₁)/(√(v/bc₂) + ε).
 * The constants (1−β₁, 1 − lr·wd, …) are computed in JS as the plain path computes them, so both
 * paths see the same f32 values. The backend is reached structurally (runWebGPUProgram), as the
 * wasm kernels reach theirs; programs have one output each, hence three per parameter.
 */
import * as tf from '@tensorflow/tfjs';

/** The part of tfjs-backend-webgpu 4.22's WebGPUBackend used here (pin tfjs exactly). */
interface WebGpuBackendLike {
  /** Each uniform entry is laid out by its length (a 3-long one as a vec3): one entry per scalar. */
  runWebGPUProgram(program: object, inputs: tf.TensorInfo[], dtype: 'float32', uniforms: { type: 'float32'; data: number[] }[]): tf.TensorInfo;
}

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
  /** The clip coefficient the gradient is multiplied by. */
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

/** New (m, v, θ) for one parameter; the caller assigns them and disposes. */
export function adamWStep(theta: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, k: AdamWConstants): [tf.Tensor, tf.Tensor, tf.Tensor] {
  const be = tf.backend() as unknown as WebGpuBackendLike;
  const n = theta.size;
  const run = (p: object, inputs: tf.Tensor[], data: number[]) =>
    tf.engine().makeTensorFromTensorInfo(be.runWebGPUProgram(p, inputs.map((t) => tf.reshape(t, [n])), 'float32', data.map((x) => ({ type: 'float32' as const, data: [x] })))).reshape(theta.shape);
  const m2 = run(program('m', ['M', 'G'], ['b1', 'omb1', 'c'], 'let r = uniforms.b1 * M[index] + uniforms.omb1 * (uniforms.c * G[index]);', n), [m, g], [k.beta1, 1 - k.beta1, k.scale]);
  const v2 = run(
    program('v', ['V', 'G'], ['b2', 'omb2', 'c'], 'let gs = uniforms.c * G[index];\n          let r = uniforms.b2 * V[index] + uniforms.omb2 * (gs * gs);', n),
    [v, g],
    [k.beta2, 1 - k.beta2, k.scale],
  );
  const w2 = run(
    program(
      'w',
      ['W', 'M', 'V'],
      ['keep', 'lr', 'bc1', 'bc2', 'eps'],
      'let u = (M[index] / uniforms.bc1) / (sqrt(V[index] / uniforms.bc2) + uniforms.eps);\n          let r = W[index] * uniforms.keep - u * uniforms.lr;',
      n,
    ),
    [theta, m2, v2],
    [k.keep, k.lr, k.bc1, k.bc2, k.eps],
  );
  return [m2, v2, w2];
}
