/**
 * The threaded GEMM's row split (src/model/kernels/kernel-threads.ts) on the shared-memory build of
 * kernels.wat: every row block starts at a multiple of the kernel's 4-row tile, the blocks cover
 * the rows once, and running the blocks one by one (as the helper threads run them, here on one
 * thread) gives bitwise the single call's product, bias included. The threads themselves need a
 * cross-origin isolated page: test/browser/wasm-threads.test.ts.
 */
import { expect, it } from 'vitest';
import { CONTROL_INTS, gemmPart, rowBlock } from '../../src/model/kernels/kernel-threads';
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

it('the shared-memory kernels module computes a GEMM split by rows bitwise as one call does', () => {
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 1024, shared: true });
  const bytes = Uint8Array.from(atob(KERNELS_WASM_SHARED_BASE64), (c) => c.charCodeAt(0));
  const k = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as unknown as KernelExports;
  const rng = new Prng(5);
  const f32 = new Float32Array(memory.buffer);
  const fill = (at: number, n: number) => {
    for (let i = 0; i < n; i++) f32[at / 4 + i] = rng.next() * 2 - 1;
  };
  for (const [M, K, N] of [[130, 64, 256], [64, 128, 48], [7, 32, 24]]) {
    const a = 1024, b = a + 4 * M * K, bias = b + 4 * K * N, whole = bias + 4 * N, split = whole + 4 * M * N;
    fill(a, M * K);
    fill(b, K * N);
    fill(bias, N);
    k.gemm(a, b, whole, M, K, N, bias);
    expect(f32.subarray(whole / 4, whole / 4 + M * N).filter((x) => x !== 0).length).toBe(M * N); // a real product to compare
    for (const parts of [2, 3]) {
      f32.fill(NaN, split / 4, split / 4 + M * N);
      const ctrl = new Int32Array(CONTROL_INTS);
      ctrl.set([a, b, split, M, K, N, bias, parts], 2);
      for (let p = 0; p < parts; p++) gemmPart(k, ctrl, p);
      expect(Array.from(f32.subarray(split / 4, split / 4 + M * N))).toEqual(Array.from(f32.subarray(whole / 4, whole / 4 + M * N)));
    }
  }
});
