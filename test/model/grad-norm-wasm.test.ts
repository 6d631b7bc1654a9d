// The global gradient norm as one wasm kernel (grad-norm-wasm.ts): the bits of tfjs's Square, Sum,
// AddN and Sqrt on wasm (the kernels off), within float rounding of the cpu backend's (which sums
// in f64), in both SIMD modules, in one tfjs kernel, and without leaking tensors.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalNorm } from '../../src/model/grad-norm';
import { fusedKernelsAvailable, setFusedKernels, setRelaxedSimd } from '../../src/model/kernels/wasm';
import { enableRelaxedSimd } from '../../src/backends/relaxed-simd-node';
import { Prng } from '../../src/core/prng';
import { useBackend } from './helpers';

/** `count` gradients of assorted shapes (sizes not multiples of 4 among them), values over 6 decades. */
function grads(count: number, seed: number): { data: Float32Array; shape: number[] }[] {
  const rng = new Prng(seed);
  const shapes = [[1], [3], [5, 7], [128], [33, 17], [2, 3, 5], [64, 48], [0]];
  return Array.from({ length: count }, (_, i) => {
    const shape = shapes[(i * 5 + seed) % shapes.length];
    const n = shape.reduce((a, d) => a * d, 1);
    const scale = 10 ** (rng.next() * 6 - 4);
    return { data: Float32Array.from({ length: n }, () => (rng.next() * 2 - 1) * scale), shape };
  });
}

/** globalNorm on the current backend, and how many tfjs kernels it ran. */
async function normOf(
  gs: { data: Float32Array; shape: number[] }[],
): Promise<{ norm: number; kernels: number }> {
  const ts = gs.map((g) => tf.tensor(g.data, g.shape, 'float32'));
  const before = tf.memory().numTensors;
  const profile = await tf.profile(() => globalNorm(ts));
  const norm = profile.result as tf.Scalar;
  const value = (await norm.data())[0];
  norm.dispose();
  expect(tf.memory().numTensors).toBe(before);
  tf.dispose(ts);
  return { norm: value, kernels: profile.kernels.length };
}

enableRelaxedSimd();

describe.each(['relaxed', 'plain'])('the global norm as one wasm kernel (%s SIMD)', (flavour) => {
  beforeAll(async () => {
    setRelaxedSimd(flavour === 'relaxed');
    await useBackend('wasm');
  });
  afterAll(async () => {
    setFusedKernels(true);
    setRelaxedSimd(true);
    await useBackend('cpu');
  });

  for (const [count, seed] of [
    [1, 1],
    [2, 2],
    [7, 3],
    [8, 4],
    [28, 5],
    [50, 6],
  ])
    it(`${count} gradients: the plain ops' bits on wasm, cpu's value within rounding`, async () => {
      const gs = grads(count, seed);
      await useBackend('wasm');
      expect(fusedKernelsAvailable('adamw')).toBe(true);
      const fused = await normOf(gs);
      expect(fused.kernels).toBe(1);
      setFusedKernels(false, ['adamw']);
      const plain = await normOf(gs);
      setFusedKernels(true, ['adamw']);
      expect(plain.kernels).toBeGreaterThan(1);
      expect(fused.norm).toBe(plain.norm); // the same f32 operations in the same order
      await useBackend('cpu');
      const cpu = await normOf(gs);
      expect(Math.abs(fused.norm - cpu.norm) / cpu.norm).toBeLessThan(1e-5);
    });
});
