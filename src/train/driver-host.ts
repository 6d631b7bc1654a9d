/**
 * What a host hands RunDriver (driver.ts): the page's run worker and the CLI drive every run
 * through the same class, and what differs between them comes in through these types — where
 * states are kept (a StateStore), where results go (a DriverSink), the clock, and how the backend
 * is switched when its device is lost (a BackendSwitcher). Kept apart from the driver so a host
 * reads its side of the contract without the loop's machinery. No DOM, no Node.
 */
import type { LiveSchedule } from '../core/live-params';
import type { EnvRunner } from '../tasks/env';
import type { RunState, UnsealedRunState } from './run-state';
import type { TrainerOptions, TrainStepResult } from './trainer';

/** What the driver says a run is doing (a subset of the page's RunStatus). */
export type DriverStatus = 'compiling' | 'running' | 'paused' | 'done' | 'failed';

/**
 * Where a run's states are kept: its state files (state-store.ts) in the page, DIR/checkpoints in the CLI. A state comes
 * as read, unsealed (run-state.ts): a store that writes a file seals it (sealRunState).
 */
export interface StateStore {
  /**
   * Writes the state. A store that also waits on something else meanwhile (the page's answer)
   * resolves to the ms of its own work, which perf/save_ms counts; otherwise the call's whole time
   * is counted.
   */
  save(state: UnsealedRunState): void | number | Promise<void | number>;
  /** Whether a save's error is a refusal for want of room (the sink's `saved` is told so). */
  isFull?(error: unknown): boolean;
}

/** Where the driver's results and reports go: the page's messages, the CLI's files and bars. */
export interface DriverSink<R> {
  /** Each step's result, in step order, exactly once (a step redone after a fallback only once). */
  frame(r: TrainStepResult): void | Promise<void>;
  /** The latest step's rollouts: at once for a single step, the last one and on pause; at most once per `rolloutsMs` while playing. */
  rollouts?(r: TrainStepResult): void;
  status?(state: DriverStatus, step: number, message?: string): void;
  /**
   * The state was saved after `step` steps, or could not be (`error`; `full`: the store refused it
   * for want of room): training goes on. Without this handler a failed save is thrown instead.
   */
  saved?(step: number, error?: string, full?: boolean): void;
  /** The device was lost (`why`) and the run goes on from `step` on the fallback backend (`report`). */
  fallback?(report: R, step: number, why: string): void;
  /** The device was lost and the run could not go on. */
  error?(message: string): void;
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The host's backend: whether its device can be lost, when it is, and the switch to the fallback. */
export interface BackendSwitcher<R> {
  /** True while on a backend whose device can be lost: the driver then keeps a state after every step. */
  guarded(): boolean;
  /** Resolves with why, once the device is lost (never, on wasm or cpu). */
  readonly lost: Promise<string>;
  /** Switches to the fallback backend (wasm) and says what it is; throws if it is refused. */
  fallBack(): Promise<R>;
}

export interface DriverOptions<R> {
  /** The run's environments; the driver disposes them on stop(). */
  env: EnvRunner;
  /** The step the run ends at. */
  steps: number;
  sink: DriverSink<R>;
  /** Where states go; absent: never saved. */
  store?: StateStore | null;
  /** Steps between saves (0: only on pause and after the last step). */
  saveEvery?: number;
  clock?: Clock;
  /** Absent: a backend whose device cannot be lost (the CLI's). */
  backend?: BackendSwitcher<R>;
  /** Rollouts go to the sink at most once per this many ms while playing (default 1000). */
  rolloutsMs?: number;
  /**
   * Resolves once the run may start step `step` (the page's lockstep: workers/lockstep.ts);
   * absent, every step may start at once.
   */
  gate?: (step: number) => Promise<void>;
}

/**
 * A fresh run (TrainerOptions without env) or a saved state to go on from, with the live changes
 * of the experiment it resumes under (`schedule`: those due after the save apply at their steps).
 */
export type DriverStart =
  { fresh: Omit<TrainerOptions, 'env'> } | { state: RunState; schedule?: LiveSchedule };
