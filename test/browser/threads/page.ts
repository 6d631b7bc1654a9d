/**
 * The page of the wasm threads check: `checkThreads()` runs the same forward + backward in fresh
 * workers (tfjs starts its backend once per worker) at 1 and 2 threads, with the fused kernels and
 * with tfjs's plain ops, and compares each run with the single-threaded run of the same kernels.
 */
import { maxDiff } from './diff';
import type { RestartCheck, ThreadsReply, ThreadsRun } from './worker';

function run(r: ThreadsRun): Promise<ThreadsReply> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  return new Promise<ThreadsReply>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<ThreadsReply | { error: string }>) =>
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data);
    worker.onerror = (e) => reject(new Error(`threads worker: ${e.message}`));
    worker.postMessage(r);
  }).finally(() => worker.terminate());
}

export interface ThreadsCheck {
  isolated: boolean;
  /** Per run (`fused/2`: fused kernels, 2 threads asked): tfjs's threads, the fused kernels' threads, max |Δ| / (1 + |ref|) against the same kernels on 1 thread. */
  runs: Record<string, { threads: number; kernelThreads: number; maxDiff: number; splits: number[] }>;
  /** plain/1 against fused/1: two formulations, so not 0; shows the comparison sees a difference. */
  plainVsFused: number;
  /** fused/2's backend disposed and started again (worker.ts restart). */
  restart: RestartCheck;
}

async function checkThreads(): Promise<ThreadsCheck> {
  const runs: ThreadsCheck['runs'] = {};
  const one: Partial<Record<ThreadsRun['kernels'], ThreadsReply>> = {};
  let isolated = true;
  let restart: RestartCheck | undefined;
  for (const kernels of ['fused', 'plain'] as const) {
    for (const threads of [1, 2]) {
      const got = await run({ threads, kernels, restart: kernels === 'fused' && threads === 2 });
      if (got.restart) restart = got.restart;
      isolated &&= got.isolated;
      one[kernels] ??= got;
      runs[`${kernels}/${threads}`] = {
        threads: got.threads,
        kernelThreads: got.kernelThreads,
        maxDiff: maxDiff(got.values, one[kernels].values),
        splits: got.splits,
      };
    }
  }
  return { isolated, runs, plainVsFused: maxDiff(one.plain!.values, one.fused!.values), restart: restart! };
}

(globalThis as unknown as { checkThreads: typeof checkThreads }).checkThreads = checkThreads;
