/**
 * The typed message protocol between the page and its run workers: discriminated unions on
 * `type`, a `runId` on every message, switched on exhaustively at both ends. The page never
 * imports tfjs; everything it learns about a run arrives here. Metrics travel as one Float64Array
 * per step (transferred, never copied) against the key table sent once in `ready`.
 */
import type { Experiment } from '../core/config';
import type { InspectedTrajectory } from '../core/inspected';
import type { BackendName } from '../core/config-names';
import type { LiveParam } from '../core/live-params';
import type { ModelPreset } from '../core/model-sizes';
import type { BackendReport, Measurement } from '../backends/backend-types';
import type { StorageFault } from '../storage/storage-fault';
import type { GivenData } from './given-data';

/** A lockstep block's channel and its runs, as the page plans them (run-start.ts, lockstep.ts). */
export interface LockstepPlan {
  channel: string;
  runs: RunId[];
}

/** `auto`'s kept measurements by key (auto-choice.ts measurementKey). */
export type Measurements = Record<string, Measurement>;

export type RunId = string & { readonly __brand: 'RunId' };
export const runId = (s: string): RunId => s as RunId;

// The rollout inspector's view of a batch is plain data, also kept in result files: core/inspected.ts.
export type { InspectedSibling, InspectedTrajectory, InspectedTurn } from '../core/inspected';

/** Page → worker. */
export type ToWorker =
  /** Only selects the backend and reports it (the shell's backend indicator); `auto` times `preset`. */
  | {
      type: 'init';
      runId: RunId;
      backend: BackendName;
      preset: ModelPreset;
      measurements?: Measurements;
      threads?: number;
    }
  /** One message starts a run: the worker selects `backend`, reports it (`backend`), then loads the run (`ready`). */
  | {
      type: 'start';
      runId: RunId;
      backend: BackendName;
      config: Experiment;
      /** Index into config.runs. */
      run: number;
      seed: number;
      label: string;
      /** `auto`'s measurements kept by the page (ui/backend-cache.ts): one for these devices is reused. */
      measurements?: Measurements;
      /**
       * Threads for the wasm backend, resolved by the page (threads.ts; 1 if absent). Not in
       * `config`: they change the speed, never the results.
       */
      threads?: number;
      /** Checkpoint files the user uploaded, to start from instead of the shipped base models. */
      uploads?: { name: string; bytes: ArrayBuffer }[];
      /**
       * A workflow's dataset file (config.workflow.data names it by its SHA-256): the worker
       * registers its rows before it builds the run (docs/workflows.md#in-the-page).
       */
      dataset?: GivenData;
      /**
       * Where the run's state is kept (its files, or IndexedDB; state-store.ts): saved every `every` steps,
       * when paused and when done, each with the run's frames the page has not stored yet (`saving`,
       * `frames-stored`). With `resume`, the run goes on from the state saved there.
       */
      persist?: {
        session: string;
        every: number;
        resume: boolean;
        /** Tests only: states this worker saves at these steps are refused as a full disk's (storage-fault.ts). */
        fault?: StorageFault;
      };
      /** The runs this one steps with, side by side (lockstep.ts), and their channel; absent: it steps alone. */
      lockstep?: LockstepPlan;
    }
  | { type: 'play'; runId: RunId }
  /**
   * Stop after the step in flight and save; with `at`, train on until `at` steps are done first
   * (the step every run of the block stops at: LabSession.pause). Answered by `stopped`.
   */
  | { type: 'pause'; runId: RunId; at?: number }
  | { type: 'step'; runId: RunId }
  /** Speed control: wait this long between steps while playing (0 = as fast as it trains). */
  | { type: 'pace'; runId: RunId; delayMs: number }
  /**
   * Say the run's next step (`holding`) and start no step from it on until the next `set`: the
   * page asks every running repeat of a run, so that one step suits them all.
   */
  | { type: 'hold'; runId: RunId }
  /** Take `param = value` from step `step` on (the next step, if that is later); releases a hold. */
  | { type: 'set'; runId: RunId; param: LiveParam; value: number; step: number }
  | { type: 'snapshot'; runId: RunId }
  /** Send the run's whole state now (`run-state`), to be downloaded as a CLI state file. */
  | { type: 'run-state'; runId: RunId }
  /** Fault injection: destroys the run's GPU device, as a driver reset would (tests, demos). */
  | { type: 'lose-device'; runId: RunId }
  /**
   * The answer to `saving` (its `step`): the page has stored the run's frames before `through`, and
   * the state carries the rest (src/core/carried-frames.ts); or the page records this session no
   * more (`stored` false), and that state is not written.
   */
  | { type: 'frames-stored'; runId: RunId; step: number; stored: boolean; through: number };

/** A run's state; 'queued' is the page's own (the run waits for a free worker, it has none yet). */
export type RunStatus =
  'queued' | 'idle' | 'loading' | 'compiling' | 'running' | 'paused' | 'done' | 'failed';

/** Worker → page. */
export type FromWorker =
  | { type: 'backend'; runId: RunId; report: BackendReport }
  /**
   * The GPU device was lost and the run goes on, on `report`'s backend, from its state after
   * `step` steps (nothing recorded is lost or repeated). `message` says what happened.
   */
  | { type: 'fallback'; runId: RunId; report: BackendReport; step: number; message: string; kernels: string }
  | {
      type: 'ready';
      runId: RunId;
      /** The frame key table (src/core/metrics.ts names), fixed for the run. */
      keys: string[];
      agents: string[];
      models: { id: string; preset: string; agents: string[]; params: number }[];
      /** Where the starting weights came from, per model id ('shipped' or why not). */
      base: Record<string, string>;
      /** Steps already completed when the run resumed from a saved state (0 for a fresh run). */
      startStep: number;
      /**
       * The frames its saved state carried (steps before startStep the page had not stored when
       * the state was written): the page records those it does not have. Absent: none.
       */
      carried?: { step: number; values: Float64Array }[];
      /** Which kernels run the model: the lab's fused wasm SIMD ones, or tfjs's own ops. */
      kernels: string;
    }
  /**
   * The run's state was saved (state-store.ts) after `step` steps, or could not be (`error`; `full`:
   * for want of room, a QuotaExceededError, and training goes on).
   */
  | { type: 'saved'; runId: RunId; step: number; error?: string; full?: boolean }
  /**
   * The run's state after `step` steps is read; the page answers at once how far it has stored the
   * run's frames (`frames-stored`), and the state carries the frames after those, so the stored
   * frames and the newest state together never leave a step out.
   */
  | { type: 'saving'; runId: RunId; step: number }
  /**
   * The answer to `pause`: the run stopped after `step` steps and its state is saved (or could not
   * be): it writes nothing more until it is told to train again, so the page may let the session go.
   */
  | { type: 'stopped'; runId: RunId; step: number }
  /**
   * The answer to `run-state`: encodeRunState's bytes of the run after `step` steps, and the file
   * name `lab train` gives that state under checkpoints/ (where `--resume` looks for it).
   */
  | { type: 'run-state'; runId: RunId; step: number; name: string; bytes: ArrayBuffer }
  | { type: 'frame'; runId: RunId; step: number; values: Float64Array }
  | { type: 'rollouts'; runId: RunId; step: number; trajectories: InspectedTrajectory[] }
  | { type: 'state'; runId: RunId; state: RunStatus; step: number; message?: string }
  /** The answer to `hold`: the step the run holds before, or (`done`) the step it ends at, holding nothing. */
  | { type: 'holding'; runId: RunId; step: number; done: boolean }
  | { type: 'param'; runId: RunId; param: LiveParam; value: number; step: number }
  | { type: 'checkpoint'; runId: RunId; step: number; files: Record<string, ArrayBuffer> }
  | { type: 'error'; runId: RunId; message: string };
