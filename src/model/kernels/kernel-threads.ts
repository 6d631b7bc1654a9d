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
const OP = 2;
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

interface Pool {
  k: KernelExports;
  ctrl: Int32Array;
  helpers: number;
}

let threads = 1;
let pool: Pool | null = null;
let starting: Promise<number> | null = null;

/** How many threads the fused kernels may use (the wasm backend's thread count). */
export function setKernelThreads(n: number): void {
  threads = n;
}

/**
 * Starts the helpers for a kernels instance on a shared heap (wasm.ts calls it when it binds one),
 * in the background: until they are ready every GEMM runs on the calling thread alone.
 */
export function startKernelThreads(k: KernelExports, module: WebAssembly.Module, memory: WebAssembly.Memory): void {
  if (starting || threads < 2) return;
  const ctrl = new Int32Array(new SharedArrayBuffer(4 * CONTROL_INTS));
  const helpers = Array.from({ length: threads - 1 }, (_, i) => {
    const worker = new Worker(new URL('./kernel-thread.worker.ts', import.meta.url), { type: 'module', name: `kernels ${i + 1}` });
    return new Promise<void>((ready, fail) => {
      worker.onmessage = () => ready();
      worker.onerror = (e) => fail(new Error(`kernel thread ${i + 1}: ${e.message}`));
      worker.postMessage({ memory, module, ctrl, part: i + 1 });
    });
  });
  starting = Promise.all(helpers).then(
    () => {
      pool = { k, ctrl, helpers: helpers.length };
      return threads;
    },
    (e: Error) => {
      console.warn(`fused kernels stay on one thread: ${e.message}`);
      return 1;
    },
  );
}

/** Threads the fused kernels run on, once their helpers have started (1 where there are none). */
export const kernelThreadsReady = (): Promise<number> => starting ?? Promise.resolve(1);

/** Runs op over all helpers and this thread; false (nothing done) where there are none or it would not pay. */
function split(k: KernelExports, op: number, args: number[], macs: number): boolean {
  if (!pool || pool.k !== k || macs < MIN_SPLIT_MACS || OPS[op].rows(args) < 8) return false;
  const { ctrl, helpers } = pool;
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
