/**
 * Environment worker (browser): computes task transitions for the env pool, answering in the
 * batches the pool asks for, so it can time out a single hung transition (env-pool.ts). Pure task
 * code only: no tfjs.
 */
import { applyStep } from '../tasks/env';
import { defineTransitions } from '../tasks/registry';
import { answerRequest, type EnvReady, type EnvRequest } from './env-pool';

onmessage = (e: MessageEvent<EnvRequest>) => {
  const { task, define } = e.data;
  if (define) defineTransitions(define);
  answerRequest(
    e.data,
    (input) => applyStep(task, input),
    (reply) => postMessage(reply),
  );
};

// Loaded: the pool's time limits count from here, not from a slow start (env-pool.ts).
postMessage({ ready: true } satisfies EnvReady);
