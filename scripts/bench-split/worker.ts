/**
 * The bench:split worker: starts the wasm backend on `threads` threads as the lab's run worker does,
 * then times each split op of kernel-threads.ts at sizes around its threshold, on one thread (the
 * threshold set out of reach) and split over every thread (threshold 0), alternating, on the
 * backend's own heap. Work is in the threshold's units (multiply-adds; GELU 50 per element).
 */
import * as tf from '@tensorflow/tfjs';
import { browserPlatform, setWasmThreads } from '../../src/backends/platform-browser';
import { EPILOGUE, kernelsFor, wasmKernelThreads } from '../../src/model/kernels/wasm';
import type { WasmBackendLike } from '../../src/model/kernels/kernel-types';
import { GELU_A } from '../../src/model/kernels/rowwise';
import { median } from '../cli-args';
import {
  MIN_SPLIT_WORK,
  attnBwdRows,
  attnFwdRows,
  geluBwdRows,
  geluFwdRows,
  gemmEpRows,
  gemmRows,
  kernelParts,
  setSplitThreshold,
} from '../../src/model/kernels/kernel-threads';

export interface SplitRequest {
  threads: number;
  /** Timed batches per op, size and mode; each batch runs the op until it has taken ≥ 2 ms. */
  reps: number;
  smoke?: boolean;
}
export interface SplitRow {
  op: string;
  shape: string;
  work: number;
  /** µs per call: the fastest batch (least disturbed by other processes) and the median batch. */
  oneMin: number;
  oneMedian: number;
  splitMin: number;
  splitMedian: number;
}
export interface SplitReply {
  threads: number;
  rows: SplitRow[];
}

onmessage = async (e: MessageEvent<SplitRequest>) => {
  try {
    const { threads, reps, smoke } = e.data;
    setWasmThreads(threads);
    await browserPlatform.load('wasm');
    if (!(await tf.setBackend('wasm'))) throw new Error('wasm failed to start');
    const be = tf.backend() as unknown as WasmBackendLike;
    const k = kernelsFor(be);
    if (!k) throw new Error('the fused kernels did not bind the wasm heap');
    if ((await wasmKernelThreads()) !== threads)
      throw new Error(`the kernels run ${await wasmKernelThreads()} threads, not ${threads}`);
    const keep: tf.Tensor[] = [];
    const buf = (n: number) => {
      const t = tf.randomUniform([n], -1, 1, 'float32', 1);
      keep.push(t);
      return be.getMemoryOffset(t.dataId);
    };
    /** µs per call of f: batches of calls of ≥ 2 ms each, split (threshold 0) and not, alternating. */
    const time = (f: () => void): Pick<SplitRow, 'oneMin' | 'oneMedian' | 'splitMin' | 'splitMedian'> => {
      setSplitThreshold(Infinity);
      let n = 1;
      for (let t0 = performance.now(); performance.now() - t0 < 2; n++) f();
      const one: number[] = [],
        split: number[] = [];
      for (let r = 0; r < reps; r++) {
        for (const [threshold, into] of [
          [Infinity, one],
          [0, split],
        ] as const) {
          setSplitThreshold(threshold);
          const t0 = performance.now();
          for (let i = 0; i < n; i++) f();
          into.push((1000 * (performance.now() - t0)) / n);
        }
      }
      setSplitThreshold(MIN_SPLIT_WORK);
      return {
        oneMin: Math.min(...one),
        oneMedian: median(one),
        splitMin: Math.min(...split),
        splitMedian: median(split),
      };
    };
    const rows: SplitRow[] = [];
    const A = GELU_A;
    // a·b for the `small` preset's d = 128 (K = N = 128) over M token rows: 2^14 multiply-adds per row.
    for (const M of smoke ? [64] : [8, 16, 32, 64, 128, 256, 1024]) {
      const [K, N] = [128, 128];
      const a = buf(M * K),
        b = buf(K * N),
        c = buf(M * N);
      rows.push({
        op: 'gemm a·b',
        shape: `${M}×${K}·${K}×${N}`,
        work: M * K * N,
        ...time(() => gemmRows(k, a, b, c, M, K, N, 0)),
      });
    }
    // The MLP's first layer, a·b + bias with GELU and gelu' in the epilogue, for `small` (C 128 → 512) over M token rows.
    for (const M of smoke ? [16] : [4, 8, 16, 32, 64, 256]) {
      const [K, N] = [128, 512];
      const a = buf(M * K),
        b = buf(K * N),
        bias = buf(N),
        c = buf(M * N),
        d = buf(M * N);
      rows.push({
        op: 'gemm+gelu',
        shape: `${M}×${K}·${K}×${N}`,
        work: M * N * (K + 50),
        ...time(() => gemmEpRows(k, a, b, c, M, K, N, bias, d, EPILOGUE.geluAndGrad, A)),
      });
    }
    // Attention, H = 4 heads of 32: a decoded token (T = 1 over S = 64 cached positions) and a training batch (T = S = 64).
    const [H, hd] = [4, 32],
      C = H * hd,
      C3 = 3 * C;
    for (const [B, T, S] of smoke
      ? [[8, 64, 64]]
      : [
          [8, 1, 64],
          [16, 1, 64],
          [64, 1, 64],
          [8, 64, 64],
          [64, 64, 64],
        ]) {
      const qkv = buf(B * Math.max(T, S) * C3),
        bias = buf(T * S),
        y = buf(B * T * C),
        p = buf(B * H * T * S);
      const shape = { B, T, S, H, hd, scale: 1 / Math.sqrt(hd), qs: C3, ks: C3, vs: C3, bbs: 0 };
      rows.push({
        op: 'attention fwd',
        shape: `B ${B}, T ${T}, S ${S}`,
        work: 2 * B * H * T * S * hd,
        ...time(() => attnFwdRows(k, { q: qkv, k: qkv + 4 * C, v: qkv + 8 * C, bias, y, p }, shape)),
      });
      if (T === S) {
        const dy = buf(B * T * C),
          grad = buf(B * T * C3),
          tmp = buf((S + 2 * T * S) * kernelParts());
        rows.push({
          op: 'attention bwd',
          shape: `B ${B}, T ${T}, S ${S}`,
          work: 4 * B * H * T * S * hd,
          ...time(() =>
            attnBwdRows(
              k,
              {
                q: qkv,
                k: qkv + 4 * C,
                v: qkv + 8 * C,
                p,
                dy,
                dq: grad,
                dk: grad + 4 * C,
                dv: grad + 8 * C,
                tmp,
              },
              shape,
              C3,
            ),
          ),
        });
      }
    }
    // GELU over n elements (a `small` batch's MLP: 64 × 64 rows × 512 = 2 M; there it runs in the GEMM above, these where the mlp family is off).
    for (const n of smoke ? [16384] : [4096, 16384, 65536, 262144, 2097152]) {
      const x = buf(n),
        y = buf(n),
        dx = buf(n);
      rows.push({ op: 'gelu fwd', shape: `${n}`, work: 50 * n, ...time(() => geluFwdRows(k, x, y, n, A)) });
      rows.push({
        op: 'gelu bwd',
        shape: `${n}`,
        work: 50 * n,
        ...time(() => geluBwdRows(k, x, y, dx, n, A)),
      });
    }
    for (const t of keep) t.dispose();
    postMessage({ threads, rows } satisfies SplitReply);
  } catch (err) {
    postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
};
