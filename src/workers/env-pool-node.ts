/**
 * worker_threads adapters for the env pool in Node: `threadWorker` wraps a Worker as the pool's
 * WorkerLike, `nodeEnvWorker` starts the real environment worker (TypeScript, through tsx), and
 * `nodeEnvPool` is the CLI's pool of them.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { WorkerEnvRunner, type WorkerLike } from './env-pool';

export function threadWorker(worker: Worker): WorkerLike {
  const like: WorkerLike = {
    postMessage: (msg) => worker.postMessage(msg),
    onmessage: null,
    onerror: null,
    terminate: () => void worker.terminate(),
  };
  worker.on('message', (data) => like.onmessage?.({ data }));
  // A crash is reported at 'exit', not at 'error': Node delivers the messages the worker posted
  // before it threw ahead of 'exit' but not always ahead of 'error', and an answer posted just
  // before the crash must not be counted as lost with it.
  let error: string | null = null;
  worker.on('error', (e) => (error = e.message));
  worker.on('exit', (code) => {
    if (code !== 0 || error !== null) like.onerror?.({ message: error ?? `exited with code ${code}` });
  });
  return like;
}

/** The environment worker of env.worker.node.ts in a thread of its own. */
export function nodeEnvWorker(): WorkerLike {
  return threadWorker(tsxThread(new URL('./env.worker.node.ts', import.meta.url)));
}

/**
 * A thread running the TypeScript module `entry`. Threads do not inherit tsx's loader, so a
 * two-line bootstrap registers it before importing the module.
 */
export function tsxThread(entry: URL, options: WorkerOptions = {}): Worker {
  const tsxDir = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxDir, 'dist/esm/api/index.mjs')).href; // the ESM entry of tsx/esm/api
  const href = pathToFileURL(fileURLToPath(entry)).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * The CLI's environments: one env worker thread per run, each transition under the experiment's
 * time limit (rollout.envTimeoutMs), as in the page. A hung or crashed transition replaces its
 * worker and is tried on fresh ones; failing twice there, it is scored 0 (env-pool.ts), and the run
 * goes on.
 * `spawn` is the worker to start (tests inject faults).
 */
export function nodeEnvPool(timeoutMs: number, spawn: () => WorkerLike = nodeEnvWorker): WorkerEnvRunner {
  return new WorkerEnvRunner({ spawn, size: 1, timeoutMs });
}
