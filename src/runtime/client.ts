/**
 * The page's handle on a run worker. Owns the worker's one message listener and turns replies
 * into promises and callbacks. Imports no tfjs: Vite bundles the worker as its own chunk.
 */
import type { BackendName } from '../core/config';
import type { BackendReport } from './backend';
import { runId } from './protocol';
import type { FromWorker, RunId, ToWorker } from './protocol';

export interface RunWorker {
  id: RunId;
  /** Resolves once the worker has chosen (or refused) its backend. */
  backend: Promise<BackendReport>;
  terminate(): void;
}

let counter = 0;

export function spawnRunWorker(backend: BackendName): RunWorker {
  const id = runId(`run-${++counter}`);
  const worker = new Worker(new URL('./run.worker.ts', import.meta.url), { type: 'module', name: id });
  const send = (msg: ToWorker) => worker.postMessage(msg);
  const report = new Promise<BackendReport>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<FromWorker>) => {
      const msg = e.data;
      if (msg.type === 'backend') resolve(msg.report);
      else if (msg.type === 'error') reject(new Error(msg.message));
    };
    worker.onerror = (e) => reject(new Error(`worker failed to start: ${e.message || 'script error'}`));
  });
  send({ type: 'init', runId: id, backend });
  return { id, backend: report, terminate: () => worker.terminate() };
}
