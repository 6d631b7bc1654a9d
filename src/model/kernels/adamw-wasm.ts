/**
 * AdamW's update for one parameter as one kernel of kernels.wat on the wasm backend, in place of the
 * ~15 elementwise tfjs ops of optim.ts's plain formulation and the 3 ops of its finiteness check:
 * same f32 operations in the same order (no multiply-add fusion), so both paths give the same bits.
 * The constants (1−β₁, 1 − lr·wd, …) come from the caller as adamw-webgpu.ts takes them.
 */
import * as tf from '@tensorflow/tfjs';
import type { AdamWConstants } from './adamw-webgpu';
import { fusedKernelsAvailable, registerWasmKernel } from './wasm';

const NAME = 'AgwAdamW';

// w, g, m, v (n values each, any shape) → [m', v', w' (the shape of w), Σ 0·(w', m', v') (1)]
registerWasmKernel(NAME, ({ k, at, out, scratch, heap: floats }, { w, g, m, v }, c) => {
  const n = w.shape.reduce((a, d) => a * d, 1);
  const m2 = out(w.shape),
    v2 = out(w.shape),
    w2 = out(w.shape),
    check = out([1]);
  const consts = scratch(40 + 12); // 10 constants × 4 lanes, then the tail's 3 × 4 outputs
  const heap = floats();
  [c.beta1, c.scale, 1 - c.beta1, c.beta2, 1 - c.beta2, c.keep, c.lr, c.bc1, c.bc2, c.eps].forEach((x, i) =>
    heap.fill(x, consts / 4 + 4 * i, consts / 4 + 4 * i + 4),
  );
  heap[at(check) / 4] = k.adamw(at(w), at(g), at(m), at(v), at(w2), at(m2), at(v2), n, consts);
  return [m2, v2, w2, check];
});

/** Whether the wasm kernel runs: the wasm backend with the fused kernels on. */
export const wasmAdamWAvailable = (): boolean => fusedKernelsAvailable('adamw');

/** New (m, v, θ) for one parameter and Σ 0·x over them (NaN iff one is not finite); the caller assigns and disposes. */
export function adamWStepWasm(
  theta: tf.Tensor,
  g: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  c: AdamWConstants,
): [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor] {
  return tf.engine().runKernel(NAME, { w: theta, g, m, v }, c as unknown as tf.NamedAttrMap) as unknown as [
    tf.Tensor,
    tf.Tensor,
    tf.Tensor,
    tf.Tensor,
  ];
}
