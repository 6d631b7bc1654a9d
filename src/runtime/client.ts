/**
 * The page's handle on run workers. `probeBackend` checks a backend (the shell's indicator);
 * `LabSession` owns one worker per run × seed of an experiment and is the only listener on them,
 * turning their messages into `LabEvents` callbacks. Imports no tfjs: Vite bundles the worker as
 * its own chunk, so tfjs never reaches the main bundle.
 */
import type { BackendName, Experiment, LiveParam } from '../core/config';
import { runInstances } from '../core/config';
import type { BackendReport } from './backend-types';
import { runId } from './protocol';
import type { FromWorker, InspectedTrajectory, RunId, RunStatus, ToWorker } from './protocol';

const newWorker = (name: string) => new Worker(new URL('./run.worker.ts', import.meta.url), { type: 'module', name });

let counter = 0;
const nextId = (): RunId => runId(`run-${++counter}`);

export interface BackendProbe {
  /** Resolves once a worker has chosen (or refused) the backend. */
  report: Promise<BackendReport>;
  /** Stops the probe if it is still running. */
  cancel(): void;
}

/**
 * The shell's backend indicator: a run worker that only selects a backend and is then
 * terminated, so it does not hold a GPU device or wasm memory while the runs train.
 */
export function probeBackend(backend: BackendName): BackendProbe {
  const id = nextId();
  const worker = newWorker(id);
  const report = new Promise<BackendReport>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<FromWorker>) => {
      if (e.data.type === 'backend') resolve(e.data.report);
      else if (e.data.type === 'error') reject(new Error(e.data.message));
    };
    worker.onerror = (e) => reject(new Error(`worker failed to start: ${e.message || 'script error'}`));
  }).finally(() => worker.terminate());
  worker.postMessage({ type: 'init', runId: id, backend } satisfies ToWorker);
  return { report, cancel: () => worker.terminate() };
}

export interface RunInfo {
  id: RunId;
  label: string;
  seed: number;
  runIndex: number;
}

export interface LabEvents {
  backend(id: RunId, report: BackendReport): void;
  /** The run lost its GPU device and goes on from `step` on `report`'s backend. */
  fallback(id: RunId, report: BackendReport, step: number, message: string, kernels: string): void;
  ready(id: RunId, msg: Extract<FromWorker, { type: 'ready' }>): void;
  frame(id: RunId, step: number, values: Float64Array): void;
  rollouts(id: RunId, step: number, trajectories: InspectedTrajectory[]): void;
  state(id: RunId, state: RunStatus, step: number, message?: string): void;
  param(id: RunId, param: LiveParam, value: number, step: number): void;
  checkpoint(id: RunId, step: number, files: Record<string, ArrayBuffer>): void;
  saved(id: RunId, step: number, error?: string): void;
  error(id: RunId, message: string): void;
}

export interface SessionOptions {
  /** Checkpoint files to start from instead of the shipped base models (every run gets a copy). */
  uploads?: { name: string; bytes: ArrayBuffer }[];
  /** Keep each run's state in IndexedDB under this session id (and resume from it). */
  persist?: { session: string; every: number; resume: boolean };
  /** Worker ids to use, in run order (a resumed session keeps its recorded ids). */
  ids?: RunId[];
}

/** Every run × seed of an experiment, one worker each; they start paused once ready. */
export class LabSession {
  readonly runs: RunInfo[];
  private readonly workers = new Map<RunId, Worker>();

  constructor(
    config: Experiment,
    events: LabEvents,
    private options: SessionOptions = {},
  ) {
    this.runs = runInstances(config).map((r, i) => ({ id: options.ids?.[i] ?? nextId(), ...r }));
    for (const info of this.runs) {
      const worker = newWorker(`${info.label} (${info.id})`);
      this.workers.set(info.id, worker);
      worker.onmessage = (e: MessageEvent<FromWorker>) => this.dispatch(info, config, worker, e.data, events);
      worker.onerror = (e) => events.error(info.id, `run worker crashed: ${e.message || 'script error'}`);
      worker.postMessage({ type: 'init', runId: info.id, backend: config.backend } satisfies ToWorker);
    }
  }

  private dispatch(info: RunInfo, config: Experiment, worker: Worker, msg: FromWorker, ev: LabEvents): void {
    switch (msg.type) {
      case 'backend':
        ev.backend(info.id, msg.report);
        if (msg.report.backend) {
          worker.postMessage({
            type: 'start',
            runId: info.id,
            config,
            run: info.runIndex,
            seed: info.seed,
            label: info.label,
            uploads: this.options.uploads ?? [],
            ...(this.options.persist ? { persist: this.options.persist } : {}),
          } satisfies ToWorker);
        } else ev.error(info.id, `backend ${msg.report.requested} refused: ${msg.report.attempts.map((a) => a.reason).join('; ')}`);
        return;
      case 'fallback':
        return ev.fallback(info.id, msg.report, msg.step, msg.message, msg.kernels);
      case 'ready':
        return ev.ready(info.id, msg);
      case 'frame':
        return ev.frame(info.id, msg.step, msg.values);
      case 'rollouts':
        return ev.rollouts(info.id, msg.step, msg.trajectories);
      case 'state':
        return ev.state(info.id, msg.state, msg.step, msg.message);
      case 'param':
        return ev.param(info.id, msg.param, msg.value, msg.step);
      case 'checkpoint':
        return ev.checkpoint(info.id, msg.step, msg.files);
      case 'saved':
        return ev.saved(info.id, msg.step, msg.error);
      case 'error':
        return ev.error(info.id, msg.message);
      default: {
        const never: never = msg;
        ev.error(info.id, `unknown message ${JSON.stringify(never)}`);
      }
    }
  }

  private broadcast(make: (id: RunId) => ToWorker): void {
    for (const [id, w] of this.workers) w.postMessage(make(id));
  }

  play(): void {
    this.broadcast((runId) => ({ type: 'play', runId }));
  }
  pause(): void {
    this.broadcast((runId) => ({ type: 'pause', runId }));
  }
  step(): void {
    this.broadcast((runId) => ({ type: 'step', runId }));
  }
  /** Keep the runs' states in IndexedDB under `persist.session`; call before the workers start. */
  keepStates(persist: NonNullable<SessionOptions['persist']>): void {
    this.options = { ...this.options, persist };
  }
  /** Speed control: every run waits `delayMs` between steps while playing. */
  pace(delayMs: number): void {
    this.broadcast((runId) => ({ type: 'pace', runId, delayMs }));
  }
  set(param: LiveParam, value: number): void {
    this.broadcast((runId) => ({ type: 'set', runId, param, value }));
  }
  snapshot(): void {
    this.broadcast((runId) => ({ type: 'snapshot', runId }));
  }
  /** Fault injection: every run destroys its GPU device, as a driver reset would. */
  loseDevice(): void {
    this.broadcast((runId) => ({ type: 'lose-device', runId }));
  }
  dispose(): void {
    for (const w of this.workers.values()) w.terminate();
    this.workers.clear();
  }
}
