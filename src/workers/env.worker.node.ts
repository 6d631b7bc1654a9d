/** Environment worker (Node, worker_threads): the same protocol as env.worker.ts. */
import { parentPort } from 'node:worker_threads';
import { applyStep } from '../tasks/env';
import { defineTransitions } from '../tasks/registry';
import type { EnvReady, EnvReply, EnvRequest } from './env-pool';

/**
 * Fault injection for tests (test/cli/hung-env.test.ts): with LAB_FAULT_HANG_TRAJ=n in the
 * environment of `lab train`, every transition of trajectory n never returns, as a hung
 * environment's would. Unset (always, outside tests), it changes nothing.
 */
const hangTraj =
  process.env.LAB_FAULT_HANG_TRAJ === undefined ? null : Number(process.env.LAB_FAULT_HANG_TRAJ);

parentPort?.on('message', ({ id, task, inputs, define }: EnvRequest) => {
  if (define) defineTransitions(define);
  inputs.forEach((input, index) => {
    if (input.traj === hangTraj) for (;;);
    parentPort?.postMessage({ id, index, result: applyStep(task, input) } satisfies EnvReply);
  });
});

// Loaded: the pool's time limits count from here, not from tsx's compile (env-pool.ts).
parentPort?.postMessage({ ready: true } satisfies EnvReady);
