/** Environment worker (Node, worker_threads): the same protocol as env.worker.ts. */
import { parentPort } from 'node:worker_threads';
import { applyStep } from '../tasks/env';
import { defineTransitions } from '../tasks/registry';
import { answerRequest, type EnvReady, type EnvRequest } from './env-pool';

/**
 * Fault injection for tests (test/cli/hung-env.test.ts): with LAB_FAULT_HANG_TRAJ=n in the
 * environment of `lab train`, every transition of trajectory n never returns, as a hung
 * environment's would. Unset (always, outside tests), it changes nothing.
 */
const hangTraj =
  process.env.LAB_FAULT_HANG_TRAJ === undefined ? null : Number(process.env.LAB_FAULT_HANG_TRAJ);

parentPort?.on('message', (req: EnvRequest) => {
  if (req.define) defineTransitions(req.define);
  answerRequest(
    req,
    (input) => {
      if (input.traj === hangTraj) for (;;);
      return applyStep(req.task, input);
    },
    (reply) => parentPort?.postMessage(reply),
  );
});

// Loaded: the pool's time limits count from here, not from tsx's compile (env-pool.ts).
parentPort?.postMessage({ ready: true } satisfies EnvReady);
