/**
 * What one dispatch over the fused kernels' threads says and does (kernel-threads.ts runs the
 * threads): the small shared control block the calling thread writes and its helpers read, the
 * split ops and how each computes its part, and how a part's rows are cut. The helpers
 * (kernel-thread.worker.ts) import only this. Each output row is computed by the same code in the
 * same order whatever thread runs it, and blocks start at multiples of 4 (where xᵀ·dy's tiles hand
 * its last rows to its tail: scripts/gemm-wat.ts), so the result is bitwise the single-threaded one.
 */
import type { KernelExports } from './kernel-types';
import { gemmTnScratchFloats, runGemmTile, runGemmTnTile } from './gemm-tile';

/** Control block slots (Int32): dispatch generation, helpers done, the op, its arguments, the part count. */
export const GEN = 0;
export const DONE = 1;
export const OP = 2;
/** The op that tells the helpers to end (stopKernelThreads). */
export const STOP = -1;
const ARGS = 3;
/** The most arguments an op takes (attn_bwd's 19). */
const NARGS = 19;
const PARTS = ARGS + NARGS;
export const CONTROL_INTS = PARTS + 1;

/** Rows [r0, r1) of part p of n over M rows, cut at multiples of 4. */
export function rowBlock(M: number, parts: number, p: number): [number, number] {
  const per = 4 * Math.ceil(M / 4 / parts);
  return [Math.min(M, p * per), Math.min(M, (p + 1) * per)];
}

/** A float argument (attention's scale) travels in an Int32 slot as its bits. */
const bits = new DataView(new ArrayBuffer(4));
export const f32Bits = (x: number): number => (bits.setFloat32(0, x), bits.getInt32(0));
const bitsF32 = (i: number): number => (bits.setInt32(0, i), bits.getFloat32(0));

type Args = Int32Array | readonly number[];
/**
 * The split ops: how many rows they split (blocks of rowBlock), and how to compute rows [r0, r1) as
 * part `part`. Each row is computed by the same code in the same order as in the whole call.
 */
export const OPS: readonly {
  rows: (x: Args) => number;
  run: (k: KernelExports, x: Args, r0: number, r1: number, part: number) => void;
}[] = [
  // c (M, N) = a (M, K) · b (K, N) + bias: rows of a and c, on register tile `tile` (gemm-tile.ts).
  {
    rows: (x) => x[3],
    run: (k, [a, b, c, , K, N, bias, tile], r0, r1) =>
      runGemmTile(k, tile, a + 4 * r0 * K, b, c + 4 * r0 * N, r1 - r0, K, N, bias, 0, 0, 0),
  },
  // out (A, J) = xᵀ·dy for x (N, A), dy (N, J): rows of out, columns of x (x's rows stay A apart), on
  // tile `tile`; each part its own gemmTnScratchFloats(J) floats of the scratch w.
  {
    rows: (x) => x[4],
    run: (k, [x, dy, out, N, A, J, tile, w], r0, r1, part) =>
      runGemmTnTile(
        k,
        tile,
        x + 4 * r0,
        dy,
        out + 4 * r0 * J,
        N,
        r1 - r0,
        J,
        A,
        w + 4 * part * gemmTnScratchFloats(J),
      ),
  },
  // Attention forward over batch elements [r0, r1): each reads its own rows of q, k, v and bias and
  // writes its own rows of y and of the probabilities p (B·H·T·S).
  {
    rows: (x) => x[10],
    run: (k, [q, qs, kk, ks, v, vs, bias, bbs, y, p, , T, S, H, hd, scale], r0, r1) =>
      k.attn_fwd(
        q + 4 * r0 * T * qs,
        qs,
        kk + 4 * r0 * S * ks,
        ks,
        v + 4 * r0 * S * vs,
        vs,
        bias + 4 * r0 * bbs,
        bbs,
        y + 4 * r0 * T * H * hd,
        p + 4 * r0 * H * T * S,
        r1 - r0,
        T,
        S,
        H,
        hd,
        bitsF32(scale),
      ),
  },
  // Attention backward over batch elements [r0, r1): dq, dk, dv of a batch element are sums over its
  // own rows only; each part has its own S + 2·T·S floats of scratch (tmp holds one per part).
  {
    rows: (x) => x[13],
    run: (k, [q, qs, kk, ks, v, vs, p, dy, dq, dk, dv, gs, tmp, , T, S, H, hd, scale], r0, r1, part) =>
      k.attn_bwd(
        q + 4 * r0 * T * qs,
        qs,
        kk + 4 * r0 * S * ks,
        ks,
        v + 4 * r0 * S * vs,
        vs,
        p + 4 * r0 * H * T * S,
        dy + 4 * r0 * T * H * hd,
        dq + 4 * r0 * T * gs,
        dk + 4 * r0 * S * gs,
        dv + 4 * r0 * S * gs,
        gs,
        tmp + 4 * part * (S + 2 * T * S),
        r1 - r0,
        T,
        S,
        H,
        hd,
        bitsF32(scale),
      ),
  },
  // GELU forward and backward, element-wise: blocks of elements (multiples of 4, the SIMD width).
  {
    rows: (x) => x[2],
    run: (k, [x, y, , A], r0, r1) => k.gelu_fwd(x + 4 * r0, y + 4 * r0, r1 - r0, bitsF32(A)),
  },
  {
    rows: (x) => x[3],
    run: (k, [x, dy, dx, , A], r0, r1) =>
      k.gelu_bwd(x + 4 * r0, dy + 4 * r0, dx + 4 * r0, r1 - r0, bitsF32(A)),
  },
  // c (M, N) = a·b + bias, then gemm_ep's epilogue on c and d (M, N) (GELU, and gelu' into d): rows of a, c and d.
  {
    rows: (x) => x[3],
    run: (k, [a, b, c, , K, N, bias, d, mode, A, tile], r0, r1) =>
      runGemmTile(
        k,
        tile,
        a + 4 * r0 * K,
        b,
        c + 4 * r0 * N,
        r1 - r0,
        K,
        N,
        bias,
        d && d + 4 * r0 * N,
        mode,
        bitsF32(A),
      ),
  },
];

export const GEMM = 0;
export const GEMM_TN = 1;
export const ATTN_FWD = 2;
export const ATTN_BWD = 3;
export const GELU_FWD = 4;
export const GELU_BWD = 5;
export const GEMM_EP = 6;

/** Writes a dispatch of `op` with `args` in `parts` parts into the control block (before GEN is bumped). */
export function setDispatch(ctrl: Int32Array, op: number, args: readonly number[], parts: number): void {
  if (args.length > NARGS)
    throw new Error(
      `kernel threads: op ${op} has ${args.length} arguments, the control block holds ${NARGS}`,
    );
  ctrl[OP] = op;
  ctrl.set(args, ARGS);
  ctrl[PARTS] = parts;
}

/** Wakes the helpers for what the control block now says: a dispatch (counted in DONE as each finishes) or STOP. */
export function wake(ctrl: Int32Array): void {
  Atomics.store(ctrl, DONE, 0);
  Atomics.add(ctrl, GEN, 1);
  Atomics.notify(ctrl, GEN);
}

/** Part p of the dispatched op (the control block says which, with what). The helpers run exactly this too. */
export function runPart(k: KernelExports, ctrl: Int32Array, p: number): void {
  const op = OPS[ctrl[OP]];
  const args = ctrl.subarray(ARGS, ARGS + NARGS);
  const [r0, r1] = rowBlock(op.rows(args), ctrl[PARTS], p);
  if (r1 > r0) op.run(k, args, r0, r1, p);
}
