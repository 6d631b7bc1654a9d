/**
 * Differentiable building blocks of the GPT that run on every tfjs backend (webgpu, webgl, wasm,
 * cpu): flag-free matmuls with a custom gradient, layer norm, GELU, one-hot embedding lookup.
 * Why flag-free: on wasm a matMul with transposeA/B takes a slow path (docs/backends.md#slow-paths-on-wasm) and
 * autograd's matMul gradient uses those flags. On wasm, weight gradients (xᵀ·dy), linear's bias
 * gradient, layer norm and GELU run as fused SIMD kernels (kernels/rowwise.ts), on webgpu as WGSL
 * programs (kernels/rowwise-webgpu.ts: there GELU only inside mlp); elsewhere they are the
 * plain tfjs ops below.
 * Every function returns a new tensor the caller owns.
 */
import * as tf from '@tensorflow/tfjs';
import {
  colSum,
  gatherRows,
  GELU_A,
  geluFused,
  layerNormFused,
  LN_EPS,
  matMulNN,
  matMulTN,
  mlpFused,
  mlpFusedAvailable,
  transpose2d,
} from './kernels/rowwise';
import { fusedKernelsAvailable } from './kernels/wasm';
import { layerNormGpu, linearGpu, mlpGpu } from './kernels/rowwise-webgpu';
import { webgpuKernelsAvailable } from './kernels/webgpu';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];
type Grad2 = (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor[];

/** aᵀ @ dy, the gradient of b in a @ b: one xᵀ·dy kernel on wasm, a transposed-operand flag on webgpu. */
function weightGrad(a: tf.Tensor, dy: tf.Tensor): tf.Tensor2D {
  return webgpuKernelsAvailable('gemm')
    ? tf.matMul(a as tf.Tensor2D, dy as tf.Tensor2D, true, false)
    : matMulTN(a as tf.Tensor2D, dy as tf.Tensor2D);
}

/**
 * a @ b for 2-D operands with a gradient made of flag-free matmuls on explicitly transposed
 * operands: dA = dy @ bᵀ, dB = aᵀ @ dy (one xᵀ·dy kernel on wasm). Same math as autograd, about 4×
 * faster on wasm. On webgpu the matmul program reads transposed operands itself: the flags save
 * the two Transpose dispatches.
 */
export const matmul = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  const gradFunc: Grad2 = (dy, [sa, sb]) => [
    webgpuKernelsAvailable('gemm')
      ? tf.matMul(dy, sb, false, true)
      : matMulNN(dy as tf.Tensor2D, transpose2d(sb as tf.Tensor2D)),
    weightGrad(sa, dy),
  ];
  return { value: matMulNN(a as tf.Tensor2D, b as tf.Tensor2D), gradFunc };
}) as unknown as CustomGradientFunc) as (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D;

/** Batched a @ b for 3-D operands (N, T, D) @ (N, D, S), flag-free forward and backward. */
export const bmm = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  const gradFunc: Grad2 = (dy, [sa, sb]) => [
    tf.matMul(dy, tf.transpose(sb, [0, 2, 1])), // (N, T, S) @ (N, S, D)
    tf.matMul(tf.transpose(sa, [0, 2, 1]), dy), // (N, D, T) @ (N, T, S)
  ];
  return { value: tf.matMul(a, b), gradFunc };
}) as unknown as CustomGradientFunc) as (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor3D;

/** linear on wasm: the bias added inside the matmul kernel, its gradient one column-sum kernel instead of Transpose + Sum. */
const linearFused = tf.customGrad(((x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x, w]);
  const gradFunc = (dy: tf.Tensor, [sx, sw]: tf.Tensor[]) => [
    matMulNN(dy as tf.Tensor2D, transpose2d(sw as tf.Tensor2D)), // (N, Cout) @ (Cout, Cin)
    matMulTN(sx as tf.Tensor2D, dy as tf.Tensor2D), // (Cin, N) @ (N, Cout)
    colSum(dy as tf.Tensor2D), // (Cout)
  ];
  return { value: matMulNN(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D), gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D) => tf.Tensor2D;

/** x @ w + b on rows: (N, Cin) → (N, Cout). Kept 2-D: BatchMatMul grads don't reduce broadcast dims (docs/backends.md#ops-to-avoid). */
export function linear(x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D): tf.Tensor2D {
  if (webgpuKernelsAvailable('rowwise')) return linearGpu(x, w, b); // (N, Cout)
  if (fusedKernelsAvailable('rowwise')) return linearFused(x, w, b); // (N, Cout)
  return tf.add(matmul(x, w), b); // (N, Cout)
}

/** LayerNorm over the last axis with gain g and bias b, eps 1e-5 as in GPT-2. */
export function layerNorm(x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D): tf.Tensor2D {
  if (webgpuKernelsAvailable('rowwise')) return layerNormGpu(x, g, b); // (N, C)
  if (fusedKernelsAvailable('rowwise')) return layerNormFused(x, g, b); // (N, C)
  const mean = tf.mean(x, -1, true); // (N, 1)
  const xc = tf.sub(x, mean); // (N, C)
  const variance = tf.mean(tf.square(xc), -1, true); // (N, 1)
  return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(variance, LN_EPS))), g), b); // (N, C)
}

/**
 * GELU, tanh approximation (GPT-2's "gelu_new"), written with the identity
 * 0.5·(1 + tanh(z)) = σ(2z): x·σ(2√(2/π)·(x + 0.044715x³)). Same function; on wasm Sigmoid is ~5×
 * faster than Tanh, and folding the constants saves two broadcast scalar ops.
 */
export function gelu(x: tf.Tensor2D): tf.Tensor2D {
  if (fusedKernelsAvailable('rowwise')) return geluFused(x); // (N, M)
  const u = tf.mul(x, tf.add(tf.mul(tf.square(x), GELU_A * 0.044715), GELU_A)); // (N, M): x·(a + a·0.044715·x²), a = GELU_A
  return tf.mul(x, tf.sigmoid(u));
}

/**
 * The transformer block's MLP, gelu(x @ w1 + b1) @ w2 + b2: (N, C) → (N, C) through (N, M). On
 * webgpu its first layer is one WGSL program (matmul, bias and GELU) and GELU's gradient is folded
 * into the program that back-propagates through w2 (kernels/rowwise-webgpu.ts); on wasm it is one
 * GEMM with bias and GELU in its epilogue, which also keeps gelu' for the backward (kernels/rowwise.ts mlpFused).
 */
export function mlp(
  x: tf.Tensor2D,
  w1: tf.Tensor2D,
  b1: tf.Tensor1D,
  w2: tf.Tensor2D,
  b2: tf.Tensor1D,
): tf.Tensor2D {
  if (webgpuKernelsAvailable('rowwise')) return mlpGpu(x, w1, b1, w2, b2); // (N, C)
  if (mlpFusedAvailable() && x.shape[0] > 0) return mlpFused(x, w1, b1, w2, b2); // (N, C)
  return linear(gelu(linear(x, w1, b1)), w2, b2); // (N, C)
}

/**
 * One-hot rows as float32. Cast from the int32 default rather than passing dtype 'float32':
 * tfjs-backend-wasm 4.22's OneHot ignores the dtype and writes int32 bits (1 reads as 1.4e-45).
 */
function oneHot(ids: tf.Tensor1D, depth: number): tf.Tensor2D {
  return tf.cast(tf.oneHot(ids, depth), 'float32') as tf.Tensor2D; // (N, depth)
}

/**
 * Embedding lookup: ids (N) int32, table (K, C) → (N, C). On wasm with the fused kernels a row copy
 * per id, its gradient dy's rows added into the table's (gatherRows). Elsewhere oneHot(ids) @ table:
 * wasm lacks UnsortedSegmentSum, which gather's gradient needs (docs/backends.md#ops-to-avoid), and
 * its Gather is slower than this product at the lab's sizes. Only the table's gradient,
 * oneHot(ids)ᵀ @ dy, is computed: the one-hot's would go nowhere.
 */
export function embed(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  if (fusedKernelsAvailable('rowwise')) return gatherRows(ids, table); // (N, C)
  const lookup = tf.customGrad(((t: tf.Tensor) => ({
    value: matMulNN(oneHot(ids, t.shape[0]), t as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor) => weightGrad(oneHot(ids, t.shape[0]), dy), // (K, C)
  })) as unknown as CustomGradientFunc) as (t: tf.Tensor2D) => tf.Tensor2D;
  return lookup(table); // (N, C)
}

/**
 * The position embeddings added to every row of the batch: x (B, T, C) + p (T, C) → (B, T, C). On
 * wasm p's gradient is one column-sum kernel over dy as (B, T·C) rows: tfjs's own gradient is a Sum
 * over axis 0, which transposes the whole of dy first (1.4 ms of the `small` train step's 240).
 */
export function addPositions(x: tf.Tensor3D, p: tf.Tensor2D): tf.Tensor3D {
  if (!fusedKernelsAvailable('rowwise')) return tf.add(x, p);
  const [B, T, C] = x.shape;
  const add = tf.customGrad(((a: tf.Tensor, b: tf.Tensor) => ({
    value: tf.add(a, b),
    gradFunc: (dy: tf.Tensor) => [
      tf.reshape(dy, [B, T, C]),
      tf.reshape(colSum(tf.reshape(dy, [B, T * C])), [T, C]),
    ],
  })) as unknown as CustomGradientFunc) as (a: tf.Tensor3D, b: tf.Tensor2D) => tf.Tensor3D;
  return add(x, p); // (B, T, C)
}

/** Picks row-wise values[i, idx[i]] as a one-hot dot product (wasm-safe, differentiable). (N, V), (N) → (N) */
export function pick(values: tf.Tensor2D, idx: tf.Tensor1D): tf.Tensor1D {
  return tf.sum(tf.mul(values, oneHot(idx, values.shape[1])), -1); // (N)
}

/**
 * Rows idx of x along its first axis, (N, …) and (R) int32 → (R, …). Its gradient puts dy back in
 * those rows, summed where idx repeats (ScatterNd adds duplicate indices): gather's own gradient
 * needs UnsortedSegmentSum, which wasm lacks (docs/backends.md#ops-to-avoid).
 */
export function takeRows<T extends tf.Tensor>(x: T, idx: tf.Tensor1D): T {
  const shape = x.shape;
  const take = tf.customGrad(((xs: tf.Tensor) => ({
    value: tf.gather(xs, idx),
    gradFunc: (dy: tf.Tensor) => tf.scatterND(tf.reshape(idx, [-1, 1]), dy, shape),
  })) as unknown as CustomGradientFunc);
  return take(x) as T; // (R, …)
}
