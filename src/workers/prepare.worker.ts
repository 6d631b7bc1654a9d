/// <reference lib="webworker" />
/**
 * Prepares a workflow's base models (see prepare.ts): selects the backend as a run worker does,
 * registers the dataset's rows, and pretrains every agent on its demonstrations with the recipe
 * the CLI uses (pretrainWorkflowBase: pretrainRecipe, seed 0), so the page's base models and `lab pretrain`'s are the
 * same recipe under the same key.
 */
import * as tf from '@tensorflow/tfjs';
import { timedPreset } from '../backends/auto-choice';
import { selectBackend } from '../backends/backend';
import { browserPlatform, setWasmThreads } from '../backends/platform-browser';
import { pretrainRecipe } from '../core/workflow/base-key';
import { expandWorkflow } from '../core/workflow/families';
import { encodeCheckpoint } from '../model/checkpoint';
import { pretrainWorkflowBase } from '../train/pretrain';
import { registerGivenData } from './given-data';
import type { FromPrepare, PrepareRequest, ToPrepare } from './prepare';
import { withThreads } from './run-backend';

const post = (m: FromPrepare, transfer: Transferable[] = []) => postMessage(m, transfer);
const stop = new AbortController();

async function prepare(r: PrepareRequest): Promise<void> {
  const { config } = r;
  setWasmThreads(r.threads);
  const report = await selectBackend(tf, config.backend, browserPlatform, {
    preset: timedPreset(config),
    timeAlone: true,
    wasmThreads: r.threads,
    cached: (key) => r.measurements[key],
  });
  if (!report.backend)
    throw new Error(
      `backend ${report.requested} refused: ${report.attempts.map((a) => a.reason).join('; ')}`,
    );
  post({ type: 'backend', report: await withThreads(report) });
  if (r.dataset) registerGivenData(r.dataset);
  const recipe = pretrainRecipe(expandWorkflow(config.workflow!));
  const maxSteps = r.maxSteps ?? recipe.maxSteps;
  const t0 = performance.now();
  const result = await pretrainWorkflowBase(config, {
    maxSteps,
    onProgress: (p) => post({ type: 'progress', ...p, maxSteps }),
    stop: stop.signal,
  });
  const files = Object.entries(result.checkpoints).map(([id, ckpt]) => ({
    name: `${id}.ckpt`,
    bytes: encodeCheckpoint(ckpt).slice().buffer,
  }));
  post(
    {
      type: 'done',
      files,
      steps: result.steps,
      success: result.success,
      own: result.own,
      short: !result.reached,
      seconds: (performance.now() - t0) / 1000,
    },
    files.map((f) => f.bytes),
  );
}

onmessage = (e: MessageEvent<ToPrepare>) => {
  if (e.data.type === 'stop') return stop.abort();
  prepare(e.data).catch((err: Error) => post({ type: 'error', message: err.message }));
};
