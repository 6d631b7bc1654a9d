/**
 * AdamW's update for all of a model's parameters as one tfjs kernel on the wasm backend, which runs
 * kernels.wat's `adamw` on each parameter in turn, in place of the ~15 elementwise tfjs ops per
 * parameter of optim.ts's plain formulation and the 3 ops of its finiteness check: same f32
 * operations in the same order (no multiply-add fusion), so both paths give the same bits. One
 * kernel for all, not one per parameter: 28 fewer dispatches and no AddNs joining the checks for a
 * two-layer model. The constants (1−β₁, 1 − lr·wd, …) come from the caller as adamw-webgpu.ts takes them.
 */
import * as tf from '@tensorflow/tfjs';
import type { AdamWConstants } from './adamw-webgpu';
import { fusedKernelsAvailable, registerWasmKernel } from './wasm';

const NAME = 'AgwAdamW';

// Per parameter i: wi, gi, mi, vi (n values each, any shape); attrs keeps[i] (its 1 − lr·wd, or 1)
// → [m'0, v'0, w'0 (the shape of w0), m'1, …, Σ 0·(w', m', v') over all of them ()]
registerWasmKernel(NAME, ({ k, at, out, scratch, heap: floats }, inputs, c) => {
  const keeps = c.keeps as unknown as number[];
  const outs: tf.TensorInfo[] = [];
  for (let i = 0; i < keeps.length; i++) {
    const shape = inputs[`w${i}`].shape;
    outs.push(out(shape), out(shape), out(shape));
  }
  const check = out([]);
  const consts = scratch(40 + 12); // 10 constants × 4 lanes, then the tail's 3 × 4 outputs
  const heap = floats();
  const at0 = consts / 4;
  [c.beta1, c.scale, 1 - c.beta1, c.beta2, 1 - c.beta2, 1, c.lr, c.bc1, c.bc2, c.eps].forEach((x, i) =>
    heap.fill(x, at0 + 4 * i, at0 + 4 * i + 4),
  );
  let zero = 0; // NaN iff a new value is not finite
  for (let i = 0; i < keeps.length; i++) {
    const w = inputs[`w${i}`];
    const [m2, v2, w2] = outs.slice(3 * i, 3 * i + 3);
    heap.fill(keeps[i], at0 + 20, at0 + 24);
    const n = w.shape.reduce((a, d) => a * d, 1);
    zero += k.adamw(
      at(w),
      at(inputs[`g${i}`]),
      at(inputs[`m${i}`]),
      at(inputs[`v${i}`]),
      at(w2),
      at(m2),
      at(v2),
      n,
      consts,
    );
  }
  heap[at(check) / 4] = zero;
  return [...outs, check];
});

/** Whether the wasm kernel runs: the wasm backend with the fused kernels on. */
export const wasmAdamWAvailable = (): boolean => fusedKernelsAvailable('adamw');

/** One parameter's part of the update: its weights, gradient, moments and its 1 − lr·wd (1 if not decayed). */
export interface AdamWParam {
  theta: tf.Tensor;
  g: tf.Tensor;
  m: tf.Tensor;
  v: tf.Tensor;
  keep: number;
}

/**
 * New (m, v, θ) for each parameter and Σ 0·x over all of them (NaN iff one is not finite), at least
 * one parameter; the caller assigns and disposes.
 */
export function adamWStepWasm(
  params: readonly AdamWParam[],
  c: Omit<AdamWConstants, 'keep'>,
): { next: [tf.Tensor, tf.Tensor, tf.Tensor][]; bad: tf.Scalar } {
  const inputs: tf.NamedTensorMap = {};
  params.forEach(({ theta, g, m, v }, i) =>
    Object.assign(inputs, { [`w${i}`]: theta, [`g${i}`]: g, [`m${i}`]: m, [`v${i}`]: v }),
  );
  const attrs = { ...c, keeps: params.map((p) => p.keep) } as unknown as tf.NamedAttrMap;
  const outs = tf.engine().runKernel(NAME, inputs, attrs) as unknown as tf.Tensor[];
  const next = params.map((_, i) => outs.slice(3 * i, 3 * i + 3) as [tf.Tensor, tf.Tensor, tf.Tensor]);
  return { next, bad: outs[outs.length - 1] as tf.Scalar };
}
