/**
 * The page's handle on run workers: `LabSession` owns one worker per run × seed of an experiment
 * and is the only listener on them, handing every message to the page's one reducer (`receive` in
 * ui/session/worker-messages.ts).
 * How each worker is made and started, and how many at once, is run-start.ts; the backend
 * indicator's worker is probe.ts.
 */
import type { Experiment } from '../core/config';
import type { LiveParam } from '../core/live-params';
import { runRepeats } from '../core/config';
import { agreedStep, withScheduled, type HoldAnswer } from '../core/live-schedule';
import type { FromWorker, RunId, ToWorker } from './protocol';
import {
  newRunWorker,
  nextRunId,
  queuedText,
  startMessage,
  workerSlots,
  type RunInfo,
  type SessionOptions,
} from './run-start';

/**
 * Every run × seed of an experiment, one worker each, at most `slots` at once: the others wait in a
 * queue (seed by seed, so each seed's runs finish close together and pair up early) and take the
 * worker slot of a run that is done or failed. Workers start paused once ready; one that starts
 * while the session plays is told to play, at the session's pace and live changes (each in its
 * run's schedule at the step the running repeats took it at: set). Given a link sweep's cells (an
 * experiment each), every cell's runs × seeds share the one queue, cell after cell, so the cells
 * finish one by one (docs/sweeps.md#a-sweep-in-a-link).
 */
export class LabSession {
  readonly runs: RunInfo[];
  /** The experiment of each cell (one for a session of one experiment), with the live changes agreed since. */
  private readonly configs: Experiment[];
  private readonly workers = new Map<RunId, Worker>();
  private readonly ready = new Set<RunId>();
  private readonly queue: RunInfo[];
  private playing = false;
  private paceMs = 0;
  /** Runs that failed: they take no live change. */
  private readonly failed = new Set<RunId>();
  /** Runs asked to hold (set) that have not answered: each one's resolver. */
  private readonly holding = new Map<RunId, (a: HoldAnswer | null) => void>();
  /** Runs asked to stop (stopped()) that have not said so yet. */
  private readonly stopping = new Map<RunId, (() => void)[]>();
  /** Live changes, one after the other: each agrees its steps before the next asks. */
  private changes: Promise<void> = Promise.resolve();
  private changing = 0;
  /** Queued runs whose slot came free while a change was agreed: they start after it, with it. */
  private deferred: RunInfo[] = [];
  private disposed = false;

  constructor(
    config: Experiment | readonly Experiment[],
    /** The page's reducer: every worker message, and the session's own about its runs. */
    private readonly onMessage: (msg: FromWorker) => void,
    private options: SessionOptions = {},
  ) {
    this.configs = Array.isArray(config) ? [...config] : [config as Experiment];
    this.runs = this.configs
      .flatMap((c, cell) => runRepeats(c).map((r) => ({ ...r, cell })))
      .map((r, i) => ({ id: options.ids?.[i] ?? nextRunId(), ...r, queued: true }));
    const order = [...this.runs].sort(
      (a, b) => a.cell - b.cell || a.seed - b.seed || a.runIndex - b.runIndex,
    );
    const slots = options.slots ?? workerSlots();
    this.queue = order.slice(slots);
    // The workers are created now (live() and allReady() count them) but told to start in a
    // microtask, once the caller has finished setting the session up (keepStates, pace).
    const first = order.slice(0, slots).map((info) => [info, this.spawn(info)] as const);
    queueMicrotask(() => {
      for (const [info, worker] of first) if (this.workers.get(info.id) === worker) this.begin(info, worker);
    });
  }

  /** Runs that have a worker now. */
  live(): RunId[] {
    return [...this.workers.keys()];
  }
  /** Runs waiting for a worker, first in line first. */
  queued(): RunId[] {
    return this.queue.map((r) => r.id);
  }
  /** True when every run with a worker has loaded (commands that need a loaded run can go). */
  allReady(): boolean {
    return this.live().every((id) => this.ready.has(id));
  }

  /** A worker for the run, listened to but not yet started. */
  private spawn(info: RunInfo): Worker {
    info.queued = false;
    const worker = (this.options.newWorker ?? newRunWorker)(`${info.label} (${info.id})`);
    this.workers.set(info.id, worker);
    worker.onmessage = (e: MessageEvent<FromWorker>) => this.dispatch(info, worker, e.data);
    // A crash (an uncaught error in the worker) sends no state of its own: the session fails the
    // run for it, as the worker would, so the run's slot goes to the next queued run and the
    // session can finish. What the run recorded stays. A worker that failed already is past this.
    worker.onerror = (e) => {
      if (this.failed.has(info.id)) return;
      const message = `run worker crashed: ${e.message || 'script error'}`;
      this.onMessage({ type: 'error', runId: info.id, message });
      this.dispatch(info, worker, { type: 'state', runId: info.id, state: 'failed', step: 0, message });
    };
    return worker;
  }

  /** One start message: the worker selects the backend, reports it, and loads the run. */
  private begin(info: RunInfo, worker: Worker): void {
    worker.postMessage(startMessage(info, this.configs[info.cell], this.options));
    if (this.paceMs > 0)
      worker.postMessage({ type: 'pace', runId: info.id, delayMs: this.paceMs } satisfies ToWorker);
  }

  /** A run is done or failed: its worker goes, and the next queued run takes the slot. */
  private release(id: RunId): void {
    this.workers.get(id)?.terminate();
    this.workers.delete(id);
    this.settle(id);
    this.ready.delete(id);
    const next = this.queue.shift();
    if (!next) return;
    this.onMessage({ type: 'state', runId: next.id, state: 'loading', step: 0, message: 'starting worker…' });
    if (this.changing > 0) this.deferred.push(next);
    else this.begin(next, this.spawn(next));
    this.queue.forEach((q, i) =>
      this.onMessage({
        type: 'state',
        runId: q.id,
        state: 'queued',
        step: 0,
        message: queuedText(i, this.queue.length),
      }),
    );
  }

  /** The session's part of a worker message (play once ready, free the slot) around the page's reducer. */
  private dispatch(info: RunInfo, worker: Worker, msg: FromWorker): void {
    if (msg.type === 'ready') {
      this.ready.add(info.id); // before the reducer, which asks allReady()
      if (this.playing) worker.postMessage({ type: 'play', runId: info.id } satisfies ToWorker);
    }
    if (msg.type === 'holding') this.answer(info.id, { step: msg.step, done: msg.done });
    if (msg.type === 'stopped') this.settle(info.id);
    if (msg.type === 'saving') void this.framesStored(info.id, worker, msg.step);
    if (msg.type === 'state' && msg.state === 'failed') {
      this.failed.add(info.id);
      this.answer(info.id, null);
      this.settle(info.id);
    }
    this.onMessage(msg);
    // (A refused backend: the worker reports it, then fails the run naming the reasons.)
    if (msg.type === 'state' && (msg.state === 'done' || msg.state === 'failed') && this.queue.length > 0) {
      this.release(info.id);
    }
  }

  /** A run's state waits for its frames before `step` to be stored (persist.framesStored): the answer. */
  private async framesStored(id: RunId, worker: Worker, step: number): Promise<void> {
    const answer = (await this.options.persist?.framesStored?.(id, step)) ?? { stored: true };
    worker.postMessage({ type: 'frames-stored', runId: id, step, ...answer } satisfies ToWorker);
  }

  private broadcast(make: (id: RunId) => ToWorker): void {
    for (const [id, w] of this.workers) w.postMessage(make(id));
  }

  play(): void {
    this.playing = true;
    this.broadcast((runId) => ({ type: 'play', runId }));
  }
  pause(): void {
    this.playing = false;
    // A failed run has nothing to pause, and would answer 'paused' over its 'failed'.
    for (const [runId, w] of this.workers)
      if (!this.failed.has(runId)) w.postMessage({ type: 'pause', runId } satisfies ToWorker);
  }
  /**
   * Pauses, and resolves once every run with a worker has stopped and saved its state (or failed,
   * or is gone): from then on the workers write nothing until they train again.
   */
  stopped(): Promise<void> {
    this.pause();
    const each = this.live()
      .filter((id) => !this.failed.has(id))
      .map((id) => new Promise<void>((ok) => this.stopping.set(id, [...(this.stopping.get(id) ?? []), ok])));
    return Promise.all(each).then(() => undefined);
  }
  private settle(id: RunId): void {
    for (const ok of this.stopping.get(id) ?? []) ok();
    this.stopping.delete(id);
  }
  step(): void {
    this.broadcast((runId) => ({ type: 'step', runId }));
  }
  /** Keep the runs' states in IndexedDB under `persist.session`; call right after the constructor (the workers start in a microtask). */
  keepStates(persist: NonNullable<SessionOptions['persist']>): void {
    this.options = { ...this.options, persist };
  }
  /** Speed control: every run waits `delayMs` between steps while playing. */
  pace(delayMs: number): void {
    this.paceMs = delayMs;
    this.broadcast((runId) => ({ type: 'pace', runId, delayMs }));
  }
  /**
   * Changes a live parameter in every run at one step per run, the same for all its repeats
   * (docs/links.md#live-change-schedule): the running repeats say their next step and hold there;
   * each takes the change at the latest of them (agreedStep), those behind when they reach it, and
   * the queued ones start with it in their schedule.
   */
  set(param: LiveParam, value: number): Promise<void> {
    this.changing++;
    this.changes = this.changes.then(() => this.agree(param, value));
    return this.changes; // agreed: each running repeat has been told its step
  }

  private async agree(param: LiveParam, value: number): Promise<void> {
    const asked = this.live().filter((id) => this.ready.has(id) && !this.failed.has(id));
    const answers = new Map(await Promise.all(asked.map(async (id) => [id, await this.hold(id)] as const)));
    if (this.disposed) return;
    this.configs.forEach((config, cell) =>
      config.runs.forEach((_, runIndex) => {
        const repeats = this.runs.filter((r) => r.cell === cell && r.runIndex === runIndex);
        const held = repeats.flatMap((r) => answers.get(r.id) ?? []);
        const step = agreedStep(
          held,
          repeats.some((r) => r.queued),
        );
        if (step === null) return;
        this.configs[cell] = withScheduled(this.configs[cell], runIndex, step, param, value);
        for (const r of repeats) {
          const a = answers.get(r.id);
          // A repeat that finished before `step` keeps what it trained (and holds nothing).
          if (a && a.step <= step)
            this.workers
              .get(r.id)
              ?.postMessage({ type: 'set', runId: r.id, param, value, step } satisfies ToWorker);
          else if (r.queued) this.onMessage({ type: 'param', runId: r.id, param, value, step });
        }
      }),
    );
    if (--this.changing > 0) return;
    for (const r of this.deferred.splice(0)) this.begin(r, this.spawn(r));
  }

  /** The run's answer to `hold` (null: it failed or is gone). */
  private hold(id: RunId): Promise<HoldAnswer | null> {
    return new Promise((resolve) => {
      this.holding.set(id, resolve);
      this.workers.get(id)?.postMessage({ type: 'hold', runId: id } satisfies ToWorker);
    });
  }
  private answer(id: RunId, a: HoldAnswer | null): void {
    this.holding.get(id)?.(a);
    this.holding.delete(id);
  }
  snapshot(): void {
    this.broadcast((runId) => ({ type: 'snapshot', runId }));
  }
  runStates(): void {
    this.broadcast((runId) => ({ type: 'run-state', runId }));
  }
  /** Fault injection: every run destroys its GPU device, as a driver reset would. */
  loseDevice(): void {
    this.broadcast((runId) => ({ type: 'lose-device', runId }));
  }
  dispose(): void {
    this.disposed = true;
    for (const id of [...this.holding.keys()]) this.answer(id, null);
    for (const id of [...this.stopping.keys()]) this.settle(id);
    for (const w of this.workers.values()) w.terminate();
    this.workers.clear();
    this.queue.length = 0;
  }
}
