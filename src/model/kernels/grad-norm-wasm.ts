/**
 * The global gradient norm √Σ‖g‖² over all of a model's gradients as one kernel of kernels.wat on
 * the wasm backend, in place of grad-norm.ts's Square and Sum per gradient, the AddNs that join
 * them and the Sqrt: 2·P + ⌈P/7⌉ + … + 1 tfjs kernels for P gradients (62 for the 28 of a two-layer model). The same
 * f32 operations in the same order (each gradient's squares summed one value at a time, the sums
 * joined in sumAll's groups), so both paths give the same bits.
 */
import * as tf from '@tensorflow/tfjs';
import { groupedSum } from './grouped-sum';
import { fusedKernelsAvailable, registerWasmKernel } from './wasm';

const NAME = 'AgwGlobalNorm';

// g0, g1, … (any shapes) → √Σ gᵢ² ()
registerWasmKernel(NAME, ({ k, at, out, heap }, grads) => {
  const sums = Object.keys(grads)
    .sort((a, b) => Number(a) - Number(b))
    .map((i) =>
      k.sumsq(
        at(grads[i]),
        grads[i].shape.reduce((a, d) => a * d, 1),
      ),
    );
  const norm = out([]);
  // AddN's f32 sum of each group; the Float32Array store rounds √ to f32 as f32.sqrt would.
  const total = groupedSum(sums, (group) => group.reduce((a, x) => Math.fround(a + x), 0));
  heap()[at(norm) / 4] = Math.sqrt(total);
  return norm;
});

/** Whether the one-kernel norm runs: the wasm backend with the optimizer's fused kernels on. */
export const wasmGlobalNormAvailable = (): boolean => fusedKernelsAvailable('adamw');

/** √Σ‖g‖² over `grads` (float32, at least one): (). Caller disposes. */
export function globalNormWasm(grads: readonly tf.Tensor[]): tf.Scalar {
  const inputs: tf.NamedTensorMap = {};
  grads.forEach((g, i) => (inputs[i] = g));
  return tf.engine().runKernel(NAME, inputs) as tf.Scalar;
}
