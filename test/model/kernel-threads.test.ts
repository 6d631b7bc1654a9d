/**
 * The threaded GEMM's row split (src/model/kernels/kernel-threads.ts) on the shared-memory build of
 * kernels.wat: every row block starts at a multiple of the kernel's 4-row tile, the blocks cover
 * the rows once, and running the blocks one by one (as the helper threads run them, here on one
 * thread) gives bitwise the single call's product, bias included. The threads themselves need a
 * cross-origin isolated page: test/browser/wasm-threads.test.ts.
 */
import { expect, it } from 'vitest';
import { CONTROL_INTS, GEMM, GEMM_TN, rowBlock, runPart } from '../../src/model/kernels/kernel-threads';
import { KERNELS_WASM_SHARED_BASE64 } from '../../src/model/kernels/kernels-wasm';
import type { KernelExports } from '../../src/model/kernels/wasm';
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

it('the shared-memory kernels module computes both GEMMs split by rows bitwise as one call does', () => {
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 1024, shared: true });
  const bytes = Uint8Array.from(atob(KERNELS_WASM_SHARED_BASE64), (c) => c.charCodeAt(0));
  const k = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as unknown as KernelExports;
  const rng = new Prng(5);
  const f32 = new Float32Array(memory.buffer);
  const fill = (at: number, n: number) => {
    for (let i = 0; i < n; i++) f32[at / 4 + i] = rng.next() * 2 - 1;
  };
  /** Runs the op whole, then part by part as the threads would (here one after another), and compares. */
  const check = (op: number, args: number[], out: number, n: number, whole: () => void) => {
    whole();
    const want = Array.from(f32.subarray(out / 4, out / 4 + n));
    expect(want.filter((x) => x !== 0).length).toBe(n); // a real product to compare
    for (const parts of [2, 3]) {
      f32.fill(NaN, out / 4, out / 4 + n);
      const ctrl = new Int32Array(CONTROL_INTS);
      ctrl.set([op, ...args, parts], 2);
      for (let p = 0; p < parts; p++) runPart(k, ctrl, p);
      expect(Array.from(f32.subarray(out / 4, out / 4 + n))).toEqual(want);
    }
  };
  // a·b + bias (M rows) and xᵀ·dy (A rows: x is (M, A), dy (M, J)), at sizes with and without tails.
  for (const [M, K, N] of [[130, 64, 256], [64, 128, 48], [7, 32, 24], [256, 66, 20]]) {
    const a = 1024, b = a + 4 * M * K, bias = b + 4 * K * N, c = bias + 4 * N;
    fill(a, M * K);
    fill(b, K * N);
    fill(bias, N);
    check(GEMM, [a, b, c, M, K, N, bias], c, M * N, () => k.gemm(a, b, c, M, K, N, bias));
    // xᵀ·dy with x = a (M, K) and dy = the c just made (M, N): out (K, N).
    const out = c + 4 * M * N;
    check(GEMM_TN, [a, c, out, M, K, N, 0], out, K * N, () => k.gemm_tn(a, c, out, M, K, N));
  }
});
