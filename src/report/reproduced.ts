/**
 * Reproduced?: an opened result's runs against the same experiment trained here
 * (docs/sharing.md#train-it-here). For each figure Findings reports (findings.ts figurePicks) and
 * each run, whether the local run's mean over its seeds lies within the opened run's seed spread,
 * and whether every seed came out bit for bit the same. Only figures of equal step counts are
 * compared: a seed here read over other steps than its opened twin is said, never judged. Pure:
 * summaries in, rows out.
 */
import { stepsRange } from '../core/step-words';
import { baseLabel, estimate, figurePicks, formatFixed } from './findings';
import type { Estimate } from './findings';
import type { RunSummary } from './summary';

/**
 * The steps Train it here trains an opened experiment to: the most its opened runs reached
 * (`reached`, each run's steps done), where that is fewer than its configured `steps` (a result
 * shared before its runs finished). Why: the opened figures are those of their steps; runs here
 * trained on to the configured steps would take longer only to be compared over their first steps.
 * Runs that reached none keep the configured steps (there is nowhere to stop).
 */
export function stepsToReproduce(steps: number, reached: readonly number[]): number {
  const most = Math.max(0, ...reached);
  return most > 0 && most < steps ? most : steps;
}

/** Counts of steps in words, "14 steps", "14–15 steps"; "no steps" for none. */
const countText = (steps: readonly number[]) =>
  steps.length ? stepsRange(Math.min(...steps), Math.max(...steps)) : 'no steps';

/**
 * The card's line on steps: how many the opened runs reached and how many the runs here trained
 * (`here`: each local run's steps done), and over which the figures are compared.
 */
export function stepsNote(opened: readonly number[], here: readonly number[]): string {
  const [o, h] = [countText(opened), countText(here)];
  if (o === h && new Set(opened).size === 1) return `opened and here: ${o}, compared over all of them`;
  const over =
    new Set(opened).size === 1
      ? `the first ${countText(opened)} of each run here`
      : 'the first steps of each run here, as many as its opened twin reached';
  return `opened at ${o}, here ${h}: figures are compared over ${over}, once it has them`;
}

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

/** A seed's figure value and the steps its run was read over. */
type Seeded = ReadonlyMap<number, { value: number; steps: number }>;

/**
 * One run's figure: the opened seeds' values and the local seeds' (each paired by seed). A local
 * seed counts only where it was read over as many steps as its opened twin: a figure of 200 steps
 * against one of 14 says nothing about reproducing, so such seeds are left out and said.
 */
function judge(run: string, opened: Seeded, trained: Seeded): Reproduction {
  const spread = seedSpread([...opened.values()].map((x) => x.value));
  const counted = [...trained].filter(([seed, x]) => opened.get(seed)?.steps === x.steps);
  const uneven = [...trained].filter(([seed, x]) => opened.has(seed) && opened.get(seed)!.steps !== x.steps);
  const local = new Map(counted.map(([seed, x]) => [seed, x.value]));
  const here = estimate([...local.values()]);
  const of = opened.size;
  const apart = uneven.length ? ` (${uneven.length} more here at other step counts, not compared)` : '';
  const soFar = `${local.size < of ? ` (${local.size} of ${of} seeds so far)` : ''}${apart}`;
  const row = (kind: Reproduction['kind'], text: string): Reproduction => ({
    ...{ run, opened: spread, local: here },
    ...{ kind, text },
  });
  if (spread.n === 0) return row('undetermined', 'the opened result has no value');
  if (local.size === 0 && uneven.length > 0) {
    const steps = (xs: typeof uneven, of: Seeded) => xs.map(([seed]) => of.get(seed)!.steps);
    return row(
      'undetermined',
      `opened at ${countText(steps(uneven, opened))}, here ${countText(steps(uneven, trained))}: figures of different step counts are not compared`,
    );
  }
  const paired = [...local].filter(([seed]) => opened.has(seed));
  if (paired.length > 0 && paired.every(([seed, x]) => same(x, opened.get(seed)!.value)))
    return row(
      'exact',
      local.size < of
        ? `identical bit for bit on ${local.size} of ${of} seeds so far${apart}`
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
 * trained here (`local`, those of them done so far, each read over as many steps as its opened
 * twin where it trained more: the page's Reproduced? card): runs paired by label, seeds by seed.
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
        new Map(of(opened, run).map((s) => [s.seed, { value: pick(s), steps: s.steps }])),
        new Map(of(local, run).map((s) => [s.seed, { value: pick(s), steps: s.steps }])),
      ),
    ),
  }));
}
