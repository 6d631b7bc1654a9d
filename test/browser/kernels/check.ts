/**
 * The fused WebGPU ops against the plain tfjs formulation on the cpu backend: each op's forward and
 * its gradient in every input, at the `nano` preset's real sizes (64 rows × 2 sequences, d 64,
 * MLP 256, 2 heads). Runs wherever tfjs has both backends: the browser test's page (SwiftShader)
 * and, for development, Node with Dawn. Returns max |Δ| per op and output.
 */
import * as tf from '@tensorflow/tfjs';
import { Prng } from '../../../src/core/prng';
import { layerNorm, linear, matmul, mlp } from '../../../src/model/layers';
import { cachedAttention, selfAttention } from '../../../src/model/kernels/attention';
import { MASK } from '../../../src/model/gpt';
import { WEBGPU_FAMILIES, webgpuKernelsAvailable } from '../../../src/model/kernels/webgpu';

/** An op on inputs of fixed values; `grad: false` checks the forward only (decoding's cached attention). */
type Case = { name: string; inputs: number[][]; run: (...xs: tf.Tensor[]) => tf.Tensor; grad?: boolean };

const B = 2;
const T = 64;
const N = B * T;
const C = 64;
const M = 256;
const H = 2;
/** Decoding: one new token per row over S cached positions, the first few masked (left padding). */
const S = 40;

/** (1, 1, T, T) causal additive bias, as GPT.causalBias. */
const causal = () => tf.tensor4d(Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? MASK : 0)), [1, 1, T, T]);
/** (B, 1, 1, S): row b's first 3b positions masked. */
const padded = () => tf.tensor4d(Array.from({ length: B * S }, (_, i) => (i % S < 3 * Math.floor(i / S) ? MASK : 0)), [B, 1, 1, S]);

function randoms(rng: Prng, shape: number[], scale = 1): number[] {
  const n = shape.reduce((a, d) => a * d, 1);
  return Array.from({ length: n }, () => (rng.next() * 2 - 1) * scale);
}

function cases(): { c: Case; shapes: number[][] }[] {
  const rng = new Prng(7);
  const make = (name: string, shapes: number[][], run: Case['run'], scale: number[] = shapes.map(() => 1)) => ({
    c: { name, inputs: shapes.map((s, i) => randoms(rng, s, scale[i])), run },
    shapes,
  });
  return [
    make('layerNorm', [[N, C], [C], [C]], (x, g, b) => layerNorm(x as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D), [3, 1, 1]),
    make('linear', [[N, C], [C, M], [M]], (x, w, b) => linear(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D)),
    // w1 scaled so that h = x·w1 + b1 spans GELU's bend and both tails (|h| up to about 6).
    make('mlp', [[N, C], [C, M], [M], [M, C], [C]], (x, w1, b1, w2, b2) => mlp(x as tf.Tensor2D, w1 as tf.Tensor2D, b1 as tf.Tensor1D, w2 as tf.Tensor2D, b2 as tf.Tensor1D), [1, 0.5, 1, 0.2, 1]),
    make('matmul', [[N, C], [C, M]], (a, b) => matmul(a as tf.Tensor2D, b as tf.Tensor2D)),
    make('selfAttention', [[N, 3 * C]], (qkv) => tf.tidy(() => selfAttention(qkv as tf.Tensor2D, causal(), B, H)), [2]),
    {
      ...make('cachedAttention', [[B, C], [B, S, C], [B, S, C]], (q, k, v) => tf.tidy(() => cachedAttention(q as tf.Tensor2D, k as tf.Tensor3D, v as tf.Tensor3D, padded(), H)), [2, 2, 1]),
      grad: false,
    },
  ].map(({ c, shapes, grad }: { c: Case; shapes: number[][]; grad?: boolean }) => ({ c: { ...c, grad }, shapes }));
}

/** Forward and every input's gradient (dy a fixed random tensor) on the active backend. */
async function evaluate(c: Case, shapes: number[][]): Promise<Float32Array[]> {
  const out = tf.tidy(() => {
    const xs = c.inputs.map((v, i) => tf.tensor(v, shapes[i]));
    const y = c.run(...xs);
    const dy = tf.tensor(randoms(new Prng(11), y.shape), y.shape);
    const grads = c.grad === false ? [] : tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul(c.run(...a), dy)))(xs);
    return [y, ...grads];
  });
  const data = await Promise.all(out.map((t) => t.data() as Promise<Float32Array>));
  tf.dispose(out);
  return data;
}

const maxAbsDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), a.length === b.length ? 0 : Infinity);

export interface KernelCheck {
  /** Max |Δ| per `op/output` (y, then d<input index>) between the backend and cpu. */
  diffs: Record<string, number>;
  /** The kernel families that ran as WGSL programs (all of them, unless switched off). */
  fused: string[];
}

/** Compares each op on `backend` with cpu; throws if `backend` does not start. Leaves `backend` active. */
export async function checkKernels(backend: string): Promise<KernelCheck> {
  const diffs: Record<string, number> = {};
  const use = async (b: string) => {
    if (!(await tf.setBackend(b))) throw new Error(`backend ${b} did not start`);
  };
  for (const { c, shapes } of cases()) {
    await use('cpu');
    const want = await evaluate(c, shapes);
    await use(backend);
    const got = await evaluate(c, shapes);
    got.forEach((g, i) => (diffs[`${c.name}/${i === 0 ? 'y' : `d${i - 1}`}`] = maxAbsDiff(g, want[i])));
  }
  return { diffs, fused: WEBGPU_FAMILIES.filter((f) => webgpuKernelsAvailable(f)) };
}
