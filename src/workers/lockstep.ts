/**
 * The runs of one seed of an experiment train side by side, step for step: each run's worker
 * starts its step s only once every other run of its block has done s steps, so their step
 * counters are never more than one apart, whatever the cores (two cores share four runs' workers
 * as the OS schedules them) and whatever each run's step costs. A block is the runs of one
 * experiment (a link sweep's cell) at one seed: what the page compares side by side
 * (run-start.ts `lockstepBlocks` plans them).
 *
 * The workers tell each other their progress on a BroadcastChannel of the session's, not through
 * the page: a step's end reaches the others without waiting for the page's main thread, which may
 * be busy drawing charts. A worker that joins late (queued, or slow to load) says hello, and every
 * other answers with its count, so no count is missed. A run that fails or whose worker crashes
 * would hold the others back for ever: the page says it left (LabSession), and no one waits for it.
 * No tfjs, no DOM: BroadcastChannel is in workers and in Node (the unit tests).
 */
import type { LockstepPlan, RunId } from './protocol';

/** What the block's runs say on the channel. */
export type LockstepMessage =
  /** `run` has done `steps` steps; `hello`: it just joined, and everyone should say where they are. */
  | { run: RunId; steps: number; hello?: boolean }
  /** `run` trains no more (failed, or its worker crashed): no one waits for it. */
  | { run: RunId; left: true };

export class Lockstep {
  /** Each other run's steps done, as last heard (0 until heard: a run that has not started). */
  private readonly peers = new Map<RunId, number>();
  private waiting: { step: number; go: () => void }[] = [];
  private readonly channel: BroadcastChannel;
  private mine = 0;

  constructor(
    private readonly me: RunId,
    plan: LockstepPlan,
  ) {
    for (const run of plan.runs) if (run !== me) this.peers.set(run, 0);
    this.channel = new BroadcastChannel(plan.channel);
    this.channel.onmessage = (e: MessageEvent<LockstepMessage>) => this.hear(e.data);
  }

  /** This run joins at `steps` steps done (a resumed run's saved step). */
  join(steps: number): void {
    this.mine = steps;
    this.say({ run: this.me, steps, hello: true });
  }

  /** This run has done `steps` steps. */
  done(steps: number): void {
    this.mine = steps;
    this.say({ run: this.me, steps });
  }

  /** Resolves once every other run of the block has done at least `step` steps. */
  gate(step: number): Promise<void> {
    if (this.behind() >= step) return Promise.resolve();
    return new Promise((go) => this.waiting.push({ step, go }));
  }

  close(): void {
    this.channel.close();
    for (const w of this.waiting) w.go(); // nothing to wait for any more
    this.waiting = [];
  }

  /** The fewest steps any other run has done (Infinity when none is left). */
  private behind(): number {
    return Math.min(Infinity, ...this.peers.values());
  }

  private hear(m: LockstepMessage): void {
    if (!this.peers.has(m.run)) return; // not of this block (or already left)
    if ('left' in m) this.peers.delete(m.run);
    else {
      this.peers.set(m.run, Math.max(this.peers.get(m.run)!, m.steps));
      if (m.hello) this.say({ run: this.me, steps: this.mine });
    }
    const behind = this.behind();
    const ready = this.waiting.filter((w) => w.step <= behind);
    this.waiting = this.waiting.filter((w) => w.step > behind);
    for (const w of ready) w.go();
  }

  private say(m: LockstepMessage): void {
    this.channel.postMessage(m);
  }
}

/** What the page says on a block's channel when one of its runs trains no more. */
export function leaveLockstep(channel: string, run: RunId): void {
  const c = new BroadcastChannel(channel);
  c.postMessage({ run, left: true } satisfies LockstepMessage);
  c.close();
}
