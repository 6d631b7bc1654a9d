import { describe, expect, it } from 'vitest';
import {
  axisKey,
  bandPath,
  formatSignificant,
  nearest,
  linePath,
  logAxis,
  niceAxis,
  spikeDecades,
  LOG_DEFAULT_DECADES,
  stepAxis,
} from '../../src/ui/plot';
import { chooseLog, useLab } from '../../src/ui/session/store';

// A plot 100 px wide for x ∈ [0, 10] and 50 px tall for y ∈ [0, 1], y pointing down (SVG).
const sx = (v: number) => (v < 0 || v > 10 ? undefined : v * 10);
const sy = (v: number) => 50 - v * 50;

describe('axes', () => {
  it('niceAxis covers the data with round ticks and enough decimals', () => {
    const a = niceAxis(0.1, 0.95);
    expect(a.ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(a.domain).toEqual([0, 1]);
    expect(a.ticks.map(a.format)).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
    // Data starting exactly on a tick start there (0.3 / 0.1 is 2.999… in floating point).
    expect(niceAxis(0.3, 0.7).domain).toEqual([0.3, 0.7]);
    // A constant series (round-off apart) gets a small range around it, not a zoom into 1 ulp.
    const c = niceAxis(0.75, 0.75 + 1e-16);
    expect(c.domain[0]).toBeLessThan(0.75);
    expect(c.domain[1]).toBeGreaterThan(0.75);
    expect(new Set(c.ticks.map(c.format)).size).toBe(c.ticks.length);
    // Data moving inside the round bounds leaves the axis as it is (charts skip redrawing it).
    expect(axisKey(niceAxis(0.31, 0.62))).toBe(axisKey(niceAxis(0.32, 0.68)));
    expect(axisKey(niceAxis(0.31, 0.62))).not.toBe(axisKey(niceAxis(0.31, 0.9)));
  });

  it('logAxis puts ticks at powers of ten, and at 2× and 5× over a short range', () => {
    const wide = logAxis(0.003, 40);
    expect(wide.ticks).toEqual([0.01, 0.1, 1, 10]);
    expect(wide.domain).toEqual([0.003, 40]);
    const short = logAxis(0.15, 0.9);
    expect(short.ticks).toEqual([0.2, 0.5]);
    expect(short.domain).toEqual([0.15, 0.9]);
    // Within one 2-5-10 gap: whole decades, so the axis still has labelled ticks.
    const narrow = logAxis(0.21, 0.24);
    expect(narrow.domain).toEqual([0.1, 1]);
    expect(narrow.ticks).toEqual([0.1, 0.2, 0.5, 1]);
    expect(wide.ticks.map(wide.format)).toEqual(['0.01', '0.1', '1', '10']);
  });

  it('stepAxis runs from the first step to a round bound past the last, with whole-number ticks', () => {
    expect(stepAxis(3, 117)).toEqual(expect.objectContaining({ domain: [3, 150], ticks: [50, 100, 150] }));
    expect(stepAxis(3, 14).ticks).toEqual([4, 6, 8, 10, 12, 14]); // 12 / 5 rounds to 2.5: whole steps of 2
    expect(stepAxis(0, 3)).toEqual(expect.objectContaining({ domain: [0, 3], ticks: [0, 1, 2, 3] }));
    expect(stepAxis(1, 200).domain).toEqual([1, 200]);
    expect(stepAxis(5, 5).domain).toEqual([4, 6]);
    // At least `least` steps wide: a run's first steps do not move the axis.
    expect(stepAxis(0, 0, 10)).toEqual(
      expect.objectContaining({ domain: [0, 10], ticks: [0, 2, 4, 6, 8, 10] }),
    );
    expect(stepAxis(0, 7, 10).domain).toEqual([0, 10]);
    expect(stepAxis(0, 11, 10).domain).toEqual([0, 15]);
    // The bound moves ~9 times a decade, not every step: 200 steps give 17 distinct axes.
    const bounds = new Set(Array.from({ length: 199 }, (_, i) => stepAxis(1, i + 2).domain[1]));
    expect([...bounds]).toEqual([2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40, 50, 60, 80, 100, 150, 200]);
    for (let last = 2; last <= 5000; last++) {
      const { domain } = stepAxis(1, last);
      expect(domain[1]).toBeGreaterThanOrEqual(last);
      if (last >= 10) expect((last - 1) / (domain[1] - 1)).toBeGreaterThan(0.66);
    }
  });
});

describe('log scale by default', () => {
  it('counts the decades from the lowest line’s median to the peak: spikes and lines apart count, dips to 0 do not', () => {
    // Amplification on a run with spikes: the bulk about 0.9, two steps at 45 and 280 (0, -1, NaN
    // and Infinity are left out, as a log scale leaves them): median 0.91 of the seven above 0.
    const spiky = [0.88, 0.91, 0.9, 45, 0.87, 280, 0.92, 0, -1, NaN, Infinity];
    expect(spikeDecades([spiky])).toBeCloseTo(Math.log10(280 / 0.91), 10);
    expect(spikeDecades([spiky])).toBeGreaterThan(LOG_DEFAULT_DECADES);
    // Two agents' lines apart, no spike: alice about 70, bob about 0.5 (even count: mean of the middle two).
    const alice = [60, 70, 75, 80];
    const bob = [0.4, 0.5, 0.5, 0.6];
    expect(spikeDecades([alice, bob])).toBeCloseTo(Math.log10(80 / 0.5), 10);
    expect(spikeDecades([alice, bob])).toBeGreaterThan(LOG_DEFAULT_DECADES);
    expect(spikeDecades([alice])).toBeLessThan(LOG_DEFAULT_DECADES);
    // A grad norm from 0.5 to 40 stays under two decades: linear stays the default.
    expect(spikeDecades([[0.5, 3, 40]])).toBeLessThan(LOG_DEFAULT_DECADES);
    // A dip toward 0 is no spike: the bulk stays readable on a linear scale (a grad norm of 1e-9 once).
    expect(spikeDecades([[0.6, 0.8, 1e-9, 0.7, 1.2]])).toBeCloseTo(Math.log10(1.2 / 0.7), 10);
    // Nothing above 0, or nothing at all: nothing to compare.
    expect(spikeDecades([[0, -2, NaN], []])).toBe(0);
    expect(spikeDecades([[7]])).toBe(0);
  });

  it("the user's pick wins from then on: log or linear, one chart at a time", () => {
    const view = () => useLab.getState().view;
    expect([view().logCharts, view().linearCharts]).toEqual([[], []]);
    chooseLog('amplification', false);
    chooseLog('grad-norm', true);
    expect([view().logCharts, view().linearCharts]).toEqual([['grad-norm'], ['amplification']]);
    chooseLog('amplification', true);
    chooseLog('amplification', true);
    expect([view().logCharts, view().linearCharts]).toEqual([['grad-norm', 'amplification'], []]);
  });
});

describe('paths', () => {
  it('linePath joins the finite points in pixels and skips the rest', () => {
    expect(linePath([0, 1, 2, 3], [0, NaN, 1, 0.5], sx, sy)).toBe('M0.0,50.0L20.0,0.0L30.0,25.0');
    // Off the x axis (scale gives undefined): left out.
    expect(linePath([-1, 5], [0.5, 0.5], sx, sy)).toBe('M50.0,25.0');
    expect(linePath([], [], sx, sy)).toBe('');
  });

  it('bandPath runs along hi and back along lo, closed', () => {
    expect(bandPath([0, 5, 10], [0, 0.2, 0.4], [1, 0.8, 0.6], sx, sy)).toBe(
      'M0.0,0.0L50.0,10.0L100.0,20.0L100.0,30.0L50.0,40.0L0.0,50.0Z',
    );
    expect(bandPath([0], [0], [1], sx, sy)).toBe('');
  });

  it('nearest finds the closest step by bisection', () => {
    const xs = [0, 2, 4, 9, 30];
    expect(xs.map((x) => nearest(xs, x))).toEqual([0, 1, 2, 3, 4]);
    expect([-5, 1, 2.9, 3, 6.4, 6.6, 19, 20, 1e9].map((v) => nearest(xs, v))).toEqual([
      0, 0, 1, 1, 2, 3, 3, 4, 4,
    ]);
    expect(nearest([7], 100)).toBe(0);
    expect(nearest([], 1)).toBe(-1);
    expect(nearest(xs, NaN)).toBe(-1);
  });

  it('formatSignificant gives 4 significant digits, exponents for the very small and large', () => {
    expect([0.123456, 1234.5, 2e-5, 3.2e6, 0, NaN].map(formatSignificant)).toEqual([
      '0.1235',
      '1235',
      '2.00e-5',
      '3.20e+6',
      '0',
      '–',
    ]);
  });
});
