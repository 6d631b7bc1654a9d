/**
 * The sampler's KV-cached forward pass as ONE wasm kernel: embeddings, every block (LayerNorm → qkv →
 * the new keys and values written into the cache in place → attention over the cache → projection →
 * residual → LayerNorm → MLP → residual), the final LayerNorm and the tied head, for T new tokens on
 * each of B rows. A decode step is 64 rows × 1 token: its matmuls take about 2 ms, while as ~75 tfjs
 * ops each paid tens of µs of dispatch (allocation, shape checks, the profiler's hooks) around them.
 * One kernel calls the module's own functions (kernels.wat) in a row instead, on scratch space.
 *
 * Same arithmetic as the ops of gpt.ts's forward on wasm with the fused kernels (the same GEMM, attention,
 * LayerNorm and GELU code, in the same order per element), so the logits are bitwise theirs; two
 * shortcuts only skip work whose result is dropped: the prompt's last block runs its attention output,
 * MLP and residuals on each row's last position only (the cache needs the keys and values of every
 * position, the sampler the logits of the last), and the head runs on those B rows.
 * GPT.forward with a `kv` hook stays the formulation on every other backend, and the reference.
 */
import * as tf from '@tensorflow/tfjs';
import type { GPTConfig } from '../gpt-config';
import { familyEnabled, fusedKernelsAvailable, registerWasmKernel } from './wasm';
import { gemmRows } from './kernel-threads';
import { GELU_A, LN_EPS } from './rowwise';

const NAME = 'AgwCachedForward';

/**
 * inputs: ids, pos (B, T) int32; bias (B or 1, 1, T, S); wteT (C, V); the model's parameters by name;
 * k0, v0, k1, v1, … the caches (B, S, C), written at slots [slot, slot + T) in place.
 * attrs: nLayers, nHeads, slot. → logits (B, V) of each row's last position; without caches in the
 * inputs (the prompt's step) also the new caches, zeroed and then written: [logits, k0, v0, k1, v1, …].
 */
registerWasmKernel(NAME, ({ k, at, out, scratch }, t, { nLayers: L, nHeads: H, slot }) => {
  const [B, T] = t.ids.shape;
  const [V, C] = t.wte.shape;
  const S = t.bias.shape[3];
  const M = t['h0.mlp.w1'].shape[1];
  // Made here rather than by tf.zeros: no JS-side array of the caches' size to fill and copy in.
  const caches = t.k0 ? [] : Array.from({ length: 2 * L }, () => out([B, S, C])); // k0, v0, k1, v1, …
  for (const c of caches) k.zero(at(c), 4 * B * S * C);
  const cache = (l: number, v: 0 | 1) => at(caches[2 * l + v] ?? t[`${v ? 'v' : 'k'}${l}`]);
  const hd = C / H;
  const N = B * T;
  const bbs = t.bias.shape[0] > 1 ? T * S : 0;
  const x = scratch(N * C), tmp = scratch(N * C), qkv = scratch(N * 3 * C), y = scratch(N * C), h = scratch(N * M);
  const mean = scratch(N), rstd = scratch(N), p = scratch(B * H * T * S);
  k.embed(at(t.ids), at(t.pos), at(t.wte), at(t.wpe), x, N, C);
  let rows = N; // rows of x carried on: B·T, then B in the last block
  for (let l = 0; l < L; l++) {
    const w = (name: string) => at(t[`h${l}.${name}`]);
    const kc = cache(l, 0), vc = cache(l, 1);
    k.ln_fwd(x, w('ln1.g'), w('ln1.b'), tmp, mean, rstd, rows, C, LN_EPS);
    gemmRows(k, tmp, w('attn.wqkv'), qkv, rows, C, 3 * C, w('attn.bqkv')); // (rows, 3C): q, k, v side by side
    // Each row's T keys and values to its cache slots (one token per row: all rows in one call).
    for (let b = 0; b < B; b += T === 1 ? B : 1) {
      const [rows, to] = T === 1 ? [B, S * C] : [T, C];
      k.copy_rows(qkv + 4 * (b * T * 3 * C + C), 3 * C, kc + 4 * (b * S + slot) * C, to, rows, C);
      k.copy_rows(qkv + 4 * (b * T * 3 * C + 2 * C), 3 * C, vc + 4 * (b * S + slot) * C, to, rows, C);
    }
    // Last block of a prompt: only each row's last query and residual row are needed from here on.
    const last = l === L - 1 && T > 1;
    if (last) {
      k.copy_rows(x + 4 * (T - 1) * C, T * C, x, C, B, C); // row b·T + T − 1 → row b (never overwrites a later source)
      rows = B;
    }
    const q = last ? qkv + 4 * (T - 1) * 3 * C : qkv;
    k.attn_fwd(q, last ? T * 3 * C : 3 * C, kc, C, vc, C, at(t.bias) + (last ? 4 * (T - 1) * S : 0), bbs, y, p, B, last ? 1 : T, S, H, hd, 1 / Math.sqrt(hd));
    gemmRows(k, y, w('attn.wo'), tmp, rows, C, C, w('attn.bo'));
    k.add(x, x, tmp, rows * C);
    k.ln_fwd(x, w('ln2.g'), w('ln2.b'), tmp, mean, rstd, rows, C, LN_EPS);
    gemmRows(k, tmp, w('mlp.w1'), h, rows, C, M, w('mlp.b1'));
    k.gelu_fwd(h, h, rows * M, GELU_A);
    gemmRows(k, h, w('mlp.w2'), tmp, rows, M, C, w('mlp.b2'));
    k.add(x, x, tmp, rows * C);
  }
  k.ln_fwd(x, at(t['lnf.g']), at(t['lnf.b']), tmp, mean, rstd, B, C, LN_EPS);
  const logits = out([B, V]);
  gemmRows(k, tmp, at(t.wteT), at(logits), B, C, V, 0);
  return caches.length ? [logits, ...caches] : logits;
});

/** Whether the fused decode runs: wasm with the kernel families it is made of switched on. */
export function fusedDecodeAvailable(): boolean {
  return fusedKernelsAvailable('decode') && familyEnabled('attention') && familyEnabled('rowwise') && familyEnabled('matmul');
}

/** What the fused decode reads besides the step's tokens: the weights, the head's wteᵀ, the caches. */
export interface DecodeState {
  config: GPTConfig;
  params: ReadonlyMap<string, tf.Tensor>;
  /** wteᵀ (C, V), made once per sampling call. */
  wteT: tf.Tensor2D;
  /** Per layer (B, S, C), heads side by side, zero where nothing is written yet: made by the first call. */
  keys: tf.Tensor3D[];
  values: tf.Tensor3D[];
}

/**
 * Logits (B, V) of the last of T new tokens per row: ids and pos (B, T) int32 go to cache slots
 * [slot, slot + T), bias (B or 1, 1, T, S) says which of the S cached slots each may see. The first
 * call (the prompt) makes the state's caches; every call writes its tokens' keys and values into them
 * in place. wasm only (fusedDecodeAvailable). The caller disposes the logits, and the caches when done.
 */
export function cachedForward(state: DecodeState, ids: tf.Tensor2D, pos: tf.Tensor2D, bias: tf.Tensor4D, slot: number): tf.Tensor2D {
  const { config, params, wteT, keys, values } = state;
  const inputs: tf.NamedTensorMap = { ids, pos, bias, wteT };
  for (const [name, v] of params) inputs[name] = v;
  keys.forEach((kc, l) => {
    inputs[`k${l}`] = kc;
    inputs[`v${l}`] = values[l];
  });
  const out = tf.engine().runKernel(NAME, inputs, { nLayers: config.nLayers, nHeads: config.nHeads, slot });
  if (!Array.isArray(out)) return out as tf.Tensor2D;
  const [logits, ...caches] = out as tf.Tensor3D[];
  caches.forEach((c, i) => (i % 2 ? values : keys).push(c));
  return logits as unknown as tf.Tensor2D;
}
