/**
 * The fused kernels on more than one thread, where tfjs runs its threaded SIMD build (a cross-origin
 * isolated page; platform-browser.ts's setWasmThreads). tfjs's own pthread pool cannot run our code:
 * its workers run only functions of tfjs's own wasm module (Emscripten's pthread entry points and
 * XNNPACK's pthreadpool, neither exported), so the kernels module brings its own threads. Each
 * helper is a worker holding an instance of the kernels module on the same shared heap; a GEMM
 * (a·b + bias, and the weight gradient xᵀ·dy) is split by output rows, the calling thread taking the
 * first block and each helper one more, in lock step
 * through Atomics on a small shared control block (the caller is itself a worker, where
 * Atomics.wait is allowed). Each output row is computed by the same code in the same order whatever
 * thread runs it, and blocks start at multiples of the kernel's 4-row tile, so the result is
 * bitwise the single-threaded one.
 */
import type { KernelExports } from './wasm';

/** Control block slots (Int32): dispatch generation, helpers done, the op, its 7 arguments, the part count. */
export const GEN = 0;
export const DONE = 1;
export const OP = 2;
/** The op that tells the helpers to end (stopKernelThreads). */
export const STOP = -1;
const ARGS = 3;
const PARTS = 10;
export const CONTROL_INTS = 11;
/** Below this many multiply-adds a GEMM stays on one thread: waking a helper costs tens of µs. */
const MIN_SPLIT_MACS = 1 << 20;
/** A helper that has not finished in this long is gone (its worker failed): fail rather than hang. */
const WAIT_MS = 30_000;

/** Rows [r0, r1) of part p of n over M rows, cut at multiples of the kernels' 4-row tiles. */
export function rowBlock(M: number, parts: number, p: number): [number, number] {
  const per = 4 * Math.ceil(M / 4 / parts);
  return [Math.min(M, p * per), Math.min(M, (p + 1) * per)];
}

type Args = Int32Array | readonly number[];
/** The split ops: how many output rows, and how to compute rows [r0, r1) of the output. */
const OPS = [
  // c (M, N) = a (M, K) · b (K, N) + bias: rows of a and c.
  { rows: (x: Args) => x[3], run: (k: KernelExports, [a, b, c, , K, N, bias]: Args, r0: number, r1: number) => k.gemm(a + 4 * r0 * K, b, c + 4 * r0 * N, r1 - r0, K, N, bias) },
  // out (A, J) = xᵀ·dy for x (N, A), dy (N, J): rows of out, columns of x (x's rows stay A apart).
  { rows: (x: Args) => x[4], run: (k: KernelExports, [x, dy, out, N, A, J]: Args, r0: number, r1: number) => k.gemm_tn_rows(x + 4 * r0, dy, out + 4 * r0 * J, N, r1 - r0, J, A) },
] as const;
export const GEMM = 0;
export const GEMM_TN = 1;

/** Part p of the dispatched op (the control block says which, with what). The helpers run exactly this too. */
export function runPart(k: KernelExports, ctrl: Int32Array, p: number): void {
  const op = OPS[ctrl[OP]];
  const args = ctrl.subarray(ARGS, ARGS + 7);
  const [r0, r1] = rowBlock(op.rows(args), ctrl[PARTS], p);
  if (r1 > r0) op.run(k, args, r0, r1);
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
export function startKernelThreads(k: KernelExports, module: WebAssembly.Module, memory: WebAssembly.Memory, backend: { dispose(): void }): void {
  if (pool?.k === k || threads < 2) return;
  stopKernelThreads();
  const ctrl = new Int32Array(new SharedArrayBuffer(4 * CONTROL_INTS));
  const workers = Array.from({ length: threads - 1 }, (_, i) => new Worker(new URL('./kernel-thread.worker.ts', import.meta.url), { type: 'module', name: `kernels ${i + 1}` }));
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
  Atomics.add(ctrl, GEN, 1);
  Atomics.notify(ctrl, GEN);
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
  ctrl.fill(0, OP);
  ctrl[PARTS] = helpers + 1;
  Atomics.store(ctrl, DONE, 0);
  Atomics.add(ctrl, GEN, 1);
  Atomics.notify(ctrl, GEN);
  const t0 = performance.now();
  while (Atomics.load(ctrl, DONE) < helpers && performance.now() - t0 < ms) await new Promise((r) => setTimeout(r, 5));
  return Atomics.load(ctrl, DONE);
}

/** Runs op over all helpers and this thread; false (nothing done) where there are none or it would not pay. */
function split(k: KernelExports, op: number, args: number[], macs: number): boolean {
  if (!pool?.running || pool.k !== k || macs < MIN_SPLIT_MACS || OPS[op].rows(args) < 8) return false;
  const { ctrl } = pool;
  const helpers = pool.workers.length;
  ctrl.set([op, ...args, helpers + 1], OP);
  Atomics.store(ctrl, DONE, 0);
  Atomics.add(ctrl, GEN, 1);
  Atomics.notify(ctrl, GEN);
  runPart(k, ctrl, 0);
  for (let done = Atomics.load(ctrl, DONE); done < helpers; done = Atomics.load(ctrl, DONE)) {
    if (Atomics.wait(ctrl, DONE, done, WAIT_MS) === 'timed-out') throw new Error(`a kernel thread did not finish its rows in ${WAIT_MS / 1000} s`);
  }
  return true;
}

/** c (M, N) = a (M, K) · b (K, N) + bias, split by rows over the helpers where they run and it pays. */
export function gemmRows(k: KernelExports, a: number, b: number, c: number, M: number, K: number, N: number, bias: number): void {
  if (!split(k, GEMM, [a, b, c, M, K, N, bias], M * K * N)) k.gemm(a, b, c, M, K, N, bias);
}

/** out (A, J) = xᵀ·dy for x (N, A), dy (N, J), split by rows of out likewise. */
export function gemmTnRows(k: KernelExports, x: number, dy: number, out: number, N: number, A: number, J: number): void {
  if (!split(k, GEMM_TN, [x, dy, out, N, A, J, 0], N * A * J)) k.gemm_tn(x, dy, out, N, A, J);
}
