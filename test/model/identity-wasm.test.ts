// tf.clone on the wasm backend shares the input's buffer (identity-wasm.ts), as on cpu: same heap
// address, one buffer's worth of memory, and each tensor stays readable after the other is freed.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { fusedKernelsAvailable } from '../../src/model/kernels/wasm';
import type { WasmBackendLike } from '../../src/model/kernels/kernel-types';

describe('Identity on wasm', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(fusedKernelsAvailable()).toBe(true); // binds the kernels, which puts the sharing Identity in
  });

  it('clones without copying, and the clone outlives its source', async () => {
    const be = tf.backend() as unknown as WasmBackendLike;
    const x = tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3]);
    const buffers = (tf.memory() as { numDataBuffers: number }).numDataBuffers;
    const y = tf.clone(x);
    expect(be.getMemoryOffset(y.dataId)).toBe(be.getMemoryOffset(x.dataId));
    expect((tf.memory() as { numDataBuffers: number }).numDataBuffers).toBe(buffers); // no new buffer
    x.dispose();
    expect(Array.from(await y.data())).toEqual([1, 2, 3, 4, 5, 6]);
    y.dispose();
  });

  it("gives a custom gradient's saved inputs without copies and the same gradient as cpu", async () => {
    const f = (a: tf.Tensor2D, b: tf.Tensor2D) => tf.sum(tf.mul(tf.matMul(a, b), tf.matMul(a, b)));
    const a = [0.5, -1, 2, 0.25, 1.5, -0.75];
    const b = [1, 0.5, -2, 0.1, 0.3, -0.4];
    const grads = async () => {
      const [ga, gb] = tf.grads((p: tf.Tensor, q: tf.Tensor) => f(p as tf.Tensor2D, q as tf.Tensor2D))([
        tf.tensor2d(a, [2, 3]),
        tf.tensor2d(b, [3, 2]),
      ]);
      return [...(await ga.data()), ...(await gb.data())];
    };
    const onWasm = await grads();
    await tf.setBackend('cpu');
    const onCpu = await grads();
    await tf.setBackend('wasm');
    for (const [i, v] of onWasm.entries()) expect(v).toBeCloseTo(onCpu[i], 5);
  });
});
