/**
 * The fused kernels on more than one thread, where tfjs runs its threaded SIMD build (a cross-origin
 * isolated page; platform-browser.ts's setWasmThreads). tfjs's own pthread pool cannot run our code:
 * its workers run only functions of tfjs's own wasm module (Emscripten's pthread entry points and
 * XNNPACK's pthreadpool, neither exported), so the kernels module brings its own threads. Each
 * helper is a worker holding an instance of the kernels module on the same shared heap; a GEMM
 * (a·b + bias, with or without GELU in its epilogue, and the weight gradient xᵀ·dy) is split by
 * output rows, attention (forward and backward) by batch elements and GELU by blocks of elements,
 * the calling thread taking the first block and each helper one more, in lock step through Atomics
 * on a small shared control block (kernel-thread-ops.ts: what a dispatch says, and why its result
 * is bitwise the single-threaded one; the caller is itself a worker, where Atomics.wait is
 * allowed). LayerNorm stays on one thread: its backward sums dg and db over all rows (a split
 * would change the order of that sum), and its forward takes about 1 ms a call.
 *
 * This module holds the helpers' pool (start, stop, ready), when a split pays, and the split
 * entry points the kernels call (gemmRows, attnFwdRows, …).
 */
import {
  ATTN_BWD,
  ATTN_FWD,
  CONTROL_INTS,
  DONE,
  f32Bits,
  GELU_BWD,
  GELU_FWD,
  GEMM,
  GEMM_EP,
  GEMM_TN,
  OP,
  OPS,
  runPart,
  setDispatch,
  STOP,
  wake,
} from './kernel-thread-ops';
import type { AttnBwdAt, AttnFwdAt, AttnShape, GemmEpArgs, KernelExports } from './kernel-types';
import { gemmTile, gemmTnTile, runGemmTile, runGemmTnTile } from './gemm-tile';

/**
 * Below this much work (multiply-adds, or their equivalent: see each op's `work`) an op stays on one
 * thread. A split costs about 15 µs over half the work (npm run bench:split), so it can pay only from
 * about 30 µs of work, 2^19 of the GEMM's multiply-adds; 2^20 (about 53 µs) keeps a factor 2 over
 * that for a helper that wakes late.
 */
export const MIN_SPLIT_WORK = 1 << 20;
/** A helper that has not finished in this long is gone (its worker failed): fail rather than hang. */
const WAIT_MS = 30_000;

/** Each op's split threshold: MIN_SPLIT_WORK unless a benchmark sets another. */
const minSplitWork: number[] = OPS.map(() => MIN_SPLIT_WORK);
/**
 * Sets the split threshold of `ops` (all by default), in the work units above; Infinity keeps them
 * on one thread. For the benchmarks: bench:split's sweep, bench:browser's `--split gemm`.
 */
export function setSplitThreshold(work: number, ops: readonly number[] = OPS.map((_, i) => i)): void {
  for (const op of ops) minSplitWork[op] = work;
}

/** The helpers of one kernels instance: their workers, the control block, and whether they all started. */
interface Pool {
  k: KernelExports;
  ctrl: Int32Array;
  workers: Worker[];
  /** Resolves with the threads the GEMMs run on once every helper is ready (1 if one failed). */
  ready: Promise<number>;
  /** Set once `ready` resolved with every helper running: split() uses the pool from then on. */
  running: boolean;
}

let threads = 1;
/** One pool at a time: the one bound to the current wasm backend's heap. */
let pool: Pool | null = null;

/** How many threads the fused kernels may use (the wasm backend's thread count). */
export function setKernelThreads(n: number): void {
  threads = n;
}
/** The threads setKernelThreads gave (the most parts an op is split into). */
export const kernelThreadCount = (): number => threads;

/**
 * Starts the helpers for a kernels instance on a shared heap (wasm.ts calls it when it binds one),
 * in the background: until they are ready every GEMM runs on the calling thread alone. A pool bound
 * to another instance (a wasm backend started again: a new heap) is ended first, and this one ends
 * when `backend` is disposed: its helpers would otherwise wait forever, each holding the old heap.
 */
export function startKernelThreads(
  k: KernelExports,
  module: WebAssembly.Module,
  memory: WebAssembly.Memory,
  backend: { dispose(): void },
): void {
  if (pool?.k === k || threads < 2) return;
  stopKernelThreads();
  const ctrl = new Int32Array(new SharedArrayBuffer(4 * CONTROL_INTS));
  const workers = Array.from(
    { length: threads - 1 },
    (_, i) =>
      new Worker(new URL('./kernel-thread.worker.ts', import.meta.url), {
        type: 'module',
        name: `kernels ${i + 1}`,
      }),
  );
  const started = workers.map(
    (worker, i) =>
      new Promise<void>((ready, fail) => {
        worker.onmessage = () => ready();
        worker.onerror = (e) => fail(new Error(`kernel thread ${i + 1}: ${e.message}`));
        worker.postMessage({ memory, module, ctrl, part: i + 1 });
      }),
  );
  const p: Pool = { k, ctrl, workers, running: false, ready: Promise.resolve(1) };
  p.ready = Promise.all(started).then(
    () => {
      p.running = pool === p;
      return p.running ? threads : 1;
    },
    (e: Error) => {
      console.warn(`fused kernels stay on one thread: ${e.message}`);
      if (pool === p) stopKernelThreads();
      return 1;
    },
  );
  pool = p;
  const dispose = backend.dispose.bind(backend);
  backend.dispose = () => {
    if (pool === p) stopKernelThreads();
    dispose();
  };
}

/**
 * Ends the helpers. Each is blocked in Atomics.wait, where Chromium's terminate() reaches it late
 * (a helper terminated 300 ms earlier still answered a dispatch; 3 s later it was gone): a STOP
 * dispatch wakes it, and it closes itself at once.
 */
function stopKernelThreads(): void {
  if (!pool) return;
  const { ctrl, workers } = pool;
  Atomics.store(ctrl, OP, STOP);
  wake(ctrl);
  for (const w of workers) w.terminate();
  pool = null;
}

/** Threads the fused kernels run on, once their helpers have started (1 where there are none). */
export const kernelThreadsReady = (): Promise<number> => pool?.ready ?? Promise.resolve(1);

/**
 * The current pool's control block, for a test to ping its helpers with pingKernelThreads after
 * they should have ended; null where there is none.
 */
export const kernelThreadsControl = (): Int32Array | null => pool?.ctrl ?? null;

/**
 * Asks the helpers behind `ctrl` to run an empty part (a GEMM of 0 rows) and resolves with how many
 * answered within `ms`: all of them while they live, 0 once they were terminated.
 */
export async function pingKernelThreads(ctrl: Int32Array, helpers: number, ms: number): Promise<number> {
  setDispatch(ctrl, GEMM, [0, 0, 0, 0, 0, 0, 0, 0], helpers + 1);
  wake(ctrl);
  const t0 = performance.now();
  while (Atomics.load(ctrl, DONE) < helpers && performance.now() - t0 < ms)
    await new Promise((r) => setTimeout(r, 5));
  return Atomics.load(ctrl, DONE);
}

/** How many times each op (GEMM, GEMM_TN, …) was split over the helpers in this worker: tests read it. */
export const splitCounts: number[] = OPS.map(() => 0);

/** Threads an op may be split over now: the helpers and the calling thread (1 where there are no helpers). */
export const kernelParts = (): number => (pool?.running ? pool.workers.length + 1 : 1);

/** Runs op over all helpers and this thread; false (nothing done) where there are none or it would not pay. */
function split(k: KernelExports, op: number, args: number[], work: number): boolean {
  if (!pool?.running || pool.k !== k || work < minSplitWork[op] || OPS[op].rows(args) < 8) return false;
  const { ctrl } = pool;
  const helpers = pool.workers.length;
  setDispatch(ctrl, op, args, helpers + 1);
  splitCounts[op]++;
  wake(ctrl);
  runPart(k, ctrl, 0);
  for (let done = Atomics.load(ctrl, DONE); done < helpers; done = Atomics.load(ctrl, DONE)) {
    if (Atomics.wait(ctrl, DONE, done, WAIT_MS) === 'timed-out')
      throw new Error(`a kernel thread did not finish its rows in ${WAIT_MS / 1000} s`);
  }
  return true;
}

/** c (M, N) = a (M, K) · b (K, N) + bias, split by rows over the helpers where they run and it pays. */
export function gemmRows(
  k: KernelExports,
  a: number,
  b: number,
  c: number,
  M: number,
  K: number,
  N: number,
  bias: number,
): void {
  const { tile, timed } = gemmTile(k, K, N);
  const t0 = timed && performance.now();
  if (!split(k, GEMM, [a, b, c, M, K, N, bias, tile], M * K * N))
    runGemmTile(k, tile, a, b, c, M, K, N, bias, 0, 0, 0);
  if (timed) timed(performance.now() - t0!, M * K * N);
}

/**
 * c (M, N) = a·b + bias, then the epilogue `mode` (EPILOGUE) on c and d (M, N), split by rows likewise.
 * Its work: the multiply-adds and 50 per output for GELU (geluFwdRows).
 */
export function gemmEpRows(k: KernelExports, ...args: GemmEpArgs): void {
  const [a, b, c, M, K, N, bias, d, mode, A] = args;
  const { tile, timed } = gemmTile(k, K, N);
  const t0 = timed && performance.now();
  if (!split(k, GEMM_EP, [a, b, c, M, K, N, bias, d, mode, f32Bits(A), tile], M * N * (K + 50)))
    runGemmTile(k, tile, ...args);
  if (timed) timed(performance.now() - t0!, M * K * N);
}

/**
 * out (A, J) = xᵀ·dy for x (N, A), dy (N, J), split by rows of out likewise; w: kernelParts() ×
 * gemmTnScratchFloats(J) floats of scratch, one such block per part.
 */
export function gemmTnRows(
  k: KernelExports,
  x: number,
  dy: number,
  out: number,
  N: number,
  A: number,
  J: number,
  w: number,
): void {
  const tile = gemmTnTile(k);
  if (!split(k, GEMM_TN, [x, dy, out, N, A, J, tile, w], N * A * J))
    runGemmTnTile(k, tile, x, dy, out, N, A, J, A, w);
}

/**
 * Attention forward (kernels.wat attn_fwd's arguments), split by batch elements. Its work is the
 * scores' and Σp·v's multiply-adds, 2·B·H·T·S·hd: a `small` train batch (64 × 64 tokens) has 67 M,
 * one token of 64 rows over 48 positions 0.8 M (one thread), over 64 positions 2^20 (split).
 */
export function attnFwdRows(k: KernelExports, at: AttnFwdAt, d: AttnShape): void {
  const { B, T, S, H, hd, scale } = d;
  const args = [at.q, d.qs, at.k, d.ks, at.v, d.vs, at.bias, d.bbs, at.y, at.p, B, T, S, H, hd];
  if (!split(k, ATTN_FWD, [...args, f32Bits(scale)], 2 * B * H * T * S * hd)) k.attn_fwd(...args, scale);
}

/**
 * Attention backward (attn_bwd's arguments), split by batch elements likewise (4·B·H·T·S·hd
 * multiply-adds). `gs` is the row stride of dq, dk and dv in floats; `tmp` holds S + 2·T·S floats
 * per part: kernelParts() × (S + 2·T·S).
 */
export function attnBwdRows(k: KernelExports, at: AttnBwdAt, d: AttnShape, gs: number): void {
  const { B, T, S, H, hd, scale } = d;
  const args = [
    at.q,
    d.qs,
    at.k,
    d.ks,
    at.v,
    d.vs,
    at.p,
    at.dy,
    at.dq,
    at.dk,
    at.dv,
    gs,
    at.tmp,
    B,
    T,
    S,
    H,
    hd,
  ];
  if (!split(k, ATTN_BWD, [...args, f32Bits(scale)], 4 * B * H * T * S * hd)) k.attn_bwd(...args, scale);
}

export function geluFwdRows(k: KernelExports, x: number, y: number, n: number, A: number): void {
  if (!split(k, GELU_FWD, [x, y, n, f32Bits(A)], 50 * n)) k.gelu_fwd(x, y, n, A);
}
export function geluBwdRows(k: KernelExports, x: number, dy: number, dx: number, n: number, A: number): void {
  if (!split(k, GELU_BWD, [x, dy, dx, n, f32Bits(A)], 50 * n)) k.gelu_bwd(x, dy, dx, n, A);
}
