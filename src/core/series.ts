/**
 * Bounded metric history and the views charts draw from it: a ring buffer of frames per run,
 * min/max-per-bucket downsampling (spikes survive, as in W&B), and TensorBoard's debiased EMA.
 * Charts never see more than a few hundred points per series (recharts slows past ~1k, SVG).
 * Pure: no tfjs, no DOM.
 */

/** The last `capacity` frames of one run, each a Float64Array over the same key table. */
export class FrameRing {
  private readonly data: Float64Array;
  private start = 0;
  private count = 0;

  constructor(
    readonly width: number,
    readonly capacity: number,
  ) {
    this.data = new Float64Array(width * capacity);
  }

  get length(): number {
    return this.count;
  }

  push(frame: Float64Array): void {
    if (frame.length !== this.width) throw new Error(`frame width ${frame.length} ≠ ${this.width}`);
    const slot = (this.start + this.count) % this.capacity;
    this.data.set(frame, slot * this.width);
    if (this.count < this.capacity) this.count++;
    else this.start = (this.start + 1) % this.capacity; // oldest frame dropped
  }

  /** Value of column `col` in the i-th oldest frame still held. */
  at(i: number, col: number): number {
    return this.data[((this.start + i) % this.capacity) * this.width + col];
  }

  /** One column, oldest first. */
  column(col: number): Float64Array {
    const out = new Float64Array(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.at(i, col);
    return out;
  }
}

/**
 * Downsamples (x, y) to at most `maxPoints` by keeping, per bucket of consecutive points, the
 * first, the minimum and the maximum in x order. NaN y values are skipped. `at`: each kept
 * point's index in the input (so values computed over every point, an EMA, are picked without a lookup).
 */
export function downsampleMinMax(x: Float64Array, y: Float64Array, maxPoints: number): { x: number[]; y: number[]; at: number[] } {
  const idx: number[] = [];
  for (let i = 0; i < y.length; i++) if (!Number.isNaN(y[i])) idx.push(i);
  if (idx.length <= maxPoints) return { x: idx.map((i) => x[i]), y: idx.map((i) => y[i]), at: idx };
  const at: number[] = [];
  const buckets = Math.max(1, Math.floor(maxPoints / 3));
  const outX: number[] = [];
  const outY: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor((b * idx.length) / buckets);
    const hi = Math.floor(((b + 1) * idx.length) / buckets);
    let iMin = idx[lo];
    let iMax = idx[lo];
    for (let j = lo; j < hi; j++) {
      if (y[idx[j]] < y[iMin]) iMin = idx[j];
      if (y[idx[j]] > y[iMax]) iMax = idx[j];
    }
    for (const i of [...new Set([idx[lo], iMin, iMax])].sort((a, c) => a - c)) {
      outX.push(x[i]);
      outY.push(y[i]);
      at.push(i);
    }
  }
  return { x: outX, y: outY, at };
}

/**
 * TensorBoard's debiased EMA: last = w·last + (1 − w)·y; smoothed = last / (1 − w^n), n counting
 * finite points. Non-finite points pass through unsmoothed and do not enter the average.
 */
export function debiasedEma(y: ArrayLike<number>, weight: number): Float64Array {
  const out = new Float64Array(y.length);
  let last = 0;
  let n = 0;
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * weight + (1 - weight) * v;
    n++;
    out[i] = weight === 0 ? v : last / (1 - weight ** n);
  }
  return out;
}
