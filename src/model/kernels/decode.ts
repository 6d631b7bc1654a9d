/**
 * The sampler's KV-cached forward pass as ONE wasm kernel: embeddings, every block (LayerNorm → qkv →
 * the new keys and values written into the cache in place → attention over the cache → projection →
 * residual → LayerNorm → MLP → residual), the final LayerNorm and the tied head, for T new tokens on
 * each of B rows. A decode step is 64 rows × 1 token: its matmuls take about 2 ms, while as ~75 tfjs
 * ops each paid tens of µs of dispatch (allocation, shape checks, the profiler's hooks) around them.
 * One kernel calls the module's own functions (kernels.wat) in a row instead, on scratch space; its
 * GEMMs, attention and GELU split over the kernel threads where a page runs more than one (kernel-threads.ts).
 *
 * Same arithmetic as the ops of gpt.ts's forward on wasm with the fused kernels (the same GEMM, attention,
 * LayerNorm and GELU code, in the same order per element), so the logits are bitwise theirs; the
 * shortcuts only skip work whose result is dropped: the prompt's last block computes queries, attention
 * output, MLP and residuals for each row's last position only (the cache needs the keys and values of
 * every position, the sampler the logits of the last), the head runs on those rows, and a prompt
 * shared by several rows is computed once.
 * GPT.forward with a `kv` hook stays the formulation on every other backend, and the reference.
 */
import * as tf from '@tensorflow/tfjs';
import type { GPTConfig } from '../../core/gpt-config';
import { EPILOGUE, familyEnabled, fusedKernelsAvailable, registerWasmKernel } from './wasm';
import { attnFwdRows, geluFwdRows, gemmEpRows, gemmRows } from './kernel-threads';
import { GELU_A, LN_EPS } from './rowwise';

const NAME = 'AgwCachedForward';

/**
 * The caches are laid out (B·H, S, hd): one head's keys of one row contiguous, so attention reads each
 * (row, head) as one 6 KB run the prefetcher follows, instead of 128-byte pieces 512 bytes apart (a
 * quarter less time with the caches out of cache, where they are at every step).
 *
 * The prompt's call: ids, pos (U, T) int32 and bias (U or 1, 1, T, T) of the U distinct prompts, rowOf
 * (B) int32, the distinct prompt of each of the B rows (absent: U = B, row b is prompt b), wteT (C, V),
 * the model's parameters by name; attrs nLayers, nHeads, S (cache slots) → [logits (B, V), k0, v0, k1,
 * v1, …]: the caches, made here (zeroed on the heap: no JS array of their size), hold each row's prompt
 * keys and values at slots [0, T), and attention runs over those T keys as the prompt's forward does.
 * A prompt repeated G times (a GRPO group's first turn) is computed once and copied to its G rows.
 * Each later call: one token per row, ids, pos (B, 1), bias (B or 1, 1, 1, S), the caches k0, v0, … as
 * inputs, written at `slot` in place, attr slot → logits (B, V).
 */
registerWasmKernel(NAME, ({ k, at, out, scratch, heap }, t, { nLayers: L, nHeads: H, slot, S: slots }) => {
  const [U, T] = t.ids.shape; // distinct prompts (the prompt's call) or rows
  const rowOf = t.rowOf
    ? Int32Array.from(new Int32Array(heap().buffer, at(t.rowOf), t.rowOf.shape[0]))
    : Int32Array.from({ length: U }, (_, b) => b);
  const B = rowOf.length;
  const [V, C] = t.wte.shape;
  const prompt = !t.k0;
  const S = prompt ? slots : t.k0.shape[1];
  if (!prompt && T !== 1)
    throw new Error(`${NAME}: a call after the prompt takes one token per row, not ${T}`);
  const M = t['h0.mlp.w1'].shape[1];
  const hd = C / H;
  const N = U * T;
  const caches = prompt ? Array.from({ length: 2 * L }, () => out([B * H, S, hd])) : []; // k0, v0, k1, v1, …
  for (const c of caches) k.zero(at(c), 4 * B * S * C);
  const cache = (l: number, v: 0 | 1) => at(caches[2 * l + v] ?? t[`${v ? 'v' : 'k'}${l}`]);
  const x = scratch(N * C),
    tmp = scratch(N * C),
    qkv = scratch(N * 3 * C),
    y = scratch(N * C),
    h = scratch(N * M);
  const mean = scratch(N),
    rstd = scratch(N),
    p = scratch(U * H * T * (prompt ? T : S));
  // One bias row per (row, head) for the step's attention over the (B·H, S, hd) caches.
  let bias = at(t.bias),
    bbs = t.bias.shape[0] > 1 ? T * t.bias.shape[3] : 0;
  if (!prompt && bbs) {
    const rowHead = scratch(B * H * S);
    for (let i = 0; i < H; i++) k.copy_rows(bias, S, rowHead + 4 * i * S, H * S, B, S);
    [bias, bbs] = [rowHead, S];
  }
  k.embed(at(t.ids), at(t.pos), at(t.wte), at(t.wpe), x, N, C);
  let rows = N; // rows of x carried on: B·T, then B in the prompt's last block
  for (let l = 0; l < L; l++) {
    const w = (name: string) => at(t[`h${l}.${name}`]);
    const kc = cache(l, 0),
      vc = cache(l, 1);
    k.ln_fwd(x, w('ln1.g'), w('ln1.b'), tmp, mean, rstd, rows, C, LN_EPS);
    // The prompt's last block needs the keys and values of every position but the queries of the last
    // only: wqkv's k and v columns over all rows, its q columns over the last rows, each as its own GEMM
    // on a copy of those columns (a column's sum is the same whichever GEMM tiles it, when C is a
    // multiple of the GEMM's 8-column tile; otherwise the one full GEMM).
    const lastPrompt = prompt && l === L - 1 && T > 1 && C % 8 === 0;
    const [kv, kvs] = lastPrompt ? [qkv, 2 * C] : [qkv + 4 * C, 3 * C]; // where row 0's k starts, and the row stride
    const qLast = lastPrompt ? scratch(U * C) : 0; // (U, C): the last positions' q
    if (lastPrompt) {
      const wkv = scratch(2 * C * C),
        wq = scratch(C * C),
        last = scratch(U * C);
      k.copy_rows(w('attn.wqkv') + 4 * C, 3 * C, wkv, 2 * C, C, 2 * C);
      k.copy_rows(w('attn.wqkv'), 3 * C, wq, C, C, C);
      gemmRows(k, tmp, wkv, kv, rows, C, 2 * C, w('attn.bqkv') + 4 * C); // (rows, 2C): k, v
      k.copy_rows(tmp + 4 * (T - 1) * C, T * C, last, C, U, C);
      gemmRows(k, last, wq, qLast, U, C, C, w('attn.bqkv'));
    } else gemmRows(k, tmp, w('attn.wqkv'), qkv, rows, C, 3 * C, w('attn.bqkv')); // (rows, 3C): q, k, v side by side
    // Each (row, head)'s T keys and values, those of the row's prompt, to its cache slots [slot, slot + T).
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < (prompt ? H : 1); i++) {
        const u = rowOf[b];
        const [src, dst, n] = prompt
          ? [u * T * kvs + i * hd, ((b * H + i) * S + slot) * hd, T]
          : [b * kvs, (b * H * S + slot) * hd, H];
        const [ss, ds] = prompt ? [kvs, hd] : [hd, S * hd];
        k.copy_rows(kv + 4 * src, ss, kc + 4 * dst, ds, n, hd);
        k.copy_rows(kv + 4 * (src + C), ss, vc + 4 * dst, ds, n, hd);
      }
    }
    const scale = 1 / Math.sqrt(hd);
    if (!prompt) {
      // q (B, C) = (B·H, hd): every (row, head) one query over its S cached keys
      k.copy_rows(qkv, 3 * C, tmp, C, B, C);
      attnFwdRows(
        k,
        { q: tmp, k: kc, v: vc, bias, y, p },
        { B: B * H, T: 1, S, H: 1, hd, scale, qs: hd, ks: hd, vs: hd, bbs },
      );
    } else if (l < L - 1) {
      attnFwdRows(
        k,
        { q: qkv, k: qkv + 4 * C, v: qkv + 8 * C, bias, y, p },
        { B: U, T, S: T, H, hd, scale, qs: 3 * C, ks: 3 * C, vs: 3 * C, bbs },
      );
    } else {
      // The prompt's last block: only each row's last query and residual row are needed from here on.
      k.copy_rows(x + 4 * (T - 1) * C, T * C, x, C, U, C); // row u·T + T − 1 → row u (never overwrites a later source)
      rows = U;
      const [q, qs] = lastPrompt ? [qLast, C] : [qkv + 4 * (T - 1) * 3 * C, T * 3 * C];
      attnFwdRows(
        k,
        { q, k: kv, v: kv + 4 * C, bias: bias + 4 * (T - 1) * T, y, p },
        { B: U, T: 1, S: T, H, hd, scale, qs, ks: kvs, vs: kvs, bbs },
      );
    }
    gemmRows(k, y, w('attn.wo'), tmp, rows, C, C, w('attn.bo'));
    k.add(x, x, tmp, rows * C);
    k.ln_fwd(x, w('ln2.g'), w('ln2.b'), tmp, mean, rstd, rows, C, LN_EPS);
    if (familyEnabled('mlp'))
      gemmEpRows(k, tmp, w('mlp.w1'), h, rows, C, M, w('mlp.b1'), 0, EPILOGUE.gelu, GELU_A); // GELU in the GEMM's epilogue
    else {
      gemmRows(k, tmp, w('mlp.w1'), h, rows, C, M, w('mlp.b1'));
      geluFwdRows(k, h, h, rows * M, GELU_A);
    }
    gemmRows(k, h, w('mlp.w2'), tmp, rows, M, C, w('mlp.b2'));
    k.add(x, x, tmp, rows * C);
  }
  k.ln_fwd(x, at(t['lnf.g']), at(t['lnf.b']), tmp, mean, rstd, U, C, LN_EPS);
  const logits = out([B, V]);
  if (U === B && !t.rowOf) gemmRows(k, tmp, at(t.wteT), at(logits), B, C, V, 0);
  else {
    const distinct = scratch(U * V);
    gemmRows(k, tmp, at(t.wteT), distinct, U, C, V, 0);
    for (let b = 0; b < B; b++) k.copy_rows(distinct + 4 * rowOf[b] * V, 0, at(logits) + 4 * b * V, 0, 1, V);
  }
  return prompt ? [logits, ...caches] : logits;
});

/** Whether the fused decode runs: wasm with the kernel families it is made of switched on. */
export function fusedDecodeAvailable(): boolean {
  return (
    fusedKernelsAvailable('decode') &&
    familyEnabled('attention') &&
    familyEnabled('rowwise') &&
    familyEnabled('matmul')
  );
}

/** What the fused decode reads besides the step's tokens: the weights, the head's wteᵀ, the caches. */
export interface DecodeState {
  config: GPTConfig;
  params: ReadonlyMap<string, tf.Tensor>;
  /** wteᵀ (C, V), made once per sampling call. */
  wteT: tf.Tensor2D;
  /** Cache slots per row (the prompt's and every new token's). */
  slots: number;
  /** Per layer (B·H, S, hd), zero where nothing is written yet: made by the first call. */
  keys: tf.Tensor3D[];
  values: tf.Tensor3D[];
}

/**
 * Logits (B, V) of each row's last new token. The first call is the prompt: ids and pos (U, T) int32,
 * bias (U or 1, 1, T, T) of U distinct prompts and rowOf (B) int32, each row's prompt (absent: U = B); it
 * makes the state's caches and fills their slots [0, T). Each later call is
 * one token per row, ids and pos (B, 1), bias (B or 1, 1, 1, S) over all S slots, written at `slot` in
 * place. wasm only (fusedDecodeAvailable). The caller disposes the logits, and the caches when done.
 */
export function cachedForward(
  state: DecodeState,
  ids: tf.Tensor2D,
  pos: tf.Tensor2D,
  bias: tf.Tensor4D,
  slot: number,
  rowOf?: tf.Tensor1D,
): tf.Tensor2D {
  const { config, params, wteT, keys, values, slots } = state;
  const inputs: tf.NamedTensorMap = { ids, pos, bias, wteT, ...(rowOf ? { rowOf } : {}) };
  for (const [name, v] of params) inputs[name] = v;
  keys.forEach((kc, l) => {
    inputs[`k${l}`] = kc;
    inputs[`v${l}`] = values[l];
  });
  const out = tf
    .engine()
    .runKernel(NAME, inputs, { nLayers: config.nLayers, nHeads: config.nHeads, slot, S: slots });
  if (!Array.isArray(out)) return out as tf.Tensor2D;
  const [logits, ...caches] = out as tf.Tensor3D[];
  caches.forEach((c, i) => (i % 2 ? values : keys).push(c));
  return logits as unknown as tf.Tensor2D;
}
