/**
 * How a session's runs are started: one module worker each (run.worker.ts), how many at once
 * (sessionSlots: every run of a seed together, in lockstep; LabSession in client.ts queues the
 * rest, worded by queuedText), and one `start` message that carries everything the worker needs.
 * Imports no tfjs: Vite bundles the worker as its own chunk, so tfjs never reaches the main bundle.
 */
import type { Experiment } from '../core/config';
import { runRepeats } from '../core/config';
import { stateKey } from '../storage/state-store';
import type { StorageFault } from '../storage/storage-fault';
import { runId } from './protocol';
import type { LockstepPlan, Measurements, RunId, ToWorker } from './protocol';
import type { GivenData } from './given-data';

export const newRunWorker = (name: string) =>
  new Worker(new URL('./run.worker.ts', import.meta.url), { type: 'module', name });

let counter = 0;
export const nextRunId = (): RunId => runId(`run-${++counter}`);

export interface RunInfo {
  id: RunId;
  label: string;
  seed: number;
  runIndex: number;
  /** The experiment it belongs to: a link sweep's cell (its index), 0 for a session of one experiment. */
  cell: number;
  /** Waits in the session's queue for a free worker (it has none yet). */
  queued: boolean;
}

/**
 * How many run workers the machine is given at once: one per core, at least 2 (the two runs of the
 * default comparison side by side), at most 8.
 */
export function workerSlots(cores: number = globalThis.navigator?.hardwareConcurrency ?? 2): number {
  return Math.max(2, Math.min(8, Math.floor(cores) || 2));
}

const experiments = (config: Experiment | readonly Experiment[]): readonly Experiment[] =>
  Array.isArray(config) ? config : [config as Experiment];

/**
 * How many run workers a session keeps at once: whole blocks, a block being the runs of one seed
 * (of one cell, for a link sweep), as many as workerSlots holds and at least one, so every run
 * compared side by side trains with the others, whatever the cores (a 4-run experiment on 2 cores:
 * 4 workers, in lockstep: lockstep.ts). The other blocks wait in the queue, seed by seed.
 */
export function sessionSlots(
  config: Experiment | readonly Experiment[],
  cores: number = globalThis.navigator?.hardwareConcurrency ?? 2,
): number {
  const block = Math.max(1, ...experiments(config).map((c) => c.runs.length));
  return Math.max(1, Math.floor(workerSlots(cores) / block)) * block;
}

/** How many of the experiment's runs (a link sweep's: all its cells') train at once (the rest wait in the queue). */
export function runsAtOnce(
  config: Experiment | readonly Experiment[],
  cores: number = globalThis.navigator?.hardwareConcurrency ?? 2,
): number {
  const runs = experiments(config).flatMap((c) => runRepeats(c)).length;
  return Math.min(runs, sessionSlots(config, cores));
}

/** What a queued run's status says: its place in the line. */
export const queuedText = (i: number, n: number) => `queued for a free worker (${i + 1} of ${n})`;

export interface SessionOptions {
  /** Checkpoint files to start from instead of the shipped base models (every run gets a copy). */
  uploads?: { name: string; bytes: ArrayBuffer }[];
  /** The workflow's dataset file, for an experiment whose workflow reads one (every run gets a copy). */
  dataset?: GivenData | null;
  /** Keep each run's state in IndexedDB under this session id (and resume from it). */
  persist?: {
    session: string;
    every: number;
    resume: boolean;
    /** With `resume`: the stateKey()s of the runs that have a saved state; the others start from step 0. */
    saved?: readonly string[];
    /** Tests only: the storage-fault.ts plan each worker's saves follow. */
    fault?: StorageFault | null;
    /**
     * How far run `run`'s frames are stored: every one before `through`; its worker's state carries
     * the rest. `stored` false: the page records the session no more, and no state is written.
     * Absent: nothing is recorded, and every state is written.
     */
    framesStored?: (run: RunId) => { stored: boolean; through: number };
  };
  /** Worker ids to use, in run order (a resumed session keeps its recorded ids). */
  ids?: RunId[];
  /** Workers at once (default: sessionSlots()). */
  slots?: number;
  /** `auto`'s kept measurements, read as each run starts (one taken meanwhile is reused). */
  measurements?: () => Measurements;
  /** Threads for each run's wasm backend (threads.ts), read as each run starts; 1 if absent. */
  threads?: () => number;
  /** Tests only: makes each run's worker (default: newRunWorker). */
  newWorker?: (name: string) => Worker;
}

/**
 * The one message that starts a run's worker: it selects the backend, reports it, and loads the
 * run; `lockstep`: the block it steps with (lockstep.ts), if it has one.
 */
export function startMessage(
  info: RunInfo,
  config: Experiment,
  options: SessionOptions,
  lockstep?: LockstepPlan,
): ToWorker {
  return {
    type: 'start',
    runId: info.id,
    backend: config.backend,
    config,
    run: info.runIndex,
    seed: info.seed,
    label: info.label,
    measurements: options.measurements?.() ?? {},
    threads: options.threads?.() ?? 1,
    uploads: options.uploads ?? [],
    ...(options.dataset ? { dataset: options.dataset } : {}),
    ...(options.persist ? { persist: persistOf(options.persist, info) } : {}),
    ...(lockstep ? { lockstep } : {}),
  };
}

/**
 * The session's lockstep blocks: the runs of one seed of one cell, on a channel named for the
 * session (`session`: unique to it) and the block. A block of one run steps alone (none).
 */
export function lockstepBlocks(runs: readonly RunInfo[], session: string): Map<RunId, LockstepPlan> {
  const blocks = new Map<string, RunId[]>();
  for (const r of runs) {
    const key = `${r.cell}:${r.seed}`;
    blocks.set(key, [...(blocks.get(key) ?? []), r.id]);
  }
  const plans = new Map<RunId, LockstepPlan>();
  for (const [key, ids] of blocks)
    if (ids.length > 1)
      for (const id of ids) plans.set(id, { channel: `agentwise-lockstep:${session}:${key}`, runs: ids });
  return plans;
}

/** A run's persistence: resumed only if it has a saved state (a run that waited in the queue may have none). */
function persistOf(p: NonNullable<SessionOptions['persist']>, run: RunInfo) {
  return {
    session: p.session,
    every: p.every,
    resume: p.resume && (p.saved?.includes(stateKey(run.runIndex, run.label)) ?? true),
    ...(p.fault ? { fault: p.fault } : {}),
  };
}
