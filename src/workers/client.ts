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
import { leaveLockstep } from './lockstep';
import type { FromWorker, LockstepPlan, RunId, ToWorker } from './protocol';
import {
  lockstepBlocks,
  newRunWorker,
  nextRunId,
  queuedText,
  sessionSlots,
  startMessage,
  type RunInfo,
  type SessionOptions,
} from './run-start';

/**
 * Every run × seed of an experiment, one worker each, at most `slots` at once (sessionSlots: every
 * run of a seed together): the others wait in a queue (seed by seed, so each seed's runs finish
 * close together and pair up early) and take the worker slot of a run that is done or failed. The
 * runs of one seed step in lockstep (lockstep.ts), never more than one step apart; a pause stops
 * them at one step, and a live change takes effect at one step for every run. Workers start
 * paused once ready; one that starts while the session plays is told to play, at the session's
 * pace and live changes (each in its run's schedule at the step the running runs took it at: set).
 * Given a link sweep's cells (an experiment each), every cell's runs × seeds share the one queue,
 * cell after cell, so the cells finish one by one (docs/sweeps.md#a-sweep-in-a-link).
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
  /** Pauses and changes queued in `changes` and not yet done. */
  private turns = 0;
  private changing = 0;
  /** Queued runs whose slot came free while a change was agreed: they start after it, with it. */
  private deferred: RunInfo[] = [];
  private disposed = false;
  /** Each run's lockstep block (the runs of its seed), if it has one. */
  private readonly lockstep: Map<RunId, LockstepPlan>;

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
    this.lockstep = lockstepBlocks(
      this.runs,
      `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`,
    );
    const slots = options.slots ?? sessionSlots(this.configs);
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
    worker.postMessage(startMessage(info, this.configs[info.cell], this.options, this.lockstep.get(info.id)));
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
    if (msg.type === 'saving') this.framesStored(info.id, worker, msg.step);
    if (msg.type === 'state' && msg.state === 'failed') {
      // The rest of its block no longer waits for it.
      const plan = this.lockstep.get(info.id);
      if (plan && !this.failed.has(info.id)) leaveLockstep(plan.channel, info.id);
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

  /** A run's state after `step` steps asks how far its frames are stored (persist.framesStored): the answer. */
  private framesStored(id: RunId, worker: Worker, step: number): void {
    const answer = this.options.persist?.framesStored?.(id) ?? { stored: true, through: step };
    worker.postMessage({ type: 'frames-stored', runId: id, step, ...answer } satisfies ToWorker);
  }

  private broadcast(make: (id: RunId) => ToWorker): void {
    for (const [id, w] of this.workers) w.postMessage(make(id));
  }

  play(): void {
    this.playing = true;
    // After a pause or a change being agreed, if one is: their messages go first.
    this.nowOrInTurn(() => this.broadcast((runId) => ({ type: 'play', runId })));
  }
  /**
   * Every run stops after its step in flight; the runs of a block at one step: each says its next
   * step and holds there, and all stop once the latest of them is done (one more step at most,
   * in lockstep), so a side-by-side comparison stays side by side, and a change made while paused
   * takes effect at one step for all.
   */
  pause(): void {
    this.playing = false;
    void this.inTurn(() => this.stopTogether());
  }
  private async stopTogether(): Promise<void> {
    // A failed run has nothing to pause, and would answer 'paused' over its 'failed'.
    const live = this.live().filter((id) => !this.failed.has(id));
    const asked = live.filter((id) => this.ready.has(id) && this.lockstep.has(id));
    const answers = new Map(await Promise.all(asked.map(async (id) => [id, await this.hold(id)] as const)));
    if (this.disposed) return;
    const latest = new Map<string, number>();
    for (const [id, a] of answers) {
      const block = this.lockstep.get(id)!.channel;
      if (a) latest.set(block, Math.max(latest.get(block) ?? 0, a.step));
    }
    for (const runId of live) {
      const at = answers.get(runId) ? latest.get(this.lockstep.get(runId)!.channel) : undefined;
      this.workers
        .get(runId)
        ?.postMessage({ type: 'pause', runId, ...(at === undefined ? {} : { at }) } satisfies ToWorker);
    }
  }
  /** `f` after the pause or change in progress, if any (one at a time, in the order asked). */
  private inTurn(f: () => void | Promise<void>): Promise<void> {
    this.turns++;
    this.changes = this.changes.then(f).finally(() => this.turns--);
    return this.changes;
  }
  /** `f` now if no pause or change is in progress, else after them. */
  private nowOrInTurn(f: () => void): void {
    if (this.turns === 0) f();
    else void this.inTurn(f);
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
    this.nowOrInTurn(() => this.broadcast((runId) => ({ type: 'step', runId })));
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
   * Changes a live parameter in every run at one step, the same for all of them and all their
   * repeats (docs/links.md#live-change-schedule): the running repeats say their next step and hold
   * there; each takes the change at the latest of them (agreedStep), those behind when they reach
   * it, and the queued ones start with it in their schedule.
   */
  set(param: LiveParam, value: number): Promise<void> {
    this.changing++;
    return this.inTurn(() => this.agree(param, value)); // agreed: each running repeat has been told its step
  }

  private async agree(param: LiveParam, value: number): Promise<void> {
    const asked = this.live().filter((id) => this.ready.has(id) && !this.failed.has(id));
    const answers = new Map(await Promise.all(asked.map(async (id) => [id, await this.hold(id)] as const)));
    if (this.disposed) return;
    this.configs.forEach((config, cell) => {
      const runs = this.runs.filter((r) => r.cell === cell);
      const step = agreedStep(
        runs.flatMap((r) => answers.get(r.id) ?? []),
        runs.some((r) => r.queued),
      );
      if (step === null) return;
      config.runs.forEach((_, runIndex) => {
        const repeats = runs.filter((r) => r.runIndex === runIndex);
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
      });
    });
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
