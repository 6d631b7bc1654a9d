/**
 * Bounded metric history and the views charts draw from it: a ring buffer of frames per run,
 * min/max-per-bucket downsampling (spikes survive, as in W&B), and TensorBoard's debiased EMA.
 * Charts never see more than a few hundred points per series (recharts slows past ~1k, SVG).
 * Pure: no tfjs, no DOM.
 */

/**
 * The last `capacity` frames of one run, each a Float64Array over the same key table. Storage
 * grows by doubling as frames arrive (a 200-step run holds 256 frames' worth, not `capacity`);
 * only past `capacity` frames is the oldest dropped.
 */
export class FrameRing {
  private data: Float64Array;
  private slots: number;
  private start = 0;
  private count = 0;

  constructor(
    readonly width: number,
    readonly capacity: number,
    initial = 256,
  ) {
    this.slots = Math.max(1, Math.min(capacity, initial));
    this.data = new Float64Array(width * this.slots);
  }

  get length(): number {
    return this.count;
  }

  /** Frames' worth of storage allocated now (≤ capacity). */
  get allocated(): number {
    return this.slots;
  }

  push(frame: Float64Array): void {
    if (frame.length !== this.width) throw new Error(`frame width ${frame.length} ≠ ${this.width}`);
    if (this.count === this.slots && this.slots < this.capacity) {
      // Not yet wrapped (start stays 0 until the ring is full at capacity): copy and double.
      this.slots = Math.min(this.capacity, 2 * this.slots);
      const grown = new Float64Array(this.width * this.slots);
      grown.set(this.data);
      this.data = grown;
    }
    const slot = (this.start + this.count) % this.slots;
    this.data.set(frame, slot * this.width);
    if (this.count < this.slots) this.count++;
    else this.start = (this.start + 1) % this.slots; // full at capacity: the oldest frame dropped
  }

  /** Value of column `col` in the i-th oldest frame still held. */
  at(i: number, col: number): number {
    return this.data[((this.start + i) % this.slots) * this.width + col];
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
export function downsampleMinMax(
  x: Float64Array,
  y: Float64Array,
  maxPoints: number,
): { x: number[]; y: number[]; at: number[] } {
  let n = 0;
  const idx = new Int32Array(y.length);
  for (let i = 0; i < y.length; i++) if (!Number.isNaN(y[i])) idx[n++] = i;
  if (n <= maxPoints) {
    const kept = Array.from(idx.subarray(0, n));
    return { x: kept.map((i) => x[i]), y: kept.map((i) => y[i]), at: kept };
  }
  const at: number[] = [];
  const buckets = Math.max(1, Math.floor(maxPoints / 3));
  const outX: number[] = [];
  const outY: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor((b * n) / buckets);
    const hi = Math.floor(((b + 1) * n) / buckets);
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
  let wn = 1; // weight^n, n the finite points so far: a running product, not a pow per point
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * weight + (1 - weight) * v;
    wn *= weight;
    out[i] = weight === 0 ? v : last / (1 - wn);
  }
  return out;
}
