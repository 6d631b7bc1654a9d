/**
 * A `lab sweep` worker thread: trains the cells the sweep hands it, one at a time, through the
 * same trainFolder as `lab train`, and reports each cell's progress. The sweep's main thread owns
 * the terminal and the signals: a `stop` message is its Ctrl-C.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import type { Experiment } from '../core/config';
import type { BackendName } from '../core/config-names';
import { trainedNothing } from '../report/summary';
import { enableRelaxedSimd } from '../backends/relaxed-simd-node';
import { runLabels } from '../train/experiment';
import { modelSlots } from '../sizing/slots';
import { trainFolder } from './train';
import { registerDataBytes } from './workflow';

export type ToSweepWorker =
  { type: 'cell'; dir: string; config: Experiment; resume: boolean } | { type: 'stop'; signal: string };
export type FromSweepWorker =
  | { type: 'progress'; step: number; info: string }
  | { type: 'note'; line: string }
  | { type: 'finished'; dead: string[] }
  | { type: 'failed'; message: string };
export interface WorkerSettings {
  backend: BackendName;
  checkpointEvery: number;
  /** A workflow's dataset file, as the sweep's main thread read it. */
  dataset: { file: string; bytes: Uint8Array } | null;
}

tf.enableProdMode();
enableRelaxedSimd(); // before any model runs, as in main.ts
const settings = workerData as WorkerSettings;
if (settings.dataset) registerDataBytes(settings.dataset.file, settings.dataset.bytes);
const port = parentPort!;
const stop = new AbortController();
const post = (m: FromSweepWorker) => port.postMessage(m);

async function runCell({ dir, config, resume }: Extract<ToSweepWorker, { type: 'cell' }>): Promise<void> {
  // The cell's progress is the step every one of its runs (in lockstep) has finished.
  const at = new Map(runLabels(config).map((r) => [r.label, 0]));
  try {
    const { summaries } = await trainFolder(config, dir, {
      backend: settings.backend,
      init: [],
      checkpointEvery: settings.checkpointEvery,
      resume,
      givenSteps: config.steps,
      force: false,
      stop: stop.signal,
      note: (line) => post({ type: 'note', line }),
      progress: (label, step, info) => {
        at.set(label, step);
        post({ type: 'progress', step: Math.min(...at.values()), info });
      },
    });
    const dead = summaries.filter((s) => trainedNothing(s, modelSlots(config).length)).map((s) => s.run);
    post({ type: 'finished', dead });
  } catch (e) {
    post({ type: 'failed', message: (e as Error).message });
  }
}

port.on('message', (m: ToSweepWorker) => {
  if (m.type === 'stop') stop.abort(m.signal);
  else void runCell(m);
});
