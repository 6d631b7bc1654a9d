/**
 * RunDriver's saves (driver.ts): when a run's state is read and written to the host's StateStore,
 * and what the sink is told. Kept apart from the step loop because the ordering below is the one
 * guarantee a saved state gives, and it reads best on its own.
 *
 * With a store, the run's state is saved every `saveEvery` steps, when it pauses and after its
 * last step. A step's result goes to the sink before the state after it is saved, so a saved state
 * is never ahead of what was recorded. A periodic save reads the state at once (between two steps)
 * and writes it while the next step trains; that step's result waits for the write. So the write
 * costs the run no time unless it takes longer than a step, and a step the sink has is never more
 * than one ahead of the state the store holds (with `saveEvery` 1: a run stopped at any moment
 * loses at most the step in progress).
 */
import type { DriverSink, StateStore } from './driver-host';
import type { UnsealedRunState } from './run-state';
import { readRunState } from './trainer-state';
import type { RunTrainer } from './trainer';

interface SavesOptions {
  /** Where states go; absent: never saved. */
  store: StateStore | null | undefined;
  sink: Pick<DriverSink<unknown>, 'saved'>;
  /** The step the run starts at: its state there is already saved (or is the fresh run's). */
  step: number;
  /** The run's trainer now (null once it is gone), read when a save starts. */
  trainer: () => RunTrainer | null;
  /** The device-loss guard now: a state already read at its step, reused rather than read again. */
  guard: () => UnsealedRunState | null;
}

export class StateSaves {
  private savedStep: number;
  /** The state write in flight, if any: the next step's result is reported only once it is done. */
  private writing: Promise<void> = Promise.resolve();
  /** ms the saves spent since `spent()` last took them: reading, and the store's work. */
  private ms = 0;

  constructor(private readonly o: SavesOptions) {
    this.savedStep = o.step;
  }

  /** Resolves once the write in flight, if any, is done. */
  get written(): Promise<void> {
    return this.writing;
  }

  /**
   * The ms saving took since the last call (perf/save_ms of the step about to be reported, once
   * `written`): each read, which holds the run between two steps, and each write's own work. On
   * WebGPU the device-loss guard has read the state at this step already and the save reuses it,
   * so the read counts only where it is this save's; the write runs beside the next step, so only
   * the store's own work counts.
   */
  spent(): number {
    const ms = this.ms;
    this.ms = 0;
    return ms;
  }

  /** Saves the state now and waits until it is written (on pause, and after the last step). */
  async save(): Promise<void> {
    await this.writing; // a write in flight may be of this very step's state
    await this.start();
    await this.writing;
  }

  /**
   * Reads the state now, unless there is no store or it is already saved at this step, and starts
   * writing it after the write before; resolves once it is read (the run may then go on).
   */
  async start(): Promise<void> {
    const t = this.o.trainer();
    const store = this.o.store;
    if (!store || !t || t.step === this.savedStep) return;
    const step = t.step;
    const guard = this.o.guard();
    const t0 = performance.now();
    const read = guard?.meta.step === step ? Promise.resolve(guard) : readRunState(t, { reason: 'periodic' });
    await read.catch(() => undefined); // read between two steps; a failure is reported as the write's
    this.ms += performance.now() - t0;
    const { sink } = this.o;
    this.writing = this.writing.then(async () => {
      try {
        const state = await read;
        const t1 = performance.now();
        const work = await store.save(state);
        this.ms += typeof work === 'number' ? work : performance.now() - t1;
        this.savedStep = step;
        sink.saved?.(step);
      } catch (e) {
        if (!sink.saved) throw e;
        sink.saved(step, (e as Error).message, store.isFull?.(e) ?? false);
      }
    });
  }
}
