/**
 * The GPT's row-wise pieces as WGSL programs on the webgpu backend, each a differentiable op with
 * the fewest dispatches its math allows (docs/figures.md#webgpu-dispatches-and-readbacks: per-dispatch overhead, not the GPU, limits this
 * path). Same formulas and constants as layers.ts's plain tfjs ops; only the summation order of the
 * reductions differs.
 *   LayerNorm: forward 2 dispatches (row stats, normalize), backward 3 (dx, dg, db) — 9 and ~20 plain;
 *   linear: forward 1 (matmul with the bias fused), backward 3 (dx and dW as matmuls with transpose
 *   flags, db as one column sum) — 2 and ~7 plain (explicit transposes, Transpose + Sum for db);
 *   MLP, gelu(x·w1 + b1)·w2 + b2: forward 2 (matmul, bias and GELU in one program; then linear's),
 *   backward 6 (dh through w2 and GELU in one program, then three matmuls and two column sums) —
 *   ~9 and ~24 plain.
 * Imports tfjs only; the backend is reached structurally (webgpu.ts).
 */
import * as tf from '@tensorflow/tfjs';
import { GELU_A, LN_EPS } from './rowwise';
import { runGpuProgram, WG, type Uniform } from './webgpu';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

/** Row statistics of x (N, C): (N, 2) of [mean, 1/√(var + eps)], var the biased variance. */
function lnStats(x: tf.Tensor2D): tf.Tensor2D {
  const [N] = x.shape;
  const body = `let C = uniforms.xShape.y;
        var s = 0.0;
        for (var c = t; live && c < C; c = c + ${WG}) { s = s + X[o * C + c]; }
        let mean = wgSum2(s, 0.0).x / f32(C);
        var q = 0.0;
        for (var c = t; live && c < C; c = c + ${WG}) { let d = X[o * C + c] - mean; q = q + d * d; }
        let variance = wgSum2(q, 0.0).x / f32(C);
        if (live && t == 0) {
          setOutputAtIndex(2 * o, mean);
          setOutputAtIndex(2 * o + 1, inverseSqrt(variance + uniforms.eps));
        }`;
  return runGpuProgram(
    { key: 'ln_stats', inputs: ['X'], outShape: [N, 2], body, groups: N },
    [x],
    [['eps', 'f32', LN_EPS]],
  ) as tf.Tensor2D;
}

/** Σ over rows n of `term` for an (N, M) first input: (M), one workgroup per column; `term` reads `i` = n·M + column. */
function colReduce(key: string, inputs: tf.Tensor[], names: string[], term: string): tf.Tensor1D {
  const shape = `uniforms.${names[0].charAt(0).toLowerCase() + names[0].slice(1)}Shape`; // tfjs's uniform name
  const body = `var s = 0.0;
        for (var n = t; live && n < ${shape}.x; n = n + ${WG}) {
          let i = n * ${shape}.y + o;
          s = s + ${term};
        }
        let total = wgSum2(s, 0.0).x;
        if (live && t == 0) { setOutputAtIndex(o, total); }`;
  const M = inputs[0].shape[1]!;
  return runGpuProgram(
    { key: `colsum_${key}`, inputs: names, outShape: [M], body, groups: M },
    inputs,
  ) as tf.Tensor1D;
}

/** Σ over rows of dy (N, M): the bias gradient of a linear layer. */
function colSumGpu(dy: tf.Tensor2D): tf.Tensor1D {
  return colReduce('dy', [dy], ['Dy'], 'Dy[i]');
}

/** LayerNorm over the last axis (eps 1e-5): forward 2 dispatches, backward 3. */
export const layerNormGpu = tf.customGrad(((
  x: tf.Tensor2D,
  g: tf.Tensor1D,
  b: tf.Tensor1D,
  save: tf.GradSaveFunc,
) => {
  const [N, C] = x.shape;
  const stats = lnStats(x);
  const norm =
    'let n = index / uniforms.xShape.y;\n          let c = index - n * uniforms.xShape.y;\n          let r = (X[index] - S[2 * n]) * S[2 * n + 1] * G[c] + B[c];';
  const y = runGpuProgram({ key: 'ln_y', inputs: ['X', 'S', 'G', 'B'], outShape: [N, C], body: norm }, [
    x,
    stats,
    g,
    b,
  ]);
  save([x, g, stats]);
  const gradFunc = (dy: tf.Tensor, [sx, sg, ss]: tf.Tensor[]) => {
    // dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), dx̂ = dy·g, x̂ = (x − mean)·rstd
    const body = `let C = uniforms.xShape.y;
        var a = 0.0;
        var bb = 0.0;
        let mean = select(0.0, S[2 * o], live);
        let rstd = select(0.0, S[2 * o + 1], live);
        for (var c = t; live && c < C; c = c + ${WG}) {
          let i = o * C + c;
          let d = Dy[i] * G[c];
          a = a + d;
          bb = bb + d * (X[i] - mean) * rstd;
        }
        let sums = wgSum2(a, bb) / f32(C);
        for (var c = t; live && c < C; c = c + ${WG}) {
          let i = o * C + c;
          setOutputAtIndex(i, rstd * (Dy[i] * G[c] - sums.x - (X[i] - mean) * rstd * sums.y));
        }`;
    const dx = runGpuProgram(
      { key: 'ln_dx', inputs: ['X', 'S', 'G', 'Dy'], outShape: [N, C], body, groups: N },
      [sx, ss, sg, dy],
    );
    const dg = colReduce('ln_dg', [dy, sx, ss], ['Dy', 'X', 'S'], 'Dy[i] * (X[i] - S[2 * n]) * S[2 * n + 1]');
    return [dx, dg, colSumGpu(dy as tf.Tensor2D)];
  };
  return { value: y, gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D) => tf.Tensor2D;

// GELU (tanh form) as layers.ts writes it: x·σ(u), u = x·(A + k·x²), k = A·0.044715.
const GELU_UNIFORMS: Uniform[] = [
  ['a', 'f32', GELU_A],
  ['k', 'f32', GELU_A * 0.044715],
];

/**
 * WGSL statements setting `h`, the pre-activation x·w + b at output element `index` of (N, M), one
 * thread per element: a K-term dot product, W read along its rows so that neighbouring threads
 * (neighbouring columns) read neighbouring words.
 */
const preActivation = `let K = uniforms.wShape.x;
          let M = uniforms.wShape.y;
          let n = index / M;
          let c = index - n * M;
          var h = B[c];
          for (var k = 0; k < K; k = k + 1) { h = h + X[n * K + k] * W[k * M + c]; }
          let u = h * (h * h * uniforms.k + uniforms.a);
          let s = 1.0 / (1.0 + exp(-u));`;

/**
 * The transformer block's MLP, gelu(x @ w1 + b1) @ w2 + b2 on rows, (N, C) → (N, C) through (N, M).
 * tfjs's matmul programs take only their own activations (no GELU), so its first layer is a program
 * of its own: matmul, bias and GELU in one dispatch, the second layer one matmul with the bias fused.
 * Backward six dispatches: dh = (dy @ w2ᵀ)·gelu'(h) in one program that recomputes h = x @ w1 + b1
 * (saving h would cost the forward a second output, which a tfjs program has not), then dx, dw1 and
 * dw2 as matmuls with transpose flags and db1, db2 as column sums. Plain tfjs ops: ~9 and ~24.
 */
export const mlpGpu = tf.customGrad(((
  x: tf.Tensor2D,
  w1: tf.Tensor2D,
  b1: tf.Tensor1D,
  w2: tf.Tensor2D,
  b2: tf.Tensor1D,
  save: tf.GradSaveFunc,
) => {
  const hShape = [x.shape[0], w1.shape[1]];
  const forward = `${preActivation}\n          let r = h * s;`;
  const a = runGpuProgram(
    { key: 'linear_gelu', inputs: ['X', 'W', 'B'], outShape: hShape, body: forward },
    [x, w1, b1],
    GELU_UNIFORMS,
  ) as tf.Tensor2D;
  save([x, w1, b1, w2, a]);
  const gradFunc = (dy: tf.Tensor, [sx, sw1, sb1, sw2, sa]: tf.Tensor[]) => {
    // da = dy @ w2ᵀ at (n, c): row n of dy against row c of w2, both Cout long.
    const body = `${preActivation}
          let J = uniforms.w2Shape.y;
          var da = 0.0;
          for (var j = 0; j < J; j = j + 1) { da = da + Dy[n * J + j] * W2[c * J + j]; }
          let du = uniforms.a + 3.0 * uniforms.k * h * h;
          let r = da * (s + h * s * (1.0 - s) * du);`;
    const dh = runGpuProgram(
      { key: 'mlp_dh', inputs: ['X', 'W', 'B', 'Dy', 'W2'], outShape: hShape, body },
      [sx, sw1, sb1, dy, sw2],
      GELU_UNIFORMS,
    ) as tf.Tensor2D;
    return [
      tf.matMul(dh, sw1 as tf.Tensor2D, false, true), // (N, M) @ (C, M)ᵀ
      tf.matMul(sx as tf.Tensor2D, dh, true, false), // (N, C)ᵀ @ (N, M)
      colSumGpu(dh), // (M)
      tf.matMul(sa as tf.Tensor2D, dy as tf.Tensor2D, true, false), // (N, M)ᵀ @ (N, C)
      colSumGpu(dy as tf.Tensor2D), // (C)
    ];
  };
  return { value: tf.fused.matMul({ a, b: w2, bias: b2 }), gradFunc };
}) as unknown as CustomGradientFunc) as (
  x: tf.Tensor2D,
  w1: tf.Tensor2D,
  b1: tf.Tensor1D,
  w2: tf.Tensor2D,
  b2: tf.Tensor1D,
) => tf.Tensor2D;

/** x @ w + b on rows, (N, Cin) → (N, Cout): forward one matmul with the bias fused, backward three dispatches. */
export const linearGpu = tf.customGrad(((
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  b: tf.Tensor1D,
  save: tf.GradSaveFunc,
) => {
  save([x, w]);
  const gradFunc = (dy: tf.Tensor, [sx, sw]: tf.Tensor[]) => [
    tf.matMul(dy as tf.Tensor2D, sw as tf.Tensor2D, false, true), // (N, Cout) @ (Cin, Cout)ᵀ
    tf.matMul(sx as tf.Tensor2D, dy as tf.Tensor2D, true, false), // (N, Cin)ᵀ @ (N, Cout)
    colSumGpu(dy as tf.Tensor2D), // (Cout)
  ];
  return { value: tf.fused.matMul({ a: x, b: w, bias: b }), gradFunc };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D) => tf.Tensor2D;
