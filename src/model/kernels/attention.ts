/**
 * Multi-head attention over head-merged rows, as one fused kernel on the wasm backend and as the
 * plain tfjs formulation everywhere else. On wasm, BatchMatMul with batch > 1 runs ~10× below 2-D
 * matmuls (docs/backends.md#slow-paths-on-wasm) and the per-head path adds SplitV, transposes, a broadcast bias add
 * and Softmax; the fused kernel (f32x4 SIMD on the backend's own heap) does
 * scores → softmax → Σp·v in one pass and its backward in another (kernels.wat). On webgpu the
 * WGSL programs of attention-webgpu.ts run instead. Imports tfjs only.
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernelsAvailable, registerWasmKernel } from './wasm';
import { attnBwdRows, attnFwdRows, kernelParts } from './kernel-threads';
import { bmm } from '../layers';
import { cachedAttentionGpu, selfAttentionGpu } from './attention-webgpu';
import { webgpuKernelsAvailable } from './webgpu';
import type { Dims } from './kernel-types';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

const FWD = 'AgwFusedAttention';
const BWD = 'AgwFusedAttentionGrad';
const CACHE_WRITE = 'AgwCacheWrite';

// inputs q, k, v, bias → [y (B·T, H·hd), p (B·H·T·S)]
registerWasmKernel(FWD, ({ k, at, out }, { q, k: keys, v, bias }, a) => {
  const d = a as unknown as Dims;
  const y = out([d.B * d.T, d.H * d.hd]);
  const p = out([d.B * d.H * d.T * d.S]);
  attnFwdRows(
    k,
    { q: at(q, d.qo), k: at(keys, d.ko), v: at(v, d.vo), bias: at(bias), y: at(y), p: at(p) },
    d,
  );
  return [y, p];
});

// inputs qkv (B·T, 3C) — q, k, v side by side, T = S — p, dy (B·T, C) → dqkv (B·T, 3C)
registerWasmKernel(BWD, ({ k, at, out, scratch }, { qkv, p, dy }, a) => {
  const d = a as unknown as Dims;
  const C3 = 3 * d.H * d.hd;
  const grad = out([d.B * d.T, C3]);
  k.zero(at(grad), 4 * d.B * d.T * C3);
  attnBwdRows(
    k,
    {
      q: at(qkv, d.qo),
      k: at(qkv, d.ko),
      v: at(qkv, d.vo),
      p: at(p),
      dy: at(dy),
      dq: at(grad, d.qo),
      dk: at(grad, d.ko),
      dv: at(grad, d.vo),
      tmp: scratch((d.S + 2 * d.T * d.S) * kernelParts()),
    },
    d,
    C3,
  );
  return grad;
});

// cache (B, S, C), x (B, 1, C), attr slot → cache's own buffer with x written at `slot`, in place: the
// caller gives the old cache tensor up (writeCacheSlot). Per row one copy of C floats, instead of two
// passes over the whole (B, S, C) cache.
registerWasmKernel(CACHE_WRITE, ({ be, at, heap: floats }, { cache, x }, { slot }) => {
  const [B, S, C] = cache.shape;
  const heap = floats();
  const c0 = at(cache) / 4,
    x0 = at(x) / 4;
  for (let b = 0; b < B; b++) heap.copyWithin(c0 + (b * S + slot) * C, x0 + b * C, x0 + (b + 1) * C);
  be.incRef(cache.dataId);
  return { dataId: cache.dataId, shape: cache.shape, dtype: 'float32' };
});

/**
 * The KV cache after writing x (B, 1, C) at slot `slot` of cache (B, S, C), whose slot is still zero.
 * On wasm the write is in place and the result shares the cache's buffer, so the caller must dispose
 * the old cache tensor and never read it again (the sampler does); elsewhere it is
 * cache + x·onehot(slot), a new tensor.
 */
export function writeCacheSlot(cache: tf.Tensor3D, x: tf.Tensor3D, slot: number): tf.Tensor3D {
  const [, S] = cache.shape;
  if (fusedKernelsAvailable('attention'))
    return tf.engine().runKernel(CACHE_WRITE, { cache, x }, { slot }) as tf.Tensor3D;
  return tf.tidy(() => {
    const hot = new Float32Array(S);
    hot[slot] = 1;
    return tf.add(cache, tf.mul(x, tf.tensor3d(hot, [1, S, 1]))); // (B, S, C)
  });
}

/** The plain formulation: q (B·T, C), k and v (B, S, C), bias (B or 1, 1, T, S) → (B·T, C). */
function attentionPlain(
  q: tf.Tensor2D,
  k: tf.Tensor3D,
  v: tf.Tensor3D,
  bias: tf.Tensor4D,
  H: number,
): tf.Tensor2D {
  const [B, S, C] = k.shape;
  const T = q.shape[0] / B;
  const hd = C / H;
  return tf.tidy(() => {
    // Scale q rather than the (T, S) scores: fewer elements.
    const qh = tf.reshape<tf.Rank.R3>(
      tf.transpose(tf.reshape(tf.mul(q, 1 / Math.sqrt(hd)), [B, T, H, hd]), [0, 2, 1, 3]),
      [B * H, T, hd],
    ); // (B*H, T, hd)
    const kT = tf.reshape<tf.Rank.R3>(tf.transpose(tf.reshape(k, [B, S, H, hd]), [0, 2, 3, 1]), [
      B * H,
      hd,
      S,
    ]); // (B*H, hd, S)
    const vh = tf.reshape<tf.Rank.R3>(tf.transpose(tf.reshape(v, [B, S, H, hd]), [0, 2, 1, 3]), [
      B * H,
      S,
      hd,
    ]); // (B*H, S, hd)
    const scores = bmm(qh, kT); // (B*H, T, S)
    const att = tf.softmax(tf.add(tf.reshape(scores, [B, H, T, S]), bias)); // (B, H, T, S)
    const y = bmm(tf.reshape<tf.Rank.R3>(att, [B * H, T, S]), vh); // (B*H, T, hd)
    return tf.reshape(tf.transpose(tf.reshape(y, [B, H, T, hd]), [0, 2, 1, 3]), [B * T, C]); // (B*T, C)
  });
}

/**
 * Causal (or any additive-bias) self-attention over qkv (B·T, 3C) — q, k, v side by side as the fused
 * projection makes them — with bias (B or 1, 1, T, T): (B·T, C), differentiable in qkv.
 */
export function selfAttention(qkv: tf.Tensor2D, bias: tf.Tensor4D, B: number, H: number): tf.Tensor2D {
  if (webgpuKernelsAvailable('attention')) return selfAttentionGpu(qkv, bias, B, H);
  const [N, C3] = qkv.shape;
  const C = C3 / 3;
  const T = N / B;
  if (!fusedKernelsAvailable('attention')) {
    return tf.tidy(() => {
      const [q, k, v] = tf.split(qkv, 3, 1); // 3 × (B*T, C)
      return attentionPlain(q as tf.Tensor2D, tf.reshape(k, [B, T, C]), tf.reshape(v, [B, T, C]), bias, H);
    });
  }
  const hd = C / H;
  const dims: Dims = {
    B,
    T,
    S: T,
    H,
    hd,
    scale: 1 / Math.sqrt(hd),
    qs: C3,
    qo: 0,
    ks: C3,
    ko: C,
    vs: C3,
    vo: 2 * C,
    bbs: bias.shape[0] > 1 ? T * T : 0,
  };
  const attrs = dims as unknown as tf.NamedAttrMap;
  const f = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const [y, p] = tf.engine().runKernel(FWD, { q: x, k: x, v: x, bias }, attrs) as tf.Tensor[];
    save([x, p]);
    const gradFunc = (dy: tf.Tensor, [sx, sp]: tf.Tensor[]) => [
      tf.engine().runKernel(BWD, { qkv: sx, p: sp, dy }, attrs) as tf.Tensor,
    ];
    return { value: y, gradFunc };
  }) as unknown as CustomGradientFunc) as (x: tf.Tensor2D) => tf.Tensor2D;
  return f(qkv);
}

/**
 * Attention of new queries q (B·T, C) over cached keys and values k, v (B, S, C) with bias
 * (B or 1, 1, T, S): (B·T, C). Not differentiable on wasm (decoding only needs the forward).
 */
export function cachedAttention(
  q: tf.Tensor2D,
  k: tf.Tensor3D,
  v: tf.Tensor3D,
  bias: tf.Tensor4D,
  H: number,
): tf.Tensor2D {
  if (webgpuKernelsAvailable('attention')) return cachedAttentionGpu(q, k, v, bias, H);
  if (!fusedKernelsAvailable('attention')) return attentionPlain(q, k, v, bias, H);
  const [B, S, C] = k.shape;
  const T = q.shape[0] / B;
  const hd = C / H;
  const dims: Dims = {
    B,
    T,
    S,
    H,
    hd,
    scale: 1 / Math.sqrt(hd),
    qs: C,
    qo: 0,
    ks: C,
    ko: 0,
    vs: C,
    vo: 0,
    bbs: bias.shape[0] > 1 ? T * S : 0,
  };
  const [y, p] = tf
    .engine()
    .runKernel(FWD, { q, k, v, bias }, dims as unknown as tf.NamedAttrMap) as tf.Tensor[];
  p.dispose();
  return y as tf.Tensor2D;
}
