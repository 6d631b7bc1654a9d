/**
 * Global-norm gradient clipping, as PyTorch's clip_grad_norm_: the norm √Σ‖g‖² over a set of
 * gradients, and the factor that brings it within a threshold, on the host or on the device. Also
 * sumAll, the sum of many tensors in AddNs small enough for webgpu, which the norm and AdamW's
 * finiteness check (optim.ts) both take. Apart from AdamW because update.ts also takes these on
 * their own (each loss term's pre-clip norm, the clip coefficient of a norm read back).
 */
import * as tf from '@tensorflow/tfjs';
import { globalNormWasm, wasmGlobalNormAvailable } from './kernels/grad-norm-wasm';
import { groupedSum } from './kernels/grouped-sum';
import { sumOver, webgpuKernelsAvailable } from './kernels/webgpu';

/** Σ xs with AddNs of at most ADDN_MAX inputs each (kernels/grouped-sum.ts: the order). */
export function sumAll(xs: tf.Tensor[]): tf.Tensor {
  return groupedSum(xs, (group) => tf.addN(group));
}

/**
 * √Σ‖g‖² over a set of gradients, on the device: (). On webgpu a few WGSL reductions instead of
 * Square + Sum per tensor, on wasm one kernel with the same bits as those (grad-norm-wasm.ts). Caller disposes.
 */
export function globalNorm(grads: readonly tf.Tensor[]): tf.Scalar {
  if (grads.length > 0 && wasmGlobalNormAvailable()) return globalNormWasm(grads);
  if (webgpuKernelsAvailable('rowwise'))
    return tf.tidy(() => tf.sqrt(sumOver('squares', grads, (x) => `${x} * ${x}`)));
  return tf.tidy(() => tf.sqrt(sumAll(grads.map((g) => tf.sum(tf.square(g))))) as tf.Scalar);
}

/** The factor that brings a gradient of norm `norm` within `maxNorm` (1 when already within). */
export function clipCoef(norm: number, maxNorm: number): number {
  return Math.min(1, maxNorm / (norm + 1e-6));
}

/** clipCoef on the device, in f32, so the update needs no readback of the norm first: (). Caller disposes. */
export function clipCoefOnDevice(norm: tf.Scalar, maxNorm: number): tf.Scalar {
  return tf.tidy(
    () =>
      (maxNorm === Infinity ? tf.scalar(1) : tf.minimum(1, tf.div(maxNorm, tf.add(norm, 1e-6)))) as tf.Scalar,
  );
}
