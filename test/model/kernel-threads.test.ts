/**
 * The threaded kernels' split (src/model/kernels/kernel-thread-ops.ts) on the shared-memory build of
 * kernels.wat: every row block starts at a multiple of the kernel's 4-row tile, the blocks cover
 * the rows once, and running the blocks one by one (as the helper threads run them, here on one
 * thread) gives bitwise the single call's result: both GEMMs (bias included; a·b + bias with GELU in its epilogue too), attention forward and
 * backward split by batch elements, and GELU forward and backward split by blocks of elements. The threads themselves need a
 * cross-origin isolated page: test/browser/wasm-threads.test.ts.
 */
import { expect, it } from 'vitest';
import {
  ATTN_BWD,
  ATTN_FWD,
  CONTROL_INTS,
  GELU_BWD,
  GELU_FWD,
  GEMM,
  GEMM_EP,
  GEMM_TN,
  f32Bits,
  rowBlock,
  runPart,
  setDispatch,
} from '../../src/model/kernels/kernel-thread-ops';
import { KERNELS_WASM_SHARED_BASE64 } from '../../src/model/kernels/kernels-wasm';
import { EPILOGUE } from '../../src/model/kernels/wasm';
import type { KernelExports } from '../../src/model/kernels/kernel-types';
import { Prng } from '../../src/core/prng';

it('row blocks start at multiples of 4 and cover every row once', () => {
  for (const M of [1, 3, 4, 8, 13, 64, 130, 4096]) {
    for (const parts of [1, 2, 3, 4]) {
      const blocks = Array.from({ length: parts }, (_, p) => rowBlock(M, parts, p));
      expect(blocks[0][0]).toBe(0);
      expect(blocks[parts - 1][1]).toBe(M);
      for (let p = 1; p < parts; p++) expect(blocks[p][0]).toBe(blocks[p - 1][1]);
      for (const [r0] of blocks) expect(r0 % 4 === 0 || r0 === M).toBe(true);
    }
  }
});

it('the shared-memory kernels module computes the GEMMs, attention and GELU split in parts bitwise as one call does', () => {
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 1024, shared: true });
  const bytes = Uint8Array.from(atob(KERNELS_WASM_SHARED_BASE64), (c) => c.charCodeAt(0));
  const k = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } })
    .exports as unknown as KernelExports;
  const rng = new Prng(5);
  const f32 = new Float32Array(memory.buffer);
  const fill = (at: number, n: number) => {
    for (let i = 0; i < n; i++) f32[at / 4 + i] = rng.next() * 2 - 1;
  };
  /** Runs the op whole, then part by part as the threads would (here one after another), and compares. */
  const check = (
    op: number,
    args: number[],
    out: number,
    n: number,
    whole: () => void,
    reset = () => f32.fill(NaN, out / 4, out / 4 + n),
  ) => {
    whole();
    const want = Array.from(f32.subarray(out / 4, out / 4 + n));
    expect(want.filter((x) => x !== 0 && Number.isFinite(x)).length).toBe(n); // a real result to compare
    for (const parts of [2, 3]) {
      reset();
      const ctrl = new Int32Array(CONTROL_INTS);
      setDispatch(ctrl, op, args, parts);
      for (let p = 0; p < parts; p++) runPart(k, ctrl, p);
      expect(Array.from(f32.subarray(out / 4, out / 4 + n))).toEqual(want);
    }
  };
  // a·b + bias (M rows) and xᵀ·dy (A rows: x is (M, A), dy (M, J)), at sizes with and without tails.
  for (const [M, K, N] of [
    [130, 64, 256],
    [64, 128, 48],
    [7, 32, 24],
    [256, 66, 20],
    [50, 37, 29],
  ]) {
    const a = 1024,
      b = a + 4 * M * K,
      bias = b + 4 * K * N,
      c = bias + 4 * N;
    fill(a, M * K);
    fill(b, K * N);
    fill(bias, N);
    // Each register tile (gemm-tile.ts) in parts against the whole product on 4 × 8: the same bits.
    for (const tile of [0, 1, 2])
      check(GEMM, [a, b, c, M, K, N, bias, tile], c, M * N, () => k.gemm_ep(a, b, c, M, K, N, bias, 0, 0, 0));
    // xᵀ·dy with x = a (M, K) and dy = the c just made (M, N): out (K, N), and scratch for up to 3 parts.
    const out = c + 4 * M * N,
      w = out + 4 * (K * N + 3 * M * N);
    for (const tile of [0, 1, 2])
      check(GEMM_TN, [a, c, out, M, K, N, tile, w], out, K * N, () =>
        k.gemm_tn_rows(a, c, out, M, K, N, K, w),
      );
    // What the tiles leave (out's rows from K & ~3 on, columns from N & ~7 on) is each a sum of
    // products one at a time, i ascending, unfused: the f32 arithmetic written out in JS.
    const [A4, J8] = [K & ~3, N & ~7];
    for (let r = 0; r < K; r++)
      for (let j = r < A4 ? J8 : 0; j < N; j++) {
        let s = 0;
        for (let i = 0; i < M; i++)
          s = Math.fround(s + Math.fround(f32[a / 4 + i * K + r] * f32[c / 4 + i * N + j]));
        expect(f32[out / 4 + r * N + j], `tail (${r}, ${j}) of (${K}, ${N})`).toBe(s);
      }
    // The same a·b + bias with GELU in the epilogue: gelu(h) alone, then gelu(h) in c and gelu'(h) in d right after it.
    const A = 2 * Math.sqrt(2 / Math.PI);
    const g = out + 4 * K * N,
      dg = g + 4 * M * N;
    for (const tile of [0, 1, 2]) {
      check(GEMM_EP, [a, b, g, M, K, N, bias, 0, EPILOGUE.gelu, f32Bits(A), tile], g, M * N, () =>
        k.gemm_ep(a, b, g, M, K, N, bias, 0, EPILOGUE.gelu, A),
      );
      check(GEMM_EP, [a, b, g, M, K, N, bias, dg, EPILOGUE.geluAndGrad, f32Bits(A), tile], g, 2 * M * N, () =>
        k.gemm_ep(a, b, g, M, K, N, bias, dg, EPILOGUE.geluAndGrad, A),
      );
    }
  }

  // Attention over B batch elements of T = S rows, H heads of 32 (q, k, v side by side in qkv, a
  // random bias shared by the batch), forward (y and the probabilities p, adjacent) then backward;
  // B = 10 leaves a short last block.
  const [B, T, H, hd] = [10, 12, 2, 32];
  const C = H * hd,
    C3 = 3 * C,
    S = T,
    scale = 1 / Math.sqrt(hd);
  const qkv = 1024,
    bias = qkv + 4 * B * T * C3,
    y = bias + 4 * T * S,
    p = y + 4 * B * T * C,
    dy = p + 4 * B * H * T * S;
  const grad = dy + 4 * B * T * C,
    tmp = grad + 4 * B * T * C3;
  fill(qkv, B * T * C3);
  fill(bias, T * S);
  fill(dy, B * T * C);
  const fwd = [qkv, C3, qkv + 4 * C, C3, qkv + 8 * C, C3, bias, 0, y, p, B, T, S, H, hd];
  check(ATTN_FWD, [...fwd, f32Bits(scale)], y, B * T * C + B * H * T * S, () => k.attn_fwd(...fwd, scale));
  const bwd = [
    qkv,
    C3,
    qkv + 4 * C,
    C3,
    qkv + 8 * C,
    C3,
    p,
    dy,
    grad,
    grad + 4 * C,
    grad + 8 * C,
    C3,
    tmp,
    B,
    T,
    S,
    H,
    hd,
  ];
  const zero = () => f32.fill(0, grad / 4, grad / 4 + B * T * C3); // attn_bwd adds into dq, dk, dv
  check(
    ATTN_BWD,
    [...bwd, f32Bits(scale)],
    grad,
    B * T * C3,
    () => (zero(), k.attn_bwd(...bwd, scale)),
    zero,
  );

  // GELU over n elements, n not a multiple of 4 (the scalar tail in the last block only).
  const n = 4099,
    x = tmp + 4 * 3 * (S + 2 * T * S), // tmp: S + 2·T·S floats for each of up to 3 parts
    gy = x + 4 * n,
    gdy = gy + 4 * n,
    gdx = gdy + 4 * n;
  fill(x, n);
  fill(gdy, n);
  const A = 2 * Math.sqrt(2 / Math.PI);
  check(GELU_FWD, [x, gy, n, f32Bits(A)], gy, n, () => k.gelu_fwd(x, gy, n, A));
  check(GELU_BWD, [x, gdy, gdx, n, f32Bits(A)], gdx, n, () => k.gelu_bwd(x, gdy, gdx, n, A));
});
