/**
 * The map of a sweep: for every cell of the grid, each other run's paired difference from a
 * baseline run (same seed; the first run unless the Map picks another), with its 95 % CI and
 * verdict, for every figure the seed comparison (findings.ts) has: held-out success, training
 * reward, each agent's own success where the task tells it, each agent's gradient norms and spike
 * fraction. One table for `lab report` on a sweep folder and for the page's Map view (its CSV),
 * and the same numbers as lines against one dial for the Map's charts. Pure: the folder's files
 * come in as text (docs/sweeps.md#the-map).
 */
import type { Experiment } from '../core/config';
import type { Dial } from '../core/url-sweep';
import { runRepeats } from '../core/config';
import { fieldErrorsText, validateExperiment } from '../core/config-validate';
import { baseLabel, compareSeeds, pm } from './findings';
import type { Comparison, Verdict } from './findings';
import { parseMetrics } from './metrics-lines';
import { summarize } from './summary';
import type { RunSummary } from './summary';
import { readSweepFile, SweepRefused } from '../rl/sweep';
import type { Params, SweepFile } from '../rl/sweep';

/** One cell's runs as recorded: a summary per run × seed (empty when nothing is recorded yet). */
interface CellResult {
  params: Params;
  summaries: readonly RunSummary[];
}

/** Every run × seed of a train folder summarized from its metrics.jsonl records, as `lab report` does. */
export function cellSummaries(
  exp: Experiment,
  agents: readonly string[],
  rows: readonly { run: string; metrics: Record<string, number> }[],
  tail: number,
): RunSummary[] {
  return runRepeats(exp).map(({ label, seed }) =>
    summarize(
      label,
      seed,
      rows.filter((r) => r.run === label).map((r) => r.metrics),
      agents,
      exp.eval.k,
      tail,
    ),
  );
}

/** A sweep folder read: its sweep.json and each cell's summaries (none for a cell not started). */
export interface LoadedSweep {
  file: SweepFile;
  cells: CellResult[];
}

/**
 * A sweep folder from its files: `read(path)` gives a file's text by its path relative to the
 * folder, or undefined when there is none; `agentsOf` names an experiment's agents (its task's);
 * `folder` is how messages name the folder.
 * A cell without config.json has not started; one whose config.json is not an experiment is
 * refused, naming it.
 */
export function loadSweep(
  folder: string,
  read: (path: string) => string | undefined,
  agentsOf: (exp: Experiment) => readonly string[],
  tail: number,
  warn?: (message: string) => void,
): LoadedSweep {
  const at = (path: string) => `${folder}/${path}`;
  const text = read('sweep.json');
  if (text === undefined)
    throw new SweepRefused(`${folder} has no sweep.json: not a folder written by lab sweep or lab merge`);
  const file = readSweepFile(parseJson(text, at('sweep.json')), at('sweep.json'));
  const cells = file.cells.map((c): CellResult => {
    const config = read(`${c.dir}/config.json`);
    if (config === undefined) return { params: c.params, summaries: [] };
    const exp = validateExperiment(parseJson(config, at(`${c.dir}/config.json`)));
    if (!exp.ok) throw new SweepRefused(`${at(`${c.dir}/config.json`)}: ${fieldErrorsText(exp.errors)}`);
    const metrics = read(`${c.dir}/metrics.jsonl`);
    if (metrics === undefined) warn?.(`${at(`${c.dir}/metrics.jsonl`)}: no such file; no step recorded`);
    const rows = parseMetrics(metrics ?? '', at(`${c.dir}/metrics.jsonl`), warn, exp.config.task);
    const summaries = cellSummaries(exp.config, agentsOf(exp.config), rows, tail);
    return { params: c.params, summaries };
  });
  return { file, cells };
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new SweepRefused(`${name}: not valid JSON (${(e as Error).message})`);
  }
}

const cellText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** A cell's values of these dials in words, `key = value` joined by ` · ` (a chart's facet, a run's cell). */
export const paramsText = (dials: readonly Dial[], params: Params): string =>
  dials.map((d) => `${d.key} = ${cellText(params[d.key])}`).join(' · ');

/**
 * A cell's summaries with the `baseline` run's first: compareSeeds pairs every run with the first
 * it meets, so this is what makes the baseline the run the others are paired with (the Map's
 * Baseline). Without one, or with a label no run has, they stay as recorded: the first run.
 */
function baselineFirst(summaries: readonly RunSummary[], baseline: string | undefined): RunSummary[] {
  const is = (s: RunSummary) => baseLabel(s.run) === baseline;
  return [...summaries.filter(is), ...summaries.filter((s) => !is(s))];
}

/**
 * Each cell's seed comparison against `baseline` (null before anything is recorded), the runs
 * (the baseline first) and the figures' names.
 */
function compared(cells: readonly CellResult[], baseline: string | undefined) {
  const comparisons = cells.map((c) =>
    c.summaries.length ? compareSeeds(baselineFirst(c.summaries, baseline)) : null,
  );
  const runs = comparisons.find((c) => c)?.runs ?? [];
  const figures: { name: string; words: string }[] = [];
  for (const c of comparisons)
    for (const f of c?.figures ?? [])
      if (!figures.some((g) => g.name === f.name)) figures.push({ name: f.name, words: f.words });
  return { comparisons, runs, figures };
}

const diffOf = (c: Comparison | null, figure: string, r: number) =>
  c?.figures.find((f) => f.name === figure)?.diffs[r];

/**
 * The map as one table: a row per figure and cell (figures in the seed comparison's order, cells
 * in grid order within each), the figure, the dial values, the steps every run recorded and the
 * seeds, then for every other run its paired difference from the `baseline` run (the first run
 * unless given) as mean ± 95 % CI half-width and the verdict computed from that interval. `lab
 * report` prints it (always from the first run); the Map's CSV is it.
 */
export function sweepMapCells(
  grid: readonly Dial[],
  cells: readonly CellResult[],
  baseline?: string,
): string[][] {
  const { comparisons, runs, figures } = compared(cells, baseline);
  const head = [
    'figure',
    ...grid.map((d) => d.key),
    'steps',
    'seeds',
    ...runs.slice(1).flatMap((r) => [`${r} − ${runs[0]}`, 'verdict']),
  ];
  const rows = figures.flatMap(({ name }) =>
    cells.map((cell, i) => {
      const c = comparisons[i];
      const steps = cell.summaries.map((s) => s.steps);
      return [
        name,
        ...grid.map((d) => cellText(cell.params[d.key])),
        steps.length ? `${Math.min(...steps)}` : '0',
        c ? String(c.seeds) : '—',
        ...runs.slice(1).flatMap((_, r) => {
          const d = diffOf(c, name, r);
          return d ? [pm(d), d.verdict.kind] : ['—', '—'];
        }),
      ];
    }),
  );
  return [head, ...rows];
}

/** One point of a map line: the dial's value and the paired difference there. */
interface MapPoint {
  x: string;
  mean: number;
  lo: number;
  hi: number;
  verdict: Verdict['kind'] | null;
}

/**
 * One chart of the map: a figure in one facet (the other dials' values), a line per other run, or,
 * where the lines go by a dial, one chart per other run and a line per value of that dial.
 */
export interface MapChart {
  figure: string;
  words: string;
  /**
   * What the chart is one of: the other dials' values, `key = value` joined by ` · ` (empty with
   * one dial); where the lines go by a dial, the pair (`run − baseline`) first.
   */
  facet: string;
  /**
   * `run`: the run paired with the baseline; `pair`: the line's name in the legend, `run − baseline`,
   * or `key = value` where the lines go by a dial.
   */
  lines: { run: string; pair: string; points: MapPoint[] }[];
}

/**
 * The dial drawn along x by default: of those whose values are all numbers, the one with the most
 * values (the last of equals: N's five values over mix's three), else the last dial.
 */
export function defaultMapX(grid: readonly Dial[]): string {
  const numeric = grid.filter((d) => d.values.every((v) => v.trim() !== '' && Number.isFinite(Number(v))));
  const most = numeric.reduce<Dial | undefined>(
    (a, d) => (!a || d.values.length >= a.values.length ? d : a),
    undefined,
  );
  return (most ?? grid.at(-1))?.key ?? '';
}

/** The map's lines: one per other run (`runs`, lab report's pairs), or one per value of a dial. */
export const MAP_LINES_BY_RUN = 'runs';

/**
 * The map as charts: the `x` dial along x (its values in grid order, evenly spaced), one chart per
 * figure and facet (every combination of the other dials' values, side by side), one line per
 * other run: its paired difference from the `baseline` run (the first unless given) with the 95 % CI.
 * With `lines` a dial (not x), a chart per figure, other run and facet of the remaining dials, and a
 * line per value of that dial: the agents map against N, one line per mix (docs/sweeps.md#the-map).
 */
export function mapCharts(
  grid: readonly Dial[],
  cells: readonly CellResult[],
  x: string,
  baseline?: string,
  lines: string = MAP_LINES_BY_RUN,
): MapChart[] {
  const dialOf = (key: string) => {
    const d = grid.find((g) => g.key === key);
    if (!d)
      throw new SweepRefused(
        `${key} is not a dial of this sweep (its dials: ${grid.map((g) => g.key).join(', ')})`,
      );
    return d;
  };
  const xDial = dialOf(x);
  const byDial = lines === MAP_LINES_BY_RUN ? null : dialOf(lines);
  if (byDial === xDial) throw new SweepRefused(`the lines cannot go by ${x}: it is along x`);
  const { comparisons, runs, figures } = compared(cells, baseline);
  const others = grid.filter((d) => d !== xDial && d !== byDial);
  const facetOf = (cell: CellResult) => paramsText(others, cell.params);
  const facets = [...new Set(cells.map(facetOf))];
  const xOf = (cell: CellResult) => cellText(cell.params[x]);
  // One line: run k's paired difference at each x, over the cells `keep` lets through.
  const pointsOf = (name: string, k: number, keep: (cell: CellResult) => boolean) =>
    cells.flatMap((cell, i) => {
      if (!keep(cell)) return [];
      const d = diffOf(comparisons[i], name, k);
      return [
        {
          x: xOf(cell),
          mean: d?.mean ?? NaN,
          lo: d?.lo ?? NaN,
          hi: d?.hi ?? NaN,
          verdict: d?.verdict.kind ?? null,
        },
      ];
    });
  const pairOf = (r: string) => `${r} − ${runs[0]}`;
  if (!byDial)
    return figures.flatMap(({ name, words }) =>
      facets.map((facet) => ({
        figure: name,
        words,
        facet,
        lines: runs.slice(1).map((r, k) => ({
          run: r,
          pair: pairOf(r),
          points: pointsOf(name, k, (cell) => facetOf(cell) === facet),
        })),
      })),
    );
  return figures.flatMap(({ name, words }) =>
    runs.slice(1).flatMap((r, k) =>
      facets.map((facet) => ({
        figure: name,
        words,
        facet: [pairOf(r), facet].filter(Boolean).join(' · '),
        lines: byDial.values.map((v) => ({
          run: r,
          pair: `${byDial.key} = ${v}`,
          points: pointsOf(
            name,
            k,
            (cell) => facetOf(cell) === facet && cellText(cell.params[byDial.key]) === cellText(v),
          ),
        })),
      })),
    ),
  );
}
