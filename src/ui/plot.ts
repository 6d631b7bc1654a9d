/**
 * The plotting math of the charts, kept pure (no React, no DOM): axes with round ticks and the
 * SVG paths of lines and bands. The charts compute these themselves rather than asking recharts,
 * whose nice-tick search runs on decimal.js and whose <Line> costs tens of milliseconds a redraw
 * (SeriesLayer.tsx says why).
 */

export interface Axis {
  domain: [number, number];
  ticks: number[];
  format(v: number): string;
}

/** A value for a tooltip: 4 significant digits, exponent form when very small or large. */
export const formatSignificant = (v: number): string => {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
  return Number(v.toPrecision(4)).toString();
};

/** The round step (1, 2, 2.5 or 5 × 10^k) that splits `range` into about `n` parts. */
function roundStep(range: number, n: number): { step: number; mag: number } {
  const raw = range / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  return { step, mag };
}

/**
 * A linear y axis with ~4 round ticks covering [lo, hi], labelled with just enough decimals to
 * tell the ticks apart (recharts' 'auto' domain labels a near-constant series 0.75, 0.75, 0.75).
 */
export function niceAxis(lo: number, hi: number): Axis {
  // Round-off differences (E[A²] = 0.75 ± 1 ulp) are a constant line, not a range to zoom into.
  const scale = Math.max(Math.abs(lo), Math.abs(hi));
  if (!(hi - lo > 1e-6 * scale)) {
    const pad = scale > 1e-12 ? scale * 0.05 : 1;
    lo -= pad;
    hi += pad;
  }
  const { step, mag } = roundStep(hi - lo, 4);
  const start = Math.floor(lo / step + 1e-9) * step; // 0.3 / 0.1 = 2.9999…: still tick 3
  const ticks: number[] = [];
  for (let i = 0; i < 12 && start + i * step < hi + step * 0.999; i++)
    ticks.push(Number((start + i * step).toPrecision(12)));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (step / mag === 2.5 ? 1 : 0));
  const big = Math.max(Math.abs(ticks[0]), Math.abs(ticks[ticks.length - 1]));
  const format = (v: number) =>
    big >= 1e5 || (decimals > 4 && big < 1e-3)
      ? v.toExponential(1)
      : decimals > 6
        ? v.toExponential(1)
        : v.toFixed(decimals);
  return { domain: [ticks[0], ticks[ticks.length - 1]], ticks, format };
}

/**
 * A log y axis over [lo, hi] (both > 0): ticks at the powers of ten, with 2× and 5× added when
 * the data spans less than two decades, so a short range still has two labelled ticks or more.
 */
export function logAxis(lo: number, hi: number): Axis {
  const e0 = Math.floor(Math.log10(lo));
  const e1 = Math.max(e0 + 1, Math.ceil(Math.log10(hi)));
  const every = Math.ceil((e1 - e0) / 6); // at most ~6 labelled decades
  const ticks: number[] = [];
  for (let e = e0; e <= e1; e += every) {
    ticks.push(Number((10 ** e).toPrecision(12)));
    if (e1 - e0 < 2 && e < e1)
      ticks.push(Number((2 * 10 ** e).toPrecision(12)), Number((5 * 10 ** e).toPrecision(12)));
  }
  const inside = ticks.filter((t) => t >= lo / 1.0001 && t <= hi * 1.0001);
  // Tight around the data when two ticks or more fall inside it, else whole decades.
  const tight = inside.length >= 2;
  const format = (v: number) =>
    v >= 1e4 || v < 1e-3 ? v.toExponential(0) : String(Number(v.toPrecision(3)));
  return { domain: tight ? [lo, hi] : [10 ** e0, 10 ** e1], ticks: tight ? inside : ticks, format };
}

/**
 * A chart whose peak stands more than this many decades above the lowest of its lines' medians is
 * drawn on a log scale by default.
 */
export const LOG_DEFAULT_DECADES = 2;

/** The median of the values above 0 (a log scale leaves the others out); NaN where there are none. */
function positiveMedian(values: ArrayLike<number>): number {
  const positive = Array.from(values).filter((v) => v > 0 && v < Infinity);
  if (positive.length === 0) return NaN;
  positive.sort((x, y) => x - y);
  const mid = positive.length >> 1;
  return positive.length % 2 ? positive[mid] : (positive[mid - 1] + positive[mid]) / 2;
}

/**
 * How many decades a linear scale has to span above the bulk of the lowest line: from the lowest
 * of the lines' medians to the highest value of any. A spike (one agent's amplification at 280
 * over a bulk near 0.9) and lines at different levels (alice's about 70, bob's about 0.9) both
 * flatten a line against the axis; a dip toward 0 does not (a median ignores it). Values at or
 * below 0 are left out, as a log scale leaves them out.
 */
export function spikeDecades(lines: readonly ArrayLike<number>[]): number {
  let peak = -Infinity;
  let floor = Infinity;
  for (const line of lines) {
    const m = positiveMedian(line);
    if (!(m > 0)) continue;
    floor = Math.min(floor, m);
    for (let i = 0; i < line.length; i++) if (line[i] < Infinity) peak = Math.max(peak, line[i]);
  }
  return floor < peak ? Math.log10(peak / floor) : 0;
}

/**
 * The x axis: from `first` to a round bound at or past `last` (1, 1.5, 2, 3, 4, 5, 6 or 8 × 10^k,
 * and at least `least`), with ~5 whole-number ticks. The bound moves about nine times a decade,
 * not every step, so a refresh with one more step leaves the axis, grid and markers as they are
 * and only the lines redraw; past `least` the curve never fills less than 2/3 of the width.
 */
export function stepAxis(first: number, last: number, least = 0): Axis {
  const mag = last > 0 ? 10 ** Math.floor(Math.log10(last)) : 1;
  const bound = [1, 1.5, 2, 3, 4, 5, 6, 8, 10].map((m) => Math.round(m * mag)).find((u) => u >= last) ?? last;
  const upper = Math.max(bound, least);
  if (!(upper > first)) return { domain: [first - 1, first + 1], ticks: [first], format: String };
  const round = roundStep(upper - first, 5).step;
  const step = Number.isInteger(round) ? round : Math.max(1, Math.floor(round)); // whole steps: 2.5 → 2
  const ticks: number[] = [];
  for (let t = Math.ceil(first / step) * step; t <= upper; t += step) ticks.push(t);
  return { domain: [first, upper], ticks, format: String };
}

/** A key that changes exactly when an axis draws differently (its domain or ticks change). */
export const axisKey = (a: Axis | null): string => (a ? `${a.domain.join(',')}|${a.ticks.join(',')}` : '');

/** Data value → pixel; undefined outside the axis (recharts' scale functions). */
export type Scale = (v: number) => number | undefined;

/** An SVG path through the points with a finite value; gaps are joined (recharts' connectNulls). */
export function linePath(xs: ArrayLike<number>, ys: ArrayLike<number>, sx: Scale, sy: Scale): string {
  let d = '';
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(ys[i])) continue;
    const px = sx(xs[i]);
    const py = sy(ys[i]);
    if (px === undefined || py === undefined || !Number.isFinite(px) || !Number.isFinite(py)) continue;
    d += `${d ? 'L' : 'M'}${px.toFixed(1)},${py.toFixed(1)}`;
  }
  return d;
}

/** A closed band: along `hi`, then back along `lo`, over the steps where both are finite. */
export function bandPath(xs: number[], lo: number[], hi: number[], sx: Scale, sy: Scale): string {
  const keep = xs.flatMap((_, i) => (Number.isFinite(lo[i]) && Number.isFinite(hi[i]) ? [i] : []));
  if (keep.length < 2) return '';
  const top = linePath(
    keep.map((i) => xs[i]),
    keep.map((i) => hi[i]),
    sx,
    sy,
  );
  const back = [...keep].reverse();
  const bottom = linePath(
    back.map((i) => xs[i]),
    back.map((i) => lo[i]),
    sx,
    sy,
  );
  return top && bottom ? `${top}L${bottom.slice(1)}Z` : '';
}

/** The index of the value in the ascending `xs` nearest `v` (the lower one on a tie); -1 if none. */
export function nearest(xs: ArrayLike<number>, v: number): number {
  if (xs.length === 0 || Number.isNaN(v)) return -1;
  let lo = 0;
  let hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= v) lo = mid;
    else hi = mid;
  }
  return Math.abs(xs[hi] - v) < Math.abs(v - xs[lo]) ? hi : lo;
}
