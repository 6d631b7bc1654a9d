/**
 * When a chart carries no information: every line it draws is the same constant. The board moves
 * such a chart under "more charts" with the reason this module words (docs/charts.md#the-board-rule).
 * Pure: plain arrays in, a verdict out.
 */

/** Fewer recorded steps than this and nothing is judged flat yet: early steps prove nothing. */
export const FLAT_MIN_STEPS = 10;
/**
 * Spread allowed around a constant: absolute (a KL of 1e-7 from float rounding is 0) plus
 * relative to the value's size (a step counter of 1e6 wobbling in its last float bits).
 */
const FLAT_ATOL = 1e-6;
const FLAT_RTOL = 1e-6;

interface Flat {
  /** The constant: 0 where the values are all within FLAT_ATOL of 0. */
  value: number;
  /** Steps recorded with a finite value (the most of any line). */
  steps: number;
}

const within = (lo: number, hi: number) =>
  hi - lo <= FLAT_ATOL + FLAT_RTOL * Math.max(Math.abs(lo), Math.abs(hi));

/**
 * The constant all these lines hold, or null if any line moves, two lines differ, or no line has
 * FLAT_MIN_STEPS finite values yet. NaN (a step without the metric) is skipped, not a change.
 */
export function flatLines(lines: ArrayLike<number>[]): Flat | null {
  let lo = Infinity;
  let hi = -Infinity;
  let steps = 0;
  for (const line of lines) {
    let n = 0;
    for (let i = 0; i < line.length; i++) {
      const v = line[i];
      if (Number.isNaN(v)) continue;
      if (!Number.isFinite(v)) return null;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
      n++;
    }
    steps = Math.max(steps, n);
  }
  if (steps < FLAT_MIN_STEPS || !within(lo, hi)) return null;
  const mid = (lo + hi) / 2;
  return { value: Math.abs(mid) <= FLAT_ATOL ? 0 : mid, steps };
}

/** "constant 0 over 200 steps", then the settings' explanation if there is one. */
export function flatReason(flat: Flat, because?: string): string {
  const v = flat.value === 0 ? '0' : String(Number(flat.value.toPrecision(4)));
  return `constant ${v} over ${flat.steps} steps${because ? `: ${because}` : ''}`;
}
