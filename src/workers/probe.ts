/**
 * The shell's backend indicator: a run worker asked only to select a backend (`init`), then
 * terminated.
 */
import type { BackendName } from '../core/config-names';
import type { ModelPreset } from '../core/model-sizes';
import type { BackendReport } from '../backends/backend-types';
import type { FromWorker, Measurements, ToWorker } from './protocol';
import { newRunWorker, nextRunId } from './run-start';

interface BackendProbe {
  /** Resolves once a worker has chosen (or refused) the backend. */
  report: Promise<BackendReport>;
  /** Stops the probe if it is still running. */
  cancel(): void;
}

/**
 * The shell's backend indicator: a run worker that only selects a backend and is then
 * terminated, so it does not hold a GPU device or wasm memory while the runs train. `auto` times
 * `preset` on each candidate (wasm on `threads`, as the runs will run it) unless `measurements`
 * holds a measurement of these devices.
 */
export function probeBackend(
  backend: BackendName,
  preset: ModelPreset,
  measurements: Measurements = {},
  threads = 1,
): BackendProbe {
  const id = nextRunId();
  const worker = newRunWorker(id);
  const report = new Promise<BackendReport>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<FromWorker>) => {
      if (e.data.type === 'backend') resolve(e.data.report);
      else if (e.data.type === 'error') reject(new Error(e.data.message));
    };
    worker.onerror = (e) => reject(new Error(`worker failed to start: ${e.message || 'script error'}`));
  }).finally(() => worker.terminate());
  worker.postMessage({ type: 'init', runId: id, backend, preset, measurements, threads } satisfies ToWorker);
  return { report, cancel: () => worker.terminate() };
}
