/**
 * Preparing a workflow's base models in the page: each agent pretrained on its demonstrations
 * (pretrainWorkflowBase, src/train/pretrain.ts, the recipe the CLI uses), in a
 * worker of its own (prepare.worker.ts), since tfjs never runs on the main thread. The worker says
 * its backend, then each step's loss and, at each check, the team's and each agent's own validation
 * success; Stop ends it at the next step with the models as they stand. The answer is the models'
 * checkpoint files, which the page keeps under baseModelsKey and hands to Train's runs as they would
 * take uploaded checkpoints (docs/workflows.md#in-the-page).
 */
import type { Experiment } from '../core/config';
import type { BackendReport } from '../backends/backend-types';
import type { GivenData } from './given-data';
import type { Measurements } from './protocol';

export interface PrepareRequest {
  type: 'prepare';
  config: Experiment;
  dataset: GivenData | null;
  /** wasm threads, as the page resolves them for a run (threads.ts). */
  threads: number;
  measurements: Measurements;
  /** The pretraining's step cap (default: the workflow's base.maxSteps; tests lower it: ?prepare-steps=N). */
  maxSteps?: number;
}

export type ToPrepare = PrepareRequest | { type: 'stop' };

/** The base models prepared: checkpoint files named `<model id>.ckpt`, and how far they got. */
export interface PreparedBase {
  files: { name: string; bytes: ArrayBuffer }[];
  steps: number;
  /** The team's validation success (avg@k) at the last check, and each agent's own. */
  success: number;
  own: Record<string, number>;
  /** Stopped before the recipe's target was reached (Stop, or the step cap). */
  short: boolean;
  seconds: number;
}

export type FromPrepare =
  | { type: 'backend'; report: BackendReport }
  | {
      type: 'progress';
      step: number;
      maxSteps: number;
      loss: number;
      success?: number;
      own?: Record<string, number>;
    }
  | ({ type: 'done' } & PreparedBase)
  | { type: 'error'; message: string };

/** A preparation under way: Stop ends it at the next step (the models as they stand come back). */
export interface Preparation {
  stop(): void;
  /** The prepared models; rejects with the worker's message. */
  done: Promise<PreparedBase>;
}

/** Starts preparing in a fresh worker, which exits once it has answered; `hear` gets its progress. */
export function prepareInWorker(request: PrepareRequest, hear: (m: FromPrepare) => void): Preparation {
  const worker = new Worker(new URL('./prepare.worker.ts', import.meta.url), {
    type: 'module',
    name: 'prepare-base-models',
  });
  const done = new Promise<PreparedBase>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<FromPrepare>) => {
      const m = e.data;
      if (m.type === 'done') resolve(m);
      else if (m.type === 'error') reject(new Error(m.message));
      else hear(m);
    };
    worker.onerror = (e) => reject(new Error(e.message || 'the preparation worker failed'));
  }).finally(() => worker.terminate());
  worker.postMessage(request satisfies ToPrepare);
  return { stop: () => worker.postMessage({ type: 'stop' } satisfies ToPrepare), done };
}
