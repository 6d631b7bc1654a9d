/**
 * tfjs's Identity on the wasm backend, sharing the input's buffer instead of copying it. Identity is
 * what tf.clone runs, and the engine clones every tensor a custom gradient saves for its backward
 * pass: tfjs-backend-wasm 4.22 copies each one (about 80 copies and 13 ms of a `small` train step,
 * scripts/profile-kernels.ts), where the cpu backend only counts one more reference. This does what
 * the cpu backend does. Safe because tfjs tensors are immutable: the only kernels that write a
 * buffer in place are the KV-cache writes (attention.ts writeCacheSlot, decode.ts), whose callers give
 * the old tensor up and never clone a cache.
 */
import * as tf from '@tensorflow/tfjs';
import type { WasmBackendLike } from './kernel-types';

const shareIdentity: tf.KernelFunc = ({ inputs, backend }) => {
  const x = inputs.x as tf.TensorInfo;
  (backend as unknown as WasmBackendLike).incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
};

/** Puts the sharing Identity in place of tfjs-backend-wasm's (once; after that backend registered its own). */
export function shareIdentityOnWasm(): void {
  const current = tf.getKernel('Identity', 'wasm');
  if (current?.kernelFunc === shareIdentity) return;
  if (current) tf.unregisterKernel('Identity', 'wasm');
  tf.registerKernel({ kernelName: 'Identity', backendName: 'wasm', kernelFunc: shareIdentity });
}
