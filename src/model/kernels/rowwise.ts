/**
 * Row-wise pieces of the GPT as fused wasm kernels (kernels.wat): LayerNorm and GELU forward and
 * backward, the column sums that are the bias gradients of a linear layer, and xᵀ·dy, the weight
 * gradient, without the transpose (tfjs-wasm transposes x, then packs dy for XNNPACK). Each op here is
 * only called when fusedKernelsAvailable(); layers.ts keeps the plain tfjs formulation for every
 * other backend. On wasm the plain forms cost 9 (LayerNorm) and 4 (GELU) kernels forward and
 * about twice that backward, and Sum over axis 0 transposes first. Imports tfjs only.
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernelsAvailable, registerWasmKernel } from './wasm';
import { geluBwdRows, geluFwdRows, gemmRows, gemmTnRows } from './kernel-threads';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

/** GELU's tanh-form constant, 2√(2/π), and LayerNorm's eps (GPT-2's): the fused and plain forms share them. */
export const GELU_A = 2 * Math.sqrt(2 / Math.PI);
export const LN_EPS = 1e-5;

// x (N, M) → Σ over rows (M)
registerWasmKernel('AgwColSum', ({ k, at, out }, { x }) => {
  const [N, M] = x.shape;
  const y = out([M]);
  k.colsum(at(x), at(y), N, M);
  return y;
});

// x (N, A), dy (N, J) → xᵀ·dy (A, J)
registerWasmKernel('AgwMatMulTN', ({ k, at, out }, { x, dy }) => {
  const [N, A] = x.shape;
  const J = dy.shape[1];
  const y = out([A, J]);
  gemmTnRows(k, at(x), at(dy), at(y), N, A, J);
  return y;
});

// a (M, K), b (K, N), bias (N) or none → a·b + bias (M, N)
registerWasmKernel('AgwMatMul', ({ k, at, out }, { a, b, bias }) => {
  const [M, K] = a.shape;
  const N = b.shape[1];
  const c = out([M, N]);
  gemmRows(k, at(a), at(b), at(c), M, K, N, bias ? at(bias) : 0);
  return c;
});

// x (N, C), g, b (C) → [y (N, C), mean (N), rstd (N)]
registerWasmKernel('AgwLayerNorm', ({ k, at, out }, { x, g, b }) => {
  const [N, C] = x.shape;
  const y = out([N, C]), mean = out([N]), rstd = out([N]);
  k.ln_fwd(at(x), at(g), at(b), at(y), at(mean), at(rstd), N, C, LN_EPS);
  return [y, mean, rstd];
});

// x (N, C), g (C), mean, rstd (N), dy (N, C) → [dx (N, C), dg (C), db (C)]
registerWasmKernel('AgwLayerNormGrad', ({ k, at, out, scratch }, { x, g, mean, rstd, dy }) => {
  const [N, C] = x.shape;
  const dx = out([N, C]), dg = out([C]), db = out([C]);
  k.ln_bwd(at(x), at(g), at(mean), at(rstd), at(dy), at(dx), at(dg), at(db), scratch(C), N, C);
  return [dx, dg, db];
});

// x (any shape) → gelu(x)
registerWasmKernel('AgwGelu', ({ k, at, out }, { x }) => {
  const y = out(x.shape);
  geluFwdRows(k, at(x), at(y), y.shape.reduce((a, d) => a * d, 1), GELU_A);
  return y;
});

// x, dy → dx
registerWasmKernel('AgwGeluGrad', ({ k, at, out }, { x, dy }) => {
  const dx = out(x.shape);
  geluBwdRows(k, at(x), at(dy), at(dx), dx.shape.reduce((a, d) => a * d, 1), GELU_A);
  return dx;
});

const run = (name: string, inputs: tf.NamedTensorMap): tf.Tensor[] => {
  const out = tf.engine().runKernel(name, inputs);
  return Array.isArray(out) ? (out as tf.Tensor[]) : [out as tf.Tensor];
};

/** Σ over rows: (N, M) → (M). wasm only. */
export function colSum(x: tf.Tensor2D): tf.Tensor1D {
  return run('AgwColSum', { x })[0] as tf.Tensor1D;
}

/** xᵀ·dy: (N, A), (N, J) → (A, J); the plain transpose + matMul where the kernel is off. */
export function matMulTN(x: tf.Tensor2D, dy: tf.Tensor2D): tf.Tensor2D {
  if (!fusedKernelsAvailable('gemm')) return tf.matMul(tf.transpose(x), dy);
  return run('AgwMatMulTN', { x, dy })[0] as tf.Tensor2D;
}

/**
 * a·b (+ bias on every row): (M, K), (K, N), (N) → (M, N), by the register-blocked kernel where the
 * matmul family runs, else tf.matMul (XNNPACK on wasm). Not differentiable by itself: layers.ts
 * gives its matmuls their gradients.
 */
export function matMulNN(a: tf.Tensor2D, b: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor2D {
  if (!fusedKernelsAvailable('matmul') || a.shape[0] === 0 || a.shape[1] === 0) return bias ? tf.add(tf.matMul(a, b), bias) : tf.matMul(a, b);
  return run('AgwMatMul', bias ? { a, b, bias } : { a, b })[0] as tf.Tensor2D;
}

/** LayerNorm over the last axis, eps 1e-5, differentiable in x, g and b. wasm only. */
export const layerNormFused = tf.customGrad(((x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  const [y, mean, rstd] = run('AgwLayerNorm', { x, g, b });
  save([x, g, mean, rstd]);
  const gradFunc = (dy: tf.Tensor, [sx, sg, sm, sr]: tf.Tensor[]) => run('AgwLayerNormGrad', { x: sx, g: sg, mean: sm, rstd: sr, dy });
  return { value: y, gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D) => tf.Tensor2D;

/** GELU (tanh form) elementwise, differentiable. wasm only. */
export const geluFused = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x]);
  const gradFunc = (dy: tf.Tensor, [sx]: tf.Tensor[]) => run('AgwGeluGrad', { x: sx, dy });
  return { value: run('AgwGelu', { x })[0], gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D) => tf.Tensor2D;
