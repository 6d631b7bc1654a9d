/**
 * The fused kernels on more than one thread, where tfjs runs its threaded SIMD build (a cross-origin
 * isolated page; platform-browser.ts's setWasmThreads). tfjs's own pthread pool cannot run our code:
 * its workers run only functions of tfjs's own wasm module (Emscripten's pthread entry points and
 * XNNPACK's pthreadpool, neither exported), so the kernels module brings its own threads. Each
 * helper is a worker holding an instance of the kernels module on the same shared heap; a GEMM
 * (a·b + bias, with or without GELU in its epilogue, and the weight gradient xᵀ·dy) is split by
 * output rows, attention (forward and
 * backward) by batch elements and GELU by blocks of elements, the calling thread taking the
 * first block and each helper one more, in lock step
 * through Atomics on a small shared control block (the caller is itself a worker, where
 * Atomics.wait is allowed). Each output row is computed by the same code in the same order whatever
 * thread runs it, and blocks start at multiples of the kernel's 4-row tile, so the result is
 * bitwise the single-threaded one. LayerNorm stays on one thread: its backward sums dg and db over
 * all rows (a split would change the order of that sum), and its forward takes about 1 ms a call.
 */
import type { KernelExports } from './kernel-types';

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
/**
 * Below this much work (multiply-adds, or their equivalent: see each op's `work`) an op stays on one
 * thread. A split costs about 15 µs over half the work (npm run bench:split), so it can pay only from
 * about 30 µs of work, 2^19 of the GEMM's multiply-adds; 2^20 (about 53 µs) keeps a factor 2 over
 * that for a helper that wakes late.
 */
export const MIN_SPLIT_WORK = 1 << 20;
/** A helper that has not finished in this long is gone (its worker failed): fail rather than hang. */
const WAIT_MS = 30_000;

/** Rows [r0, r1) of part p of n over M rows, cut at multiples of the kernels' 4-row tiles. */
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
const OPS: readonly {
  rows: (x: Args) => number;
  run: (k: KernelExports, x: Args, r0: number, r1: number, part: number) => void;
}[] = [
  // c (M, N) = a (M, K) · b (K, N) + bias: rows of a and c.
  {
    rows: (x) => x[3],
    run: (k, [a, b, c, , K, N, bias], r0, r1) =>
      k.gemm(a + 4 * r0 * K, b, c + 4 * r0 * N, r1 - r0, K, N, bias),
  },
  // out (A, J) = xᵀ·dy for x (N, A), dy (N, J): rows of out, columns of x (x's rows stay A apart).
  {
    rows: (x) => x[4],
    run: (k, [x, dy, out, N, A, J], r0, r1) =>
      k.gemm_tn_rows(x + 4 * r0, dy, out + 4 * r0 * J, N, r1 - r0, J, A),
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
  // own rows only; each part has its own S-float scratch row (tmp holds one per part).
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
        tmp + 4 * part * S,
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
    run: (k, [a, b, c, , K, N, bias, d, mode, A], r0, r1) =>
      k.gemm_ep(
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

/** Each op's split threshold: MIN_SPLIT_WORK unless a benchmark sets another. */
const minSplitWork: number[] = OPS.map(() => MIN_SPLIT_WORK);
/**
 * Sets the split threshold of `ops` (all by default), in the work units above; Infinity keeps them
 * on one thread. For the benchmarks: bench:split's sweep, bench:browser's `--split gemm`.
 */
export function setSplitThreshold(work: number, ops: readonly number[] = OPS.map((_, i) => i)): void {
  for (const op of ops) minSplitWork[op] = work;
}

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
function wake(ctrl: Int32Array): void {
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
export function stopKernelThreads(): void {
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
  setDispatch(ctrl, GEMM, [0, 0, 0, 0, 0, 0, 0], helpers + 1);
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
  if (!split(k, GEMM, [a, b, c, M, K, N, bias], M * K * N)) k.gemm(a, b, c, M, K, N, bias);
}

/**
 * c (M, N) = a·b + bias, then the epilogue `mode` (EPILOGUE) on c and d (M, N), split by rows likewise.
 * Its work: the multiply-adds and 50 per output for GELU (geluFwdRows).
 */
export function gemmEpRows(
  k: KernelExports,
  a: number,
  b: number,
  c: number,
  M: number,
  K: number,
  N: number,
  bias: number,
  d: number,
  mode: number,
  A: number,
): void {
  if (!split(k, GEMM_EP, [a, b, c, M, K, N, bias, d, mode, f32Bits(A)], M * N * (K + 50)))
    k.gemm_ep(a, b, c, M, K, N, bias, d, mode, A);
}

/** out (A, J) = xᵀ·dy for x (N, A), dy (N, J), split by rows of out likewise. */
export function gemmTnRows(
  k: KernelExports,
  x: number,
  dy: number,
  out: number,
  N: number,
  A: number,
  J: number,
): void {
  if (!split(k, GEMM_TN, [x, dy, out, N, A, J, 0], N * A * J)) k.gemm_tn(x, dy, out, N, A, J);
}

/**
 * Attention forward (kernels.wat attn_fwd's arguments), split by batch elements. Its work is the
 * scores' and Σp·v's multiply-adds, 2·B·H·T·S·hd: a `small` train batch (64 × 64 tokens) has 67 M,
 * one token of 64 rows over 48 positions 0.8 M (one thread), over 64 positions 2^20 (split).
 */
export function attnFwdRows(
  k: KernelExports,
  q: number,
  qs: number,
  kk: number,
  ks: number,
  v: number,
  vs: number,
  bias: number,
  bbs: number,
  y: number,
  p: number,
  B: number,
  T: number,
  S: number,
  H: number,
  hd: number,
  scale: number,
): void {
  if (
    !split(
      k,
      ATTN_FWD,
      [q, qs, kk, ks, v, vs, bias, bbs, y, p, B, T, S, H, hd, f32Bits(scale)],
      2 * B * H * T * S * hd,
    )
  )
    k.attn_fwd(q, qs, kk, ks, v, vs, bias, bbs, y, p, B, T, S, H, hd, scale);
}

/**
 * Attention backward (attn_bwd's arguments), split by batch elements likewise (4·B·H·T·S·hd
 * multiply-adds). `tmp` holds S floats per part: kernelParts() × S.
 */
export function attnBwdRows(
  k: KernelExports,
  q: number,
  qs: number,
  kk: number,
  ks: number,
  v: number,
  vs: number,
  p: number,
  dy: number,
  dq: number,
  dk: number,
  dv: number,
  gs: number,
  tmp: number,
  B: number,
  T: number,
  S: number,
  H: number,
  hd: number,
  scale: number,
): void {
  if (
    !split(
      k,
      ATTN_BWD,
      [q, qs, kk, ks, v, vs, p, dy, dq, dk, dv, gs, tmp, B, T, S, H, hd, f32Bits(scale)],
      4 * B * H * T * S * hd,
    )
  )
    k.attn_bwd(q, qs, kk, ks, v, vs, p, dy, dq, dk, dv, gs, tmp, B, T, S, H, hd, scale);
}

/**
 * GELU over n elements, forward and backward, split in blocks of elements. An element costs about
 * as much as 50 of the GEMM's multiply-adds here (its exp and divide: 3.6 ns against 0.07 ns), so
 * its work counts 50 per element: from about 21 k elements it is split (a `small` batch's MLP has 2 M).
 * With the matmul family on, the MLP's GELU runs in its GEMM's epilogue instead (gemmEpRows).
 */
export function geluFwdRows(k: KernelExports, x: number, y: number, n: number, A: number): void {
  if (!split(k, GELU_FWD, [x, y, n, f32Bits(A)], 50 * n)) k.gelu_fwd(x, y, n, A);
}
export function geluBwdRows(k: KernelExports, x: number, dy: number, dx: number, n: number, A: number): void {
  if (!split(k, GELU_BWD, [x, dy, dx, n, f32Bits(A)], 50 * n)) k.gelu_bwd(x, dy, dx, n, A);
}
