// The CLI's environments run in worker threads under the experiment's per-transition time limit:
// a hung transition is timed out, its trajectory scored 0, and the run goes
// on. The run is the CLI's own path (runExperiment with nodeEnvPool); only the worker is a real
// environment worker with a hang injected at trajectory 1.
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { M } from '../../src/core/metrics';
import { nodeEnvPool, threadWorker } from '../../src/workers/env-pool-node';
import { runExperiment } from '../../src/train/experiment';
import type { TrajectoryResult } from '../../src/tasks/orchestrator';

/** The real transitions (tasks/env.ts through tsx), except that trajectory 1's never returns. */
function hangingEnvWorker() {
  const tsxDir = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const env = pathToFileURL(join(process.cwd(), 'src/tasks/env.ts')).href;
  const boot = `
    const { parentPort } = require('node:worker_threads');
    const ready = import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(env)}); });
    parentPort.on('message', ({ id, task, inputs }) => ready.then(({ applyStep }) => {
      inputs.forEach((input, index) => {
        if (input.traj === 1) for (;;) {}
        parentPort.postMessage({ id, index, result: applyStep(task, input) });
      });
    }));`;
  return threadWorker(new Worker(boot, { eval: true }));
}

describe('the CLI env pool', () => {
  it('times out a hung environment, scores its trajectory 0, and the run goes on', async () => {
    await tf.setBackend('wasm');
    const exp = ExperimentSchema.parse({
      task: 'sync',
      models: { base: 'scratch' },
      runs: [{ label: 'GRPO', estimator: 'grpo' }],
      // Generous: a replacement thread's start-up (tsx) counts against its first transition.
      rollout: { batchSize: 1, groupSize: 4, envTimeoutMs: 4000 },
      eval: { every: 0 },
    });
    const seen: { errors: number; trajectories: TrajectoryResult[] }[] = [];
    const [summary] = await runExperiment(exp, {
      steps: 2,
      env: () => nodeEnvPool(exp.rollout.envTimeoutMs, hangingEnvWorker),
      onStep: (_run, r) => void seen.push({ errors: r.metrics[M.envErrors], trajectories: r.trajectories }),
    });
    expect(summary.steps).toBe(2);
    for (const step of seen) {
      expect(step.errors).toBe(1);
      const hung = step.trajectories.find((t) => t.traj === 1)!;
      expect(hung).toMatchObject({ status: 'error', reward: 0, success: false });
      expect(step.trajectories.filter((t) => t.status === 'ok')).toHaveLength(3);
    }
  }, 120_000);
});
