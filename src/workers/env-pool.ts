/**
 * A pool of environment workers behind the tasks layer's `EnvRunner` seam. Each tick's batch is
 * split across the workers; a worker answers item by item, so a time limit applies to every
 * single transition. A worker that hangs past the limit or crashes is terminated and replaced,
 * and the item it was on is tried once more on the replacement: the limit is wall time, and a
 * loaded machine can leave a worker unscheduled past it (a study at load 20 lost two trajectories
 * that way, and its two estimators' runs parted from that step), while a transition is a pure
 * function of its input, so a second try answers as the first would have. Only an item that fails
 * twice gets an error outcome (the orchestrator marks that trajectory invalid with reward 0); the
 * items not reached go to the replacement. The run goes on.
 * Works with anything shaped like a Worker: Web Workers in the browser, worker_threads in Node.
 *
 * A fresh worker first has to start (loading its module; in Node, tsx compiling the task code),
 * which on a busy machine takes seconds: a slow start must never be taken for a hung transition
 * (that made the same run score a trajectory 0 or not depending on the machine's load). The lab's
 * env workers say when they are ready (EnvReady), and the limit then counts from there; until
 * then, and for a worker that never says so, a request gets STARTUP_GRACE_MS on top of the limit.
 */
import type { EnvRunner, EnvStepInput, EnvStepResult } from '../tasks/env';
import { workflowDefinition, type TaskRef, type WorkflowDefinition } from '../tasks/registry';

/**
 * Page → env worker: compute these transitions in order. A workflow's definition comes with the
 * first request for it that a worker gets (a replaced worker gets it again).
 */
export interface EnvRequest {
  id: number;
  task: TaskRef;
  inputs: EnvStepInput[];
  define?: WorkflowDefinition;
}
/** Env worker → page: one answer per input, as soon as it is computed. */
export interface EnvReply {
  id: number;
  index: number;
  result: EnvStepResult;
}
/** Env worker → page, once, when its module has loaded: time limits count from here. */
export interface EnvReady {
  ready: true;
}

/** The part of a Worker the pool uses (Web Worker and a thin worker_threads adapter both fit). */
export interface WorkerLike {
  postMessage(msg: EnvRequest): void;
  onmessage: ((e: { data: EnvReply | EnvReady }) => void) | null;
  onerror: ((e: { message?: string }) => void) | null;
  terminate(): void;
}

interface EnvPoolOptions {
  spawn: () => WorkerLike;
  size: number;
  /** Time limit for one transition, ms. */
  timeoutMs: number;
  /** Extra time for a fresh worker's first answer, ms (default STARTUP_GRACE_MS). */
  startupGraceMs?: number;
}

/** What the pool has had to do; the trainer turns it into metrics. */
interface EnvPoolStats {
  timeouts: number;
  crashes: number;
  replaced: number;
}

/** Extra time for a fresh worker's first answer: its start-up, not the transition's. */
const STARTUP_GRACE_MS = 30_000;

export class WorkerEnvRunner implements EnvRunner {
  readonly stats: EnvPoolStats = { timeouts: 0, crashes: 0, replaced: 0 };
  private readonly workers: WorkerLike[];
  private nextId = 0;
  private disposed = false;
  /** Workers that have not answered yet (still starting). */
  private readonly starting = new WeakSet<WorkerLike>();
  /** The workflows each worker has been given. */
  private readonly defined = new WeakMap<WorkerLike, Set<string>>();

  constructor(private readonly opts: EnvPoolOptions) {
    if (opts.size < 1) throw new Error('env pool needs at least one worker');
    this.workers = Array.from({ length: opts.size }, () => this.spawn());
  }

  private spawn(): WorkerLike {
    const w = this.opts.spawn();
    this.starting.add(w);
    // Ready before any request: its requests get no start-up grace (a request's handler takes over).
    w.onmessage = ({ data }) => {
      if ('ready' in data) this.starting.delete(w);
    };
    return w;
  }

  async step(task: TaskRef, inputs: readonly EnvStepInput[]): Promise<EnvStepResult[]> {
    if (this.disposed) throw new Error('WorkerEnvRunner: step() after dispose()');
    const results: EnvStepResult[] = new Array(inputs.length);
    // Contiguous slices, one per worker: order within a slice is the order of answers.
    const per = Math.ceil(inputs.length / this.workers.length);
    const slices = this.workers.map((_, w) => ({
      w,
      from: w * per,
      to: Math.min(inputs.length, (w + 1) * per),
    }));
    await Promise.all(
      slices.filter((s) => s.from < s.to).map((s) => this.runSlice(s.w, task, inputs, s.from, s.to, results)),
    );
    return results;
  }

  /** Feeds inputs[from, to) to worker `w`, replacing it as often as it hangs or dies. */
  private async runSlice(
    w: number,
    task: TaskRef,
    inputs: readonly EnvStepInput[],
    from: number,
    to: number,
    results: EnvStepResult[],
  ): Promise<void> {
    let next = from;
    /** The item tried once already, after its worker failed on it, and why it failed then. */
    let retriedAt = -1;
    let firstFailure = '';
    while (next < to) {
      const failure = await this.runOnce(
        this.workers[w],
        task,
        inputs,
        next,
        to,
        results,
        (i) => (next = i + 1),
      );
      if (failure === null) return;
      // The worker is gone or stuck: a fresh one tries the item once more, then takes the rest.
      this.workers[w].terminate();
      this.workers[w] = this.spawn();
      this.stats.replaced++;
      if (retriedAt !== next) {
        [retriedAt, firstFailure] = [next, failure];
        continue;
      }
      results[next] = {
        ok: false,
        error: `traj ${inputs[next].traj}: environment ${firstFailure}, and again on a fresh worker (${failure}); both workers replaced`,
      };
      next++;
    }
  }

  /** One request to one worker; resolves null when all answered, else why it stopped. */
  private runOnce(
    worker: WorkerLike,
    task: TaskRef,
    inputs: readonly EnvStepInput[],
    from: number,
    to: number,
    results: EnvStepResult[],
    answered: (index: number) => void,
  ): Promise<string | null> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      // The limit counts from the last answer (or the ready message): each answer moves a deadline
      // later, and one timer checks it when it fires, set again for the time left. A clear and a
      // new timer per answer cost the run's thread 2 % of its time at a hundred answers a step.
      let deadline = 0;
      let limit = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let firesAt = Infinity;
      const wake = (at: number) => {
        clearTimeout(timer);
        firesAt = at;
        timer = setTimeout(watch, at - performance.now());
      };
      const watch = () => {
        if (performance.now() < deadline) return wake(deadline);
        this.stats.timeouts++;
        finish(`timed out after ${limit} ms`);
      };
      const arm = () => {
        const grace = this.opts.startupGraceMs ?? STARTUP_GRACE_MS;
        limit = this.opts.timeoutMs + (this.starting.has(worker) ? grace : 0);
        deadline = performance.now() + limit;
        if (deadline < firesAt) wake(deadline); // sooner than the timer set (the start-up grace ended)
      };
      const finish = (failure: string | null) => {
        clearTimeout(timer);
        worker.onmessage = null;
        worker.onerror = null;
        resolve(failure);
      };
      worker.onmessage = ({ data }) => {
        const started = this.starting.delete(worker);
        if ('ready' in data) return started ? arm() : undefined; // the limit counts from now
        if (data.id !== id) return; // a late answer from an earlier, abandoned request
        results[from + data.index] = data.result;
        answered(from + data.index);
        if (from + data.index === to - 1) finish(null);
        else arm();
      };
      worker.onerror = (e) => {
        this.stats.crashes++;
        finish(`worker crashed (${e.message || 'no message'})`);
      };
      arm();
      const known = this.defined.get(worker) ?? new Set<string>();
      this.defined.set(worker, known);
      const define = known.has(task) ? null : workflowDefinition(task);
      if (define) known.add(task);
      worker.postMessage({ id, task, inputs: inputs.slice(from, to), ...(define ? { define } : {}) });
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.workers) w.terminate();
  }
}
