/**
 * How many threads each run's wasm backend gets (tfjs's threaded SIMD build and the fused kernels'
 * helpers, platform-browser.ts setWasmThreads). A machine setting, not part of the experiment: the
 * threads change how fast a step runs, never what it computes (every split is bitwise the single
 * thread's result, test/browser/wasm-threads.test.ts), and the right count depends on the machine
 * that opens a link, not on the one that made it. Pure: the page resolves it, the worker applies it.
 */

/** What the backend panel offers: `auto`, or a thread count the user picked. */
export type ThreadSetting = 'auto' | number;

/**
 * `auto`'s ceiling per run. Only some ops are split over threads (the GEMMs, attention, GELU and
 * tfjs's XNNPACK ops); LayerNorm, AdamW, tfjs's element-wise ops and the rollout's per-token work stay
 * on one. On the idle 2-core machine the GEMM split alone took the `small` train step from 440 to
 * 284–295 ms at 2 threads (about 2/3 of the step split); more than 2 threads has never been measured
 * here, and each run also has env workers and the page a main thread to feed. So `auto` stops at 4,
 * where even an 85 % split part gives only 2.8× by Amdahl's law; an explicit count goes beyond it.
 */
export const MAX_AUTO_THREADS = 4;
/** The most an explicit setting may ask (a stored value beyond is ignored as corrupt). */
export const MAX_THREADS = 16;

/** What the page knows of its machine. */
export interface Machine {
  /** navigator.hardwareConcurrency: logical cores. */
  cores: number;
  /** crossOriginIsolated: SharedArrayBuffer exists, so tfjs can run its threaded build. */
  isolated: boolean;
}

/** The threads a run gets, and why, in the words the backend panel shows. */
export interface ThreadChoice {
  threads: number;
  why: string;
}

/** Whether `x` is a setting the panel could have made: 'auto' or a whole number in [1, MAX_THREADS]. */
export function isThreadSetting(x: unknown): x is ThreadSetting {
  return x === 'auto' || (Number.isInteger(x) && (x as number) >= 1 && (x as number) <= MAX_THREADS);
}

/**
 * The rule: threads need a cross-origin isolated page (else 1); an explicit count is used as asked;
 * `auto` divides the cores among the runs that train at once, at least 1, at most MAX_AUTO_THREADS.
 * On 2 cores the default two runs get 1 thread each, a single run 2.
 */
export function wasmThreadsFor(setting: ThreadSetting, runsAtOnce: number, machine: Machine): ThreadChoice {
  if (!machine.isolated)
    return {
      threads: 1,
      why: 'the page is not cross-origin isolated (no SharedArrayBuffer), so wasm runs 1 thread',
    };
  if (setting !== 'auto') return { threads: setting, why: `${setting} asked in the backend panel` };
  const cores = Math.max(1, Math.floor(machine.cores) || 1);
  const runs = Math.max(1, runsAtOnce);
  const threads = Math.max(1, Math.min(MAX_AUTO_THREADS, Math.floor(cores / runs)));
  const capped = Math.floor(cores / runs) > MAX_AUTO_THREADS ? ` (at most ${MAX_AUTO_THREADS})` : '';
  return {
    threads,
    why: `auto: ${cores} cores among ${runs} run${runs > 1 ? 's' : ''} training at once${capped}`,
  };
}
