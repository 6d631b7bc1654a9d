/**
 * The page of `npm run bench:browser`: exposes `benchmark(options)`, which runs the workload in a
 * dedicated worker (as the lab runs its models: the fused wasm kernels compile synchronously, which
 * Chromium allows off the main thread only) and resolves with the worker's report.
 */
import type { BenchRequest, BenchReply } from './worker';

function benchmark(request: BenchRequest): Promise<BenchReply> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  return new Promise<BenchReply>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<BenchReply | { error: string }>) =>
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data);
    worker.onerror = (e) => reject(new Error(`bench worker: ${e.message}`));
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

(globalThis as unknown as { benchmark: typeof benchmark }).benchmark = benchmark;
