/**
 * Reproduced?: an opened result's runs against the same experiment trained here
 * (docs/sharing.md#train-it-here). For each figure Findings reports (findings.ts figurePicks) and
 * each run, whether the local run's mean over its seeds lies within the opened run's seed spread,
 * and whether every seed came out bit for bit the same. Pure: summaries in, rows out.
 */
import { baseLabel, estimate, figurePicks, formatFixed } from './findings';
import type { Estimate } from './findings';
import type { RunSummary } from './summary';

/**
 * The band an opened run's seeds spread over: the 95 % CI of their mean from 3 seeds on; below 3,
 * their min–max. Why: with 2 seeds Student's t is 12.7, so the CI is about 9 times as wide as the
 * two values' range and would call nearly any local mean reproduced; the range of what was seen
 * is the stricter honest band (with 1 seed, its one value: only an equal mean is within).
 */
export const CI_FROM_SEEDS = 3;

export interface Spread {
  /** Mean over the opened seeds. */
  mean: number;
  n: number;
  lo: number;
  hi: number;
  /** `ci`: 95 % CI of the mean; `range`: min–max over the seeds (fewer than CI_FROM_SEEDS). */
  by: 'ci' | 'range';
}

/** The seed spread of `values` (their non-finite ones left out), as Spread says. */
export function seedSpread(values: readonly number[]): Spread {
  const e = estimate(values);
  if (e.n >= CI_FROM_SEEDS) return { mean: e.mean, n: e.n, lo: e.lo, hi: e.hi, by: 'ci' };
  const f = values.filter(Number.isFinite);
  return { mean: e.mean, n: e.n, lo: Math.min(...f), hi: Math.max(...f), by: 'range' };
}

/** What Reproduced? can say of one run's figure. */
export const REPRODUCED_KINDS = ['exact', 'within', 'outside', 'undetermined'] as const;

/** The card's verdict words per kind. */
export const REPRODUCED_WORDS: Record<(typeof REPRODUCED_KINDS)[number], string> = {
  exact: 'reproduced exactly',
  within: 'reproduced',
  outside: 'not reproduced',
  undetermined: 'undetermined',
};

export interface Reproduction {
  /** The run (label without its seed suffix). */
  run: string;
  opened: Spread;
  /** The local run's mean over the seeds trained here so far. */
  local: Estimate;
  kind: (typeof REPRODUCED_KINDS)[number];
  text: string;
}

export interface ReproducedFigure {
  name: string;
  words: string;
  /** One per opened run, in the opened result's order. */
  runs: Reproduction[];
}

/** Equal bit for bit (NaN equals NaN: a figure neither run has). */
const same = (a: number, b: number) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

/** `[lo, hi]`, and what band it is. One value is no band: its one seed's value. */
const band = (s: Spread) =>
  s.n === 1
    ? `its one seed’s ${formatFixed(s.mean)}`
    : `[${formatFixed(s.lo)}, ${formatFixed(s.hi)}] (${s.by === 'ci' ? `95 % CI over ${s.n} seeds` : `min–max over ${s.n} seeds`})`;

/** The card's opened figure: the mean and its band, "0.742 [0.700, 0.800]"; one value alone ("0.742"). */
export const openedText = (s: Spread) =>
  s.n > 1 ? `${formatFixed(s.mean)} [${formatFixed(s.lo)}, ${formatFixed(s.hi)}]` : formatFixed(s.mean);

/** One run's figure: the opened seeds' values and the local seeds' (each paired by seed). */
function judge(
  run: string,
  opened: ReadonlyMap<number, number>,
  local: ReadonlyMap<number, number>,
): Reproduction {
  const spread = seedSpread([...opened.values()]);
  const here = estimate([...local.values()]);
  const of = opened.size;
  const soFar = local.size < of ? ` (${local.size} of ${of} seeds so far)` : '';
  const row = (kind: Reproduction['kind'], text: string): Reproduction => ({
    ...{ run, opened: spread, local: here },
    ...{ kind, text },
  });
  if (spread.n === 0) return row('undetermined', 'the opened result has no value');
  const paired = [...local].filter(([seed]) => opened.has(seed));
  if (paired.length > 0 && paired.every(([seed, x]) => same(x, opened.get(seed)!)))
    return row(
      'exact',
      soFar
        ? `identical bit for bit on ${local.size} of ${of} seeds so far`
        : of === 1
          ? 'identical bit for bit on its one seed'
          : `identical bit for bit on all ${of} seeds`,
    );
  if (here.n === 0) return row('undetermined', local.size ? 'no value here' : 'not trained here yet');
  const within = here.mean >= spread.lo && here.mean <= spread.hi;
  // One opened value: the mean here equals it or not (a band [x, x] would say nothing more).
  const relation = spread.n === 1 ? (within ? 'equal to' : 'against') : within ? 'within' : 'outside';
  return row(
    within ? 'within' : 'outside',
    `mean here ${formatFixed(here.mean)} ${relation} ${band(spread)}${soFar}`,
  );
}

/**
 * Each figure of the opened runs (`opened`, every run × seed of the result) against the local runs
 * trained here (`local`, those of them done so far): runs paired by label, seeds by seed.
 */
export function reproduced(opened: readonly RunSummary[], local: readonly RunSummary[]): ReproducedFigure[] {
  const runs = [...new Set(opened.map((s) => baseLabel(s.run)))];
  const of = (summaries: readonly RunSummary[], run: string) =>
    summaries.filter((s) => baseLabel(s.run) === run);
  return figurePicks(opened).map(([name, words, pick]) => ({
    name,
    words,
    runs: runs.map((run) =>
      judge(
        run,
        new Map(of(opened, run).map((s) => [s.seed, pick(s)])),
        new Map(of(local, run).map((s) => [s.seed, pick(s)])),
      ),
    ),
  }));
}
