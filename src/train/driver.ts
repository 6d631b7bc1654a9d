/**
 * One run, driven: the step loop (play, pause, one step, stop), the save cadence, the
 * lost-device fallback, the count of skipped updates, rollout throttling and snapshots. The page's
 * run worker and the CLI both drive every run through this class, so both give the same
 * guarantees. What differs between the hosts is passed in (driver-host.ts): where states are kept,
 * where results go, the clock, and how the backend is switched. No DOM, no Node.
 *
 * Saves: with a store, every `saveEvery` steps, on pause and after the last step, never ahead of
 * what the sink has recorded (driver-saves.ts says how).
 *
 * Lockstep: with a gate (the page's runs of one seed: workers/lockstep.ts), a step starts only once
 * the gate lets it, so the runs compared side by side stay within one step of each other; a pause
 * may name the step to stop at, the same for every run (LabSession.pause).
 *
 * Lost device: on a backend whose device can be lost (a GPU), the state after every step is kept
 * in memory (the guard). When the device is lost, the step in flight is dropped and the run goes
 * on, on the fallback backend, from the guard: a resumed run repeats what the lost one would have
 * computed, so no step is lost or recorded twice.
 */
import type { LiveParam } from '../core/live-params';
import type { HoldAnswer } from '../core/live-schedule';
import { M } from '../core/metrics';
import { encodeCheckpoint, saveCheckpoint } from '../model/checkpoint';
import {
  realClock,
  type Clock,
  type DriverOptions,
  type DriverStart,
  type DriverStatus,
} from './driver-host';
import { StateSaves } from './driver-saves';
import { sealRunState, type RunState, type UnsealedRunState } from './run-state';
import { readRunState, resumeRunTrainer, saveRunState } from './trainer-state';
import { RunTrainer, type TrainStepResult } from './trainer';

/** How long a failed step waits for the loss of its device to be reported before it counts as an error. */
const LOSS_GRACE_MS = 2000;

export class RunDriver<R = unknown> {
  /** The trainer while the run lives; null once it is stopped or could not go on. */
  private current: RunTrainer | null;
  private readonly clock: Clock;
  /** On a guarded backend: the state after the latest step, to fall back to (sealed only then). */
  private guard: UnsealedRunState | null = null;
  /** Bumped when the device is lost: a step still in flight on the old device is then dropped. */
  private generation = 0;
  private playing = false;
  /** The step being computed, if any: one at a time; pause waits for it before saving. */
  private inFlight: Promise<void> | null = null;
  /** A state being read (state()): the loop starts no step until it is read. */
  private reading: Promise<unknown> = Promise.resolve();
  private readonly saves: StateSaves;
  private delayMs = 0;
  private rolloutsAt = -Infinity;
  private unsentRollouts: TrainStepResult | null = null;
  /** A hold (hold()): no step from `step` on starts until setLiveFrom releases it. */
  private held: { step: number; released: Promise<void>; release: () => void } | null = null;
  /** pause(at): the loop stops once this many steps are done, then `reached` resolves. */
  private until: { step: number; reached: () => void } | null = null;
  /** The loop that plays now: a loop left waiting at the gate by a pause ends when it wakes. */
  private loops = 0;
  /** Model updates skipped (non-finite loss, gradient or weights) and made, over this driver's steps. */
  skippedUpdates = 0;
  updates = 0;

  private constructor(
    trainer: RunTrainer,
    private readonly o: DriverOptions<R>,
  ) {
    this.current = trainer;
    this.clock = o.clock ?? realClock;
    this.saves = new StateSaves({
      store: o.store,
      sink: o.sink,
      step: trainer.step,
      trainer: () => this.current,
      guard: () => this.guard,
    });
  }

  /** Builds the run (fresh, or from a saved state) and, on a guarded backend, keeps its first state. */
  static async open<R>(start: DriverStart, o: DriverOptions<R>): Promise<RunDriver<R>> {
    const trainer =
      'state' in start
        ? resumeRunTrainer(start.state, { env: o.env, schedule: start.schedule })
        : new RunTrainer({ ...start.fresh, env: o.env });
    const d = new RunDriver(trainer, o);
    if (o.backend?.guarded()) d.guard = await readRunState(trainer, { reason: 'device-loss guard' });
    void o.backend?.lost.then((why) => d.fallBack(why));
    return d;
  }

  /** The run's trainer (its models, agents and metric keys); throws once the run is gone. */
  get trainer(): RunTrainer {
    if (!this.current)
      throw new Error('the run is gone (stopped, or its device was lost and it could not go on)');
    return this.current;
  }
  get step(): number {
    return this.current?.step ?? 0;
  }
  get done(): boolean {
    return this.step >= this.o.steps;
  }

  /** Trains step after step until paused, done or failed. */
  async play(): Promise<void> {
    if (this.playing || this.done) return;
    this.playing = true;
    this.status('running');
    await this.loop();
  }

  /**
   * Stops after the step in flight, then saves (a reload or a closed tab resumes exactly here). A
   * finished run stays done: the page pauses every run it holds to let its session go
   * (src/ui/session/controller.ts),
   * finished ones too, and a run shown paused is not finished (Findings leaves it out, a reload
   * offers to train it on). With `at`, a playing run first trains on until `at` steps are done
   * (the step every run of its block stops at: at most one more, in lockstep); it releases a hold.
   */
  async pause(at?: number): Promise<void> {
    this.held?.release();
    this.held = null;
    if (at !== undefined && this.playing && this.step < at && !this.done)
      await new Promise<void>((reached) => (this.until = { step: at, reached }));
    this.until = null;
    this.playing = false;
    if (!this.inFlight && !this.done) this.status('paused');
    // A failed step has already been reported by the command that ran it.
    await this.inFlight?.catch(() => undefined);
    if (this.unsentRollouts) this.sendRollouts(this.unsentRollouts, true);
    await this.saves.save();
  }

  /** One step, unless the run plays (then the loop takes them) or is done; after the gate, if any. */
  stepOnce(): Promise<void> {
    const t = this.current;
    if (!t || this.playing || this.inFlight || this.done) return this.inFlight ?? Promise.resolve();
    return this.track(t, this.o.gate?.(t.step));
  }

  /** Speed control: wait this long between steps while playing. */
  pace(delayMs: number): void {
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new Error(`pace must be a delay ≥ 0 ms, got ${delayMs}`);
    this.delayMs = delayMs;
  }

  /**
   * Changes a live hyper-parameter from step `at` on (the next step, if that is later), through
   * the run's schedule (the path a replayed link takes), and releases a hold; returns that step.
   */
  setLiveFrom(param: LiveParam, value: number, at?: number): number {
    const due = this.trainer.scheduleLive(param, value, at);
    this.held?.release();
    this.held = null;
    return due;
  }

  /**
   * The run's next step, where it then waits until the next setLiveFrom, so a change can still be
   * given that step: the page asks every repeat of a run and schedules the change at the latest
   * answer (agreedStep). A finished run (`done`) holds nothing; one in its last step answers the
   * step it ends at, so a change agreed then comes after every repeat's end.
   */
  hold(): HoldAnswer {
    const next = this.trainer.nextStep;
    if (this.done) return { step: next, done: true };
    if (!this.held) {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      this.held = { step: next, released, release };
    }
    return { step: this.held.step, done: false };
  }

  /** The whole run's state now (weights, optimizer moments, counters): what a save stores. */
  state(): Promise<RunState> {
    const before = this.inFlight?.catch(() => undefined);
    const read = (async () => {
      await before; // between two steps, as a save is
      const t = this.trainer;
      return this.guard?.meta.step === t.step
        ? sealRunState(this.guard)
        : saveRunState(t, { reason: 'download' });
    })();
    this.reading = read.catch(() => undefined);
    return read;
  }

  /** Each model's weights now, as checkpoint files. */
  async snapshot(): Promise<Record<string, Uint8Array>> {
    const t = this.trainer;
    const files: Record<string, Uint8Array> = {};
    for (const m of t.models) {
      const ckpt = await saveCheckpoint(m.model, {
        preset: m.preset,
        notes: { step: t.step, agents: m.agents },
      });
      files[m.id] = encodeCheckpoint(ckpt);
    }
    return files;
  }

  /** Stops playing after the step in flight, without saving (a command failed). */
  halt(): void {
    this.playing = false;
  }

  /** Ends the run: stops playing, frees its models and environments. */
  stop(): void {
    this.playing = false;
    this.generation++;
    this.current?.dispose();
    this.current = null;
    this.o.env.dispose();
  }

  /**
   * The step of `t`, once `gate` (if any) lets it start: the step in flight from now on. `wanted`
   * says, after a hold is released, whether the step is still to be taken.
   */
  private track(t: RunTrainer, gate?: Promise<void>, wanted = () => true): Promise<void> {
    const gen = this.generation;
    const go = gate
      ? gate.then(() => this.trainAndReport(t, gen, wanted))
      : this.trainAndReport(t, gen, wanted);
    const step = go.finally(() => {
      if (gen === this.generation) this.inFlight = null; // after a device loss the fallback owns inFlight
    });
    this.inFlight = step;
    return step;
  }

  /** One step: train, guard the state, report the result and rollouts, save when due. */
  private async trainAndReport(t: RunTrainer, gen: number, wanted: () => boolean): Promise<void> {
    if (this.held && t.step >= this.held.step) {
      while (this.held && t.step >= this.held.step) await this.held.released;
      // A pause releases the hold too, and may have come after this run reached it (a loaded
      // machine delays the page's pause past the runs' answers): the step waited for is then not
      // taken, or this run would stop one step past the others of its block.
      if (gen !== this.generation) return;
      if (!wanted()) return this.status(this.playing ? 'running' : 'paused');
    }
    // The first step compiles every shader (seconds on WebGPU); say so rather than look frozen.
    if (t.step === 0) this.status('compiling', 'compiling shaders…');
    let r: TrainStepResult;
    try {
      r = await t.trainStep();
    } catch (e) {
      // A step that failed because its device went away is the fallback's to redo, not an error;
      // the loss may be reported a little after the failure it caused.
      if (this.o.backend?.guarded())
        await Promise.race([this.o.backend.lost, this.clock.sleep(LOSS_GRACE_MS)]);
      if (gen !== this.generation) return;
      this.playing = false;
      throw e;
    }
    if (gen !== this.generation) return; // the device was lost meanwhile; the fallback redoes this step
    await this.saves.written; // the state saved after the step before is stored before this step is reported
    if (gen !== this.generation) return;
    if (this.o.backend?.guarded()) this.guard = await readRunState(t, { reason: 'device-loss guard' });
    if (gen !== this.generation) return;
    r.metrics[M.saveMs] = this.saves.spent();
    this.skippedUpdates += r.metrics[M.updateSkipped] ?? 0;
    this.updates += t.models.length;
    await this.o.sink.frame(r);
    this.sendRollouts(r, !this.playing || this.done);
    if (this.done) {
      this.playing = false;
      await this.saves.save();
      this.status(
        'done',
        this.trainedNothing()
          ? `every model update (${this.updates}) was skipped: non-finite loss, gradient or weights; this run never trained`
          : undefined,
      );
    } else {
      if (this.o.saveEvery && t.step % this.o.saveEvery === 0) await this.saves.start();
      if (gen === this.generation) this.status(this.playing ? 'running' : 'paused');
    }
  }

  /** True when every update of the steps this driver took was skipped. */
  trainedNothing(): boolean {
    return this.updates > 0 && this.skippedUpdates >= this.updates;
  }

  private async loop(): Promise<void> {
    const gen = this.generation; // a loop on a lost device ends; the fallback starts its own
    const me = ++this.loops;
    const going = () => this.playing && gen === this.generation && me === this.loops && !this.done;
    // A step is wanted while the loop goes on and the pause's step (if any) is not reached yet:
    // checked before the step, and again if a hold held it (a pause releases holds too).
    const wanted = (t: RunTrainer) => going() && !(this.until && t.step >= this.until.step);
    try {
      while (going()) {
        const t = this.current;
        if (!t) return;
        // The other runs of the block first (lockstep); a pause meanwhile ends this loop.
        if (!this.inFlight && this.o.gate) await this.o.gate(t.step);
        if (!wanted(t)) return;
        await (this.inFlight ?? this.track(t, undefined, () => wanted(t)));
        // Also lets pause, step and set commands in between steps.
        await this.clock.sleep(this.delayMs);
        await this.reading;
      }
    } finally {
      // However the loop ends (at the step a pause named, done, failed, device lost), pause(at) goes on.
      if (me === this.loops) this.until?.reached();
    }
  }

  private sendRollouts(r: TrainStepResult, now: boolean): void {
    this.unsentRollouts = r;
    if (!this.o.sink.rollouts || !(now || this.clock.now() - this.rolloutsAt >= (this.o.rolloutsMs ?? 1000)))
      return;
    this.o.sink.rollouts(r);
    this.rolloutsAt = this.clock.now();
    this.unsentRollouts = null;
  }

  private status(state: DriverStatus, message?: string): void {
    this.o.sink.status?.(state, this.step, message);
  }

  /**
   * The device is lost (driver reset, GPU removed, a long background spell): the run switches to
   * the fallback backend and goes on from the guard, or stops with a message if even that fails.
   * What the sink already has stays.
   */
  private async fallBack(why: string): Promise<void> {
    const wasPlaying = this.playing;
    this.playing = false;
    this.generation++;
    this.inFlight = null;
    const old = this.current;
    const saved = this.guard;
    this.current = null;
    try {
      old?.dispose(); // its tensors belong to the lost device; freeing them is bookkeeping only
    } catch {
      // nothing to free on a dead device
    }
    try {
      if (!saved) throw new Error('no saved state to go on from');
      const report = await this.o.backend!.fallBack();
      this.current = resumeRunTrainer(sealRunState(saved), { env: this.o.env });
      this.guard = null;
      this.o.sink.fallback?.(report, this.current.step, why);
      if (this.done) return this.status('done');
      this.status('paused');
      if (wasPlaying) await this.play();
    } catch (e) {
      this.o.sink.error?.(
        `${why}; the run could not go on (${(e as Error).message}). Its recorded metrics are kept; reload or choose wasm to train again.`,
      );
      this.status('failed', why);
    }
  }
}
