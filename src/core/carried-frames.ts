/**
 * The frames a run's saved state carries: those of its steps the page had not stored yet when the
 * state was written. The page stores a run's frames in IndexedDB about once a second
 * (src/ui/session/recorder.ts); the run's worker writes its state after every step into its own
 * files (src/storage/state-store.ts) without waiting for those frames, and puts in the state every
 * frame the page has not said it stored. So wherever a closed page stopped, the stored frames and
 * the newest state's carried frames together hold every step before that state: a reload goes on
 * from the state, records its carried frames first, and loses at most the step in progress.
 *
 * In a state, the carried frames are steps `from`, `from` + 1, … up to the state's step, each
 * `width` values, end to end as float64 in base64url: exact, NaN and ±Infinity included, which
 * JSON's numbers cannot hold. Pure.
 */
import { fromBase64Url, toBase64Url } from './base64url';

/** One step's metric frame, in its run's key order (frame.ts). */
export interface StepFrame {
  step: number;
  values: Float64Array;
}

/** Frames of the steps from `from` up to their state's step, each `width` values, in base64url. */
export interface CarriedFrames {
  from: number;
  width: number;
  values: string;
}

/**
 * The most steps a state carries. More means the page has stored none of them for that long (its
 * storage is full, or refused them): the save is then refused as one without room.
 */
export const MAX_CARRIED = 512;
/**
 * The most frames a worker keeps in flight. Past MAX_CARRIED every save is refused until the page
 * stores more, so older ones are dropped: a state accepted later carries at most MAX_CARRIED frames
 * from a step the page has stored up to, never across the dropped ones.
 */
const MAX_IN_FLIGHT = 2 * MAX_CARRIED;
/** The widest frame read back from a state (a run's metric keys; a file may be forged). */
const MAX_WIDTH = 1 << 16;

/** `frames` (consecutive steps, one width) as a state carries them; undefined for none. */
export function carry(frames: readonly StepFrame[]): CarriedFrames | undefined {
  if (frames.length === 0) return undefined;
  const from = frames[0].step;
  const width = frames[0].values.length;
  const all = new Float64Array(frames.length * width);
  frames.forEach((f, i) => {
    if (f.step !== from + i || f.values.length !== width)
      throw new Error(`frames to carry must be consecutive steps of one width, got step ${f.step} at ${i}`);
    all.set(f.values, i * width);
  });
  return { from, width, values: toBase64Url(new Uint8Array(all.buffer)) };
}

/**
 * The frames a state after `step` steps carries, or null where `c` is not what carry writes for
 * such a state: a start outside 0…step, a width that is no count, text that is not base64url, or
 * a byte length other than (step − from) frames of `width` values.
 */
export function uncarry(c: unknown, step: number): StepFrame[] | null {
  if (typeof c !== 'object' || c === null) return null;
  const { from, width, values } = c as Partial<CarriedFrames>;
  if (!Number.isInteger(from) || !Number.isInteger(width) || typeof values !== 'string') return null;
  if (from! < 0 || from! > step || width! < 1 || width! > MAX_WIDTH) return null;
  const bytes = fromBase64Url(values);
  if (!bytes || bytes.byteLength !== (step - from!) * width! * 8) return null;
  const all = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
  return Array.from({ length: step - from! }, (_, i) => ({
    step: from! + i,
    values: all.slice(i * width!, (i + 1) * width!),
  }));
}

/**
 * A run worker's frames the page has not said it stored, oldest first: consecutive steps, since
 * the page stores a run's frames in the order they came.
 */
export class FramesInFlight {
  private frames: StepFrame[] = [];

  /** A step's frame as it goes to the page (a step done again replaces it and those after). */
  add(frame: StepFrame): void {
    this.frames = this.frames.filter((f) => f.step < frame.step);
    this.frames.push(frame);
    if (this.frames.length > MAX_IN_FLIGHT) this.frames.shift();
  }

  /** The page has stored every frame of this run before `through`. */
  storedBefore(through: number): void {
    this.frames = this.frames.filter((f) => f.step >= through);
  }

  /** How many are not stored yet. */
  get size(): number {
    return this.frames.length;
  }

  /** What a state after `step` steps carries: the frames before it not stored yet. */
  before(step: number): CarriedFrames | undefined {
    return carry(this.frames.filter((f) => f.step < step));
  }
}
