/**
 * Environment worker (browser): computes task transitions for the env pool, answering item by
 * item so the pool can time out a single hung transition. Pure task code only: no tfjs.
 */
import { applyStep } from '../tasks/env';
import { defineTransitions } from '../tasks/registry';
import type { EnvReady, EnvReply, EnvRequest } from './env-pool';

onmessage = (e: MessageEvent<EnvRequest>) => {
  const { id, task, inputs, define } = e.data;
  if (define) defineTransitions(define);
  inputs.forEach((input, index) =>
    postMessage({ id, index, result: applyStep(task, input) } satisfies EnvReply),
  );
};

// Loaded: the pool's time limits count from here, not from a slow start (env-pool.ts).
postMessage({ ready: true } satisfies EnvReady);
