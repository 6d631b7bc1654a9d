/**
 * A pool of environment workers behind the tasks layer's `EnvRunner` seam. Each tick's batch is
 * split across the workers, and a time limit applies to every single transition, counted from a
 * worker's last answer. A worker sends what it has done whenever BATCH_MS have passed since its
 * last answer, and at the end: the run's thread wakes a few times a tick instead of once per
 * trajectory, about 5 ms of a run step's rollout in the page (docs/figures.md#where-a-steps-time-goes).
 * So a silence may hold up to BATCH_MS of finished items, and the limit is BATCH_MS longer.
 *
 * A worker that hangs past the limit or crashes is terminated and replaced. Which item it stopped
 * at is not known (it may have finished items past the last it sent), so the items it had not
 * answered go to a fresh worker that answers one by one; where that one fails names the item, and
 * the item is tried once more on another fresh worker. The limit is wall time, and a loaded machine
 * can leave a worker unscheduled past it (a study at load 20 lost two trajectories that way, and
 * its two estimators' runs parted from that step), while a transition is a pure function of its
 * input, so a second try answers as the first would have. Only an item that fails twice answering
 * one by one gets an error outcome (the orchestrator marks that trajectory invalid with reward 0);
 * the items not reached go to the replacement. The run goes on.
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
 * Page → env worker: compute these transitions in order, and send what is done whenever `flushMs`
 * have passed since the last answer, and at the end (0: each as soon as it is computed). A
 * workflow's definition comes with the first request for it that a worker gets (a replaced worker
 * gets it again).
 */
export interface EnvRequest {
  id: number;
  task: TaskRef;
  inputs: EnvStepInput[];
  flushMs: number;
  define?: WorkflowDefinition;
}
/** Env worker → page: the answers to inputs[from], inputs[from + 1], …, in order. */
export interface EnvReply {
  id: number;
  from: number;
  results: EnvStepResult[];
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

/** How long a worker on a first try keeps finished answers before it sends them. */
const BATCH_MS = 20;

/**
 * An env worker's loop (browser and Node alike): computes `inputs` in order with `apply`, and
 * sends the answers through `send` in batches, as EnvRequest's `flushMs` says.
 */
export function answerRequest(
  { id, inputs, flushMs }: Pick<EnvRequest, 'id' | 'inputs' | 'flushMs'>,
  apply: (input: EnvStepInput) => EnvStepResult,
  send: (reply: EnvReply) => void,
): void {
  let from = 0;
  let results: EnvStepResult[] = [];
  let last = performance.now();
  inputs.forEach((input, index) => {
    results.push(apply(input));
    const now = performance.now();
    if (index === inputs.length - 1 || now - last >= flushMs) {
      send({ id, from, results });
      [from, results, last] = [index + 1, [], now];
    }
  });
}

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
    /** Answers one by one: after a failure, so that the next one names the item it stopped at. */
    let oneByOne = false;
    while (next < to) {
      const failure = await this.runOnce(
        this.workers[w],
        { task, inputs, from: next, to, flushMs: oneByOne ? 0 : BATCH_MS },
        results,
        (i) => (next = i + 1),
      );
      if (failure === null) return;
      // The worker is gone or stuck: a fresh one tries the item once more, then takes the rest.
      this.workers[w].terminate();
      this.workers[w] = this.spawn();
      this.stats.replaced++;
      // A batching worker may have finished items past the last it sent: which one it stopped at
      // is not known, so a fresh worker answering one by one takes them all again.
      if (!oneByOne) {
        oneByOne = true;
        continue;
      }
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

  /** One request to one worker for inputs[from, to); resolves null when all answered, else why it stopped. */
  private runOnce(
    worker: WorkerLike,
    req: { task: TaskRef; inputs: readonly EnvStepInput[]; from: number; to: number; flushMs: number },
    results: EnvStepResult[],
    answered: (index: number) => void,
  ): Promise<string | null> {
    const { task, inputs, from, to, flushMs } = req;
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
        limit = this.opts.timeoutMs + flushMs + (this.starting.has(worker) ? grace : 0);
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
        data.results.forEach((r, k) => (results[from + data.from + k] = r));
        const last = from + data.from + data.results.length - 1;
        answered(last);
        if (last === to - 1) finish(null);
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
      worker.postMessage({
        id,
        task,
        inputs: inputs.slice(from, to),
        flushMs,
        ...(define ? { define } : {}),
      });
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.workers) w.terminate();
  }
}
