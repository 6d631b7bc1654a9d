/** The page of `npm run bench:split`: `sweep(request)` runs the sweep in a dedicated worker (where Atomics.wait is allowed). */
import type { SplitReply, SplitRequest } from './worker';

function sweep(request: SplitRequest): Promise<SplitReply> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  return new Promise<SplitReply>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<SplitReply | { error: string }>) =>
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data);
    worker.onerror = (e) => reject(new Error(`bench:split worker: ${e.message}`));
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

(globalThis as unknown as { sweep: typeof sweep }).sweep = sweep;
