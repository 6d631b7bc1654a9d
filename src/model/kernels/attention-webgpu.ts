/**
 * Multi-head attention as four WGSL programs on the webgpu backend: forward = probabilities
 * (scores, bias, softmax: one workgroup per query row) + Σ p·v; backward = ds = p ⊙ (dp − Σ p·dp)
 * (one workgroup per query row) + dq, dk, dv written side by side into one (B·T, 3C) gradient. The
 * plain per-head formulation (attention.ts) takes ~12 dispatches forward and ~25 backward: SplitV,
 * transposes, batched matmuls, a broadcast bias add, Softmax and their gradients. Same math:
 * q is scaled by 1/√hd before the scores, as the plain path does. Imports tfjs only.
 */
import * as tf from '@tensorflow/tfjs';
import type { Dims } from './kernel-types';
import { runGpuProgram, type Uniform, WG } from './webgpu';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

/** Sizes, and where q, k, v sit in their tensors (row stride, column offset), as the wasm kernels take them. */
type Layout = Omit<Dims, 'scale'>;

const uniforms = (d: Layout): Uniform[] => [
  ...(['T', 'S', 'H', 'hd', 'qs', 'qo', 'ks', 'ko', 'vs', 'vo', 'bbs'] as const).map((k): Uniform => [
    k,
    'i32',
    d[k],
  ]),
  ['scale', 'f32', 1 / Math.sqrt(d.hd)],
];

// Workgroup o is query row (b, h, tq) of the (B, H, T, S) probabilities.
const ROW = `let T = uniforms.T; let S = uniforms.S; let H = uniforms.H; let hd = uniforms.hd;
        let b = o / (H * T);
        let h = (o / T) % H;
        let tq = o % T;
        let prow = o * S;`;

/** p (B, H, T, S) = softmax((q·scale)·kᵀ + bias) per head. Q, K may be one tensor (qkv). */
function probabilities(q: tf.Tensor, k: tf.Tensor, bias: tf.Tensor, d: Layout): tf.Tensor {
  const body = `${ROW}
        let qrow = (b * T + tq) * uniforms.qs + uniforms.qo + h * hd;
        var mx = -3.4e38;
        for (var s = t; live && s < S; s = s + ${WG}) {
          let krow = (b * S + s) * uniforms.ks + uniforms.ko + h * hd;
          var acc = 0.0;
          for (var e = 0; e < hd; e = e + 1) { acc = acc + (Q[qrow + e] * uniforms.scale) * K[krow + e]; }
          let score = acc + Bias[b * uniforms.bbs + tq * S + s];
          result[prow + s] = score;
          mx = max(mx, score);
        }
        let m = wgMax(mx);
        var sum = 0.0;
        for (var s = t; live && s < S; s = s + ${WG}) {
          let x = exp(result[prow + s] - m);
          result[prow + s] = x;
          sum = sum + x;
        }
        let total = wgSum2(sum, 0.0).x;
        for (var s = t; live && s < S; s = s + ${WG}) { result[prow + s] = result[prow + s] / total; }`;
  const rows = d.B * d.H * d.T;
  return runGpuProgram(
    { key: 'attn_p', inputs: ['Q', 'K', 'Bias'], outShape: [d.B, d.H, d.T, d.S], body, groups: rows },
    [q, k, bias],
    uniforms(d),
  );
}

/** y (B·T, H·hd) = Σ_s p·v per head, heads side by side. */
function weightedValues(p: tf.Tensor, v: tf.Tensor, d: Layout): tf.Tensor {
  const body = `let T = uniforms.T; let S = uniforms.S; let H = uniforms.H; let hd = uniforms.hd;
          let C = H * hd;
          let n = index / C;
          let j = index - n * C;
          let b = n / T;
          let h = j / hd;
          let prow = ((b * H + h) * T + (n - b * T)) * S;
          let vcol = uniforms.vo + j;
          var r = 0.0;
          for (var s = 0; s < S; s = s + 1) { r = r + P[prow + s] * V[(b * S + s) * uniforms.vs + vcol]; }`;
  return runGpuProgram(
    { key: 'attn_y', inputs: ['P', 'V'], outShape: [d.B * d.T, d.H * d.hd], body },
    [p, v],
    uniforms(d),
  );
}

/** ds (B, H, T, S) = p ⊙ (dp − Σ_s p·dp), dp = dy·vᵀ per head: the gradient of the (scaled) scores. */
function scoreGrad(qkv: tf.Tensor, p: tf.Tensor, dy: tf.Tensor, d: Layout): tf.Tensor {
  const body = `${ROW}
        let dyrow = (b * T + tq) * H * hd + h * hd;
        var rd = 0.0;
        for (var s = t; live && s < S; s = s + ${WG}) {
          let vrow = (b * S + s) * uniforms.vs + uniforms.vo + h * hd;
          var dp = 0.0;
          for (var e = 0; e < hd; e = e + 1) { dp = dp + Dy[dyrow + e] * X[vrow + e]; }
          result[prow + s] = dp;
          rd = rd + P[prow + s] * dp;
        }
        let rowdot = wgSum2(rd, 0.0).x;
        for (var s = t; live && s < S; s = s + ${WG}) { result[prow + s] = P[prow + s] * (result[prow + s] - rowdot); }`;
  return runGpuProgram(
    {
      key: 'attn_ds',
      inputs: ['X', 'P', 'Dy'],
      outShape: [d.B, d.H, d.T, d.S],
      body,
      groups: d.B * d.H * d.T,
    },
    [qkv, p, dy],
    uniforms(d),
  );
}

/** dqkv (B·T, 3C): dq = scale·ds·k, dk = scale·dsᵀ·q, dv = pᵀ·dy, per head, in qkv's layout (T = S). */
function qkvGrad(qkv: tf.Tensor, p: tf.Tensor, ds: tf.Tensor, dy: tf.Tensor, d: Layout): tf.Tensor {
  const body = `let T = uniforms.T; let H = uniforms.H; let hd = uniforms.hd;
          let C = H * hd;
          let n = index / (3 * C);
          let j = index - n * 3 * C;
          let part = j / C;
          let jj = j - part * C;
          let h = jj / hd;
          let b = n / T;
          let tq = n - b * T;
          let head = (b * H + h) * T;
          var r = 0.0;
          if (part == 0) {
            for (var s = 0; s < T; s = s + 1) { r = r + Ds[(head + tq) * T + s] * X[(b * T + s) * 3 * C + C + jj]; }
            r = r * uniforms.scale;
          } else if (part == 1) {
            for (var s = 0; s < T; s = s + 1) { r = r + Ds[(head + s) * T + tq] * X[(b * T + s) * 3 * C + jj]; }
            r = r * uniforms.scale;
          } else {
            for (var s = 0; s < T; s = s + 1) { r = r + P[(head + s) * T + tq] * Dy[(b * T + s) * C + jj]; }
          }`;
  return runGpuProgram(
    { key: 'attn_dqkv', inputs: ['X', 'P', 'Ds', 'Dy'], outShape: qkv.shape, body },
    [qkv, p, ds, dy],
    uniforms(d),
  );
}

/** Causal (or any additive-bias) self-attention over qkv (B·T, 3C) with bias (B or 1, 1, T, T): (B·T, C). */
export function selfAttentionGpu(qkv: tf.Tensor2D, bias: tf.Tensor4D, B: number, H: number): tf.Tensor2D {
  const [N, C3] = qkv.shape;
  const C = C3 / 3;
  const T = N / B;
  const d: Layout = {
    B,
    T,
    S: T,
    H,
    hd: C / H,
    qs: C3,
    qo: 0,
    ks: C3,
    ko: C,
    vs: C3,
    vo: 2 * C,
    bbs: bias.shape[0] > 1 ? T * T : 0,
  };
  const f = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const p = probabilities(x, x, bias, d);
    save([x, p]);
    const gradFunc = (dy: tf.Tensor, [sx, sp]: tf.Tensor[]) => {
      const ds = scoreGrad(sx, sp, dy, d);
      const grad = qkvGrad(sx, sp, ds, dy, d);
      ds.dispose();
      return [grad];
    };
    return { value: weightedValues(p, x, d), gradFunc };
  }) as unknown as CustomGradientFunc) as (x: tf.Tensor2D) => tf.Tensor2D;
  return f(qkv);
}

/** Queries q (B·T, C) over cached keys and values k, v (B, S, C) with bias (B or 1, 1, T, S): (B·T, C). Forward only. */
export function cachedAttentionGpu(
  q: tf.Tensor2D,
  k: tf.Tensor3D,
  v: tf.Tensor3D,
  bias: tf.Tensor4D,
  H: number,
): tf.Tensor2D {
  const [B, S, C] = k.shape;
  const T = q.shape[0] / B;
  const d: Layout = {
    B,
    T,
    S,
    H,
    hd: C / H,
    qs: C,
    qo: 0,
    ks: C,
    ko: 0,
    vs: C,
    vo: 0,
    bbs: bias.shape[0] > 1 ? T * S : 0,
  };
  return tf.tidy(() => weightedValues(probabilities(q, k, bias, d), v, d) as tf.Tensor2D);
}
