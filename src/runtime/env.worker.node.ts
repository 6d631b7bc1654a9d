/** Environment worker (Node, worker_threads): the same protocol as env.worker.ts. */
import { parentPort } from 'node:worker_threads';
import { applyStep } from '../tasks/env';
import type { EnvReply, EnvRequest } from './env-pool';

parentPort?.on('message', ({ id, task, inputs }: EnvRequest) => {
  inputs.forEach((input, index) => parentPort?.postMessage({ id, index, result: applyStep(task, input) } satisfies EnvReply));
});
