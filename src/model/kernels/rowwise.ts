/**
 * Row-wise pieces of the GPT as fused wasm kernels (kernels.wat): LayerNorm and GELU forward and
 * backward, the column sums that are the bias gradients of a linear layer, xᵀ·dy, the weight
 * gradient, without the transpose (tfjs-wasm transposes x, then packs dy for XNNPACK), and the MLP
 * with its first layer's bias and GELU in the GEMM's epilogue. Each op here is
 * only called when fusedKernelsAvailable(); layers.ts keeps the plain tfjs formulation for every
 * other backend. On wasm the plain forms cost 9 (LayerNorm) and 4 (GELU) kernels forward and
 * about twice that backward, and Sum over axis 0 transposes first. Imports tfjs only.
 */
import * as tf from '@tensorflow/tfjs';
import { EPILOGUE, fusedKernelsAvailable, registerWasmKernel } from './wasm';
import { geluBwdRows, geluFwdRows, gemmEpRows, gemmRows, gemmTnRows, kernelParts } from './kernel-threads';
import { gemmTnScratchFloats } from './gemm-tile';

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

// x (R, C) → xᵀ (C, R)
registerWasmKernel('AgwTranspose', ({ k, at, out }, { x }) => {
  const [R, C] = x.shape;
  const y = out([C, R]);
  k.transpose(at(x), at(y), R, C);
  return y;
});

// ids (N) int32, table (V, C) → its rows ids (N, C)
registerWasmKernel('AgwGatherRows', ({ k, at, out }, { ids, table }) => {
  const [V, C] = table.shape;
  const N = ids.shape[0];
  const y = out([N, C]);
  k.gather_rows(at(ids), at(table), at(y), N, C, V);
  return y;
});

// ids (N) int32, dy (N, C), attr V → dy's rows summed into rows ids of a (V, C) zero table
registerWasmKernel('AgwScatterAddRows', ({ k, at, out }, { ids, dy }, { V }) => {
  const [N, C] = dy.shape;
  const y = out([V, C]);
  k.scatter_add_rows(at(ids), at(dy), at(y), N, C, V);
  return y;
});

// z (N, V), targets (N) int32 → [lpH (2, N): the target's log-probability, then the entropy;
// p (N, V), the softmax; ml (N), the log of each row's denominator plus its max]
registerWasmKernel('AgwLogSoftmaxPick', ({ k, at, out }, { z, targets }) => {
  const [N, V] = z.shape;
  const lpH = out([2, N]),
    p = out([N, V]),
    ml = out([N]);
  k.log_softmax_pick(at(z), at(targets), at(p), at(ml), at(lpH), at(lpH) + 4 * N, N, V);
  return [lpH, p, ml];
});

// AgwLogSoftmaxPick's inputs and outputs, dy (2, N) → dz (N, V)
registerWasmKernel('AgwLogSoftmaxPickGrad', ({ k, at, out }, { z, targets, p, ml, lpH, dy }) => {
  const [N, V] = z.shape;
  const dz = out([N, V]);
  k.log_softmax_pick_grad(
    at(z),
    at(targets),
    at(p),
    at(ml),
    at(lpH) + 4 * N,
    at(dy),
    at(dy) + 4 * N,
    at(dz),
    N,
    V,
  );
  return dz;
});

// x (N, A), dy (N, J) → xᵀ·dy (A, J)
registerWasmKernel('AgwMatMulTN', ({ k, at, out, scratch }, { x, dy }) => {
  const [N, A] = x.shape;
  const J = dy.shape[1];
  const y = out([A, J]);
  gemmTnRows(k, at(x), at(dy), at(y), N, A, J, scratch(gemmTnScratchFloats(J) * kernelParts()));
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

// x (N, C), w (C, M), b (M) → [gelu(h), gelu'(h)] (N, M), h = x·w + b: the MLP's first layer (mlpFused)
registerWasmKernel('AgwMatMulGelu', ({ k, at, out }, { a, b, bias }) => {
  const [M, K] = a.shape;
  const N = b.shape[1];
  const c = out([M, N]),
    d = out([M, N]);
  gemmEpRows(k, at(a), at(b), at(c), M, K, N, at(bias), at(d), EPILOGUE.geluAndGrad, GELU_A);
  return [c, d];
});

// x (N, C), g, b (C) → [y (N, C), mean (N), rstd (N)]
registerWasmKernel('AgwLayerNorm', ({ k, at, out }, { x, g, b }) => {
  const [N, C] = x.shape;
  const y = out([N, C]),
    mean = out([N]),
    rstd = out([N]);
  k.ln_fwd(at(x), at(g), at(b), at(y), at(mean), at(rstd), N, C, LN_EPS);
  return [y, mean, rstd];
});

// x (N, C), g (C), mean, rstd (N), dy (N, C) → [dx (N, C), dg (C), db (C)]
registerWasmKernel('AgwLayerNormGrad', ({ k, at, out, scratch }, { x, g, mean, rstd, dy }) => {
  const [N, C] = x.shape;
  const dx = out([N, C]),
    dg = out([C]),
    db = out([C]);
  k.ln_bwd(at(x), at(g), at(mean), at(rstd), at(dy), at(dx), at(dg), at(db), scratch(C), N, C);
  return [dx, dg, db];
});

// x (any shape) → gelu(x)
registerWasmKernel('AgwGelu', ({ k, at, out }, { x }) => {
  const y = out(x.shape);
  geluFwdRows(
    k,
    at(x),
    at(y),
    y.shape.reduce((a, d) => a * d, 1),
    GELU_A,
  );
  return y;
});

// x, dy → dx
registerWasmKernel('AgwGeluGrad', ({ k, at, out }, { x, dy }) => {
  const dx = out(x.shape);
  geluBwdRows(
    k,
    at(x),
    at(dy),
    at(dx),
    dx.shape.reduce((a, d) => a * d, 1),
    GELU_A,
  );
  return dx;
});

const run = (name: string, inputs: tf.NamedTensorMap, attrs: tf.NamedAttrMap = {}): tf.Tensor[] => {
  const out = tf.engine().runKernel(name, inputs, attrs);
  return Array.isArray(out) ? (out as tf.Tensor[]) : [out as tf.Tensor];
};

/** Σ over rows: (N, M) → (M). wasm only. */
export function colSum(x: tf.Tensor2D): tf.Tensor1D {
  return run('AgwColSum', { x })[0] as tf.Tensor1D;
}

/**
 * Rows ids of table, (N) int32, (V, C) → (N, C), differentiable in table: its gradient adds dy's
 * rows into the rows ids, the same sums as the one-hot matmul's xᵀ·dy without the products by 0
 * (a lookup of `small`'s 4096 tokens: 1.8 ms as a one-hot matmul, 1.9 ms its gradient). wasm only.
 */
export function gatherRows(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  const V = table.shape[0];
  const lookup = tf.customGrad(((t: tf.Tensor) => ({
    value: run('AgwGatherRows', { ids, table: t })[0],
    gradFunc: (dy: tf.Tensor) => run('AgwScatterAddRows', { ids, dy }, { V })[0],
  })) as unknown as CustomGradientFunc) as (t: tf.Tensor2D) => tf.Tensor2D;
  return lookup(table); // (N, C)
}

/**
 * Per row of logits z (N, V): the target's log-probability under log-softmax(z) and the entropy of
 * softmax(z), (N) each, differentiable in z, in one kernel each way (tfjs's LogSoftmax, a one-hot
 * pick and the entropy's ops were 14). A target outside [0, V) picks 0, as its one-hot row did.
 * wasm only.
 */
export function logSoftmaxPick(
  z: tf.Tensor2D,
  targets: tf.Tensor1D,
): { logp: tf.Tensor1D; entropy: tf.Tensor1D } {
  const scores = tf.customGrad(((zz: tf.Tensor, save: tf.GradSaveFunc) => {
    const [lpH, p, ml] = run('AgwLogSoftmaxPick', { z: zz, targets });
    save([zz, p, ml, lpH]);
    const gradFunc = (dy: tf.Tensor, [sz, sp, sml, slpH]: tf.Tensor[]) =>
      run('AgwLogSoftmaxPickGrad', { z: sz, targets, p: sp, ml: sml, lpH: slpH, dy })[0];
    return { value: lpH, gradFunc };
  }) as unknown as CustomGradientFunc) as (z: tf.Tensor2D) => tf.Tensor2D;
  const [logp, entropy] = tf.unstack(scores(z)) as tf.Tensor1D[]; // (N) each
  return { logp, entropy };
}

/**
 * xᵀ for a matrix, (R, C) → (C, R), differentiable: on wasm with the fused kernels 4 × 4 blocks of
 * shuffles (the weights' transposes of the `small` train step: 2.2 ms as tfjs's Transpose), else
 * tf.transpose.
 */
export function transpose2d(x: tf.Tensor2D): tf.Tensor2D {
  if (!fusedKernelsAvailable('rowwise')) return tf.transpose(x);
  const t = tf.customGrad(((a: tf.Tensor) => ({
    value: run('AgwTranspose', { x: a })[0],
    gradFunc: (dy: tf.Tensor) => run('AgwTranspose', { x: dy })[0],
  })) as unknown as CustomGradientFunc) as (a: tf.Tensor2D) => tf.Tensor2D;
  return t(x); // (C, R)
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
  if (!fusedKernelsAvailable('matmul') || a.shape[0] === 0 || a.shape[1] === 0)
    return bias ? tf.add(tf.matMul(a, b), bias) : tf.matMul(a, b);
  return run('AgwMatMul', bias ? { a, b, bias } : { a, b })[0] as tf.Tensor2D;
}

/** LayerNorm over the last axis, eps 1e-5, differentiable in x, g and b. wasm only. */
export const layerNormFused = tf.customGrad(((
  x: tf.Tensor,
  g: tf.Tensor,
  b: tf.Tensor,
  save: tf.GradSaveFunc,
) => {
  const [y, mean, rstd] = run('AgwLayerNorm', { x, g, b });
  save([x, g, mean, rstd]);
  const gradFunc = (dy: tf.Tensor, [sx, sg, sm, sr]: tf.Tensor[]) =>
    run('AgwLayerNormGrad', { x: sx, g: sg, mean: sm, rstd: sr, dy });
  return { value: y, gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D) => tf.Tensor2D;

/** GELU (tanh form) elementwise, differentiable. wasm only. */
export const geluFused = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x]);
  const gradFunc = (dy: tf.Tensor, [sx]: tf.Tensor[]) => run('AgwGeluGrad', { x: sx, dy });
  return { value: run('AgwGelu', { x })[0], gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D) => tf.Tensor2D;

/** Whether mlpFused runs: its own family, and the rowwise and matmul kernels its backward and w2 use. */
export const mlpFusedAvailable = (): boolean =>
  fusedKernelsAvailable('mlp') && fusedKernelsAvailable('rowwise') && fusedKernelsAvailable('matmul');

/**
 * The MLP, gelu(x·w1 + b1)·w2 + b2, differentiable; wasm only (mlpFusedAvailable).
 * Its first layer is one GEMM whose epilogue adds b1 and applies GELU to each group of rows while
 * they are in L1 (kernels.wat gemm_ep, mode 2). What the forward keeps, measured on the MLP alone at
 * `small`'s shape (4096 × 128 → 512, forward + backward, process CPU time, 2-core machine under load,
 * /tmp script not kept): g = gelu(h), for w2's gradient, and gelu'(h), not h. The backward then only
 * multiplies dg by gelu'(h); gelu'(h) costs the forward about 2 ms (a few multiply-adds on the σ it
 * already has) and saves the backward GELU's second exp (unfused 141 ms; h kept, gelu' recomputed
 * in the backward 142 ms; gelu'(h) kept 132 ms). Folding that product into the epilogue of the GEMM
 * that makes dg (dy·w2ᵀ) measured no faster (129.7 against 127.5 ms for tfjs's Multiply after it:
 * the exp, not memory traffic, is what costs here), so the backward keeps them apart.
 */
export const mlpFused = tf.customGrad(((
  x: tf.Tensor,
  w1: tf.Tensor,
  b1: tf.Tensor,
  w2: tf.Tensor,
  b2: tf.Tensor,
  save: tf.GradSaveFunc,
) => {
  const [g, dg] = run('AgwMatMulGelu', { a: x, b: w1, bias: b1 }) as tf.Tensor2D[]; // (N, M): gelu(h), gelu'(h)
  save([x, w1, w2, g, dg]);
  const gradFunc = (dy: tf.Tensor, [sx, sw1, sw2, sg, sdg]: tf.Tensor[]) => {
    const dh = tf.mul(matMulNN(dy as tf.Tensor2D, transpose2d(sw2 as tf.Tensor2D)), sdg) as tf.Tensor2D; // (N, M): (dy·w2ᵀ) ⊙ gelu'(h)
    return [
      matMulNN(dh, transpose2d(sw1 as tf.Tensor2D)), // (N, C)
      matMulTN(sx as tf.Tensor2D, dh), // (C, M)
      colSum(dh), // (M)
      matMulTN(sg as tf.Tensor2D, dy as tf.Tensor2D), // (M, C)
      colSum(dy as tf.Tensor2D), // (C)
    ];
  };
  return { value: matMulNN(g, w2 as tf.Tensor2D, b2 as tf.Tensor1D), gradFunc };
}) as unknown as CustomGradientFunc) as (
  x: tf.Tensor2D,
  w1: tf.Tensor2D,
  b1: tf.Tensor1D,
  w2: tf.Tensor2D,
  b2: tf.Tensor1D,
) => tf.Tensor2D;
