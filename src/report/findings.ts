/**
 * Findings: the runs of an experiment compared over seeds, one pure module for the CLI's tables
 * (`lab train`, `lab report`) and the page's Findings view, so both show the same numbers. For each
 * figure of the run summaries (src/report/summary.ts): every run's mean over its seeds with a 95 %
 * confidence interval, and every later run's paired difference from the first run (same seed, same
 * task stream: the pairing removes the seed-to-seed spread the runs share), with a verdict
 * computed from that interval. Pure: summaries in, rows out.
 */
import { sharedEvalK } from './summary';
import type { RunSummary } from './summary';

/**
 * Two-sided 95 % quantiles of Student's t, t_{0.975, df} for df = 1..30 (standard tables, e.g.
 * NIST/SEMATECH e-Handbook 1.3.6.7.2); beyond 30 the normal 1.96 (seeds are at most 8 anyway).
 */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
export const t975 = (df: number): number => (df < 1 ? NaN : (T975[df - 1] ?? 1.96));

/** Mean over seeds, sample std, count, and the 95 % CI mean ± t·std/√n (NaN bounds below 2 seeds). */
export interface Estimate {
  mean: number;
  std: number;
  n: number;
  lo: number;
  hi: number;
}

export function estimate(xs: readonly number[]): Estimate {
  const f = xs.filter(Number.isFinite);
  const n = f.length;
  if (n === 0) return { mean: NaN, std: NaN, n, lo: NaN, hi: NaN };
  const mean = f.reduce((a, x) => a + x, 0) / n;
  const std = n > 1 ? Math.sqrt(f.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : NaN;
  const half = n > 1 ? t975(n - 1) * (std / Math.sqrt(n)) : NaN;
  return { mean, std, n, lo: mean - half, hi: mean + half };
}

/** What a paired difference's interval can say (a result file's reader checks a stored verdict against these). */
export const VERDICT_KINDS = ['identical', 'same', 'higher', 'lower', 'undetermined'] as const;

/** What the paired difference says, computed from its interval, never written by hand. */
export interface Verdict {
  kind: (typeof VERDICT_KINDS)[number];
  text: string;
}

/** A table's number: `digits` decimals, '—' when not finite (ui/plot.ts formatSignificant is a chart's). */
export const formatFixed = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : '—');

/**
 * The verdict on `run` − baseline over paired seeds `d` (the differences themselves in `values`).
 * `of`: the seeds the experiment will have; while fewer are paired (the page's repeats still
 * queued or training) the text says how many, so "identical on all 2 seeds" never stands for 2 of 5.
 */
export function verdict(run: string, d: Estimate, values: readonly number[], of = d.n): Verdict {
  if (d.n < 2)
    return {
      kind: 'undetermined',
      text: d.n === 0 ? 'no paired values' : 'one seed: no spread to judge by',
    };
  const soFar = d.n < of ? ` (${d.n} of ${of} seeds so far)` : '';
  if (values.filter(Number.isFinite).every((x) => x === 0))
    return {
      kind: 'identical',
      text: soFar ? `identical on ${d.n} of ${of} seeds so far` : `identical on all ${d.n} seeds`,
    };
  if (d.lo <= 0 && d.hi >= 0) return { kind: 'same', text: `no difference beyond seed spread${soFar}` };
  const higher = d.mean > 0;
  const [lo, hi] = higher ? [d.lo, d.hi] : [-d.hi, -d.lo];
  return {
    kind: higher ? 'higher' : 'lower',
    text: `${run} ${higher ? 'higher' : 'lower'} by ${formatFixed(Math.abs(d.mean))} [${formatFixed(lo)}, ${formatFixed(hi)}]${soFar}`,
  };
}

interface Figure {
  /** Short name: the CSV's and `lab report`'s row. */
  name: string;
  /** The same in words, for the page. */
  words: string;
  /** Per compared run (config order): its estimate over seeds. */
  runs: Estimate[];
  /** Per later run: the paired difference (that run − the first run) and its verdict. */
  diffs: (Estimate & { verdict: Verdict })[];
}

export interface Comparison {
  /** Compared runs, config order (labels without the ` #s` seed suffix). */
  runs: string[];
  /** Seeds of the first run. */
  seeds: number;
  figures: Figure[];
}

/** The run label without its seed suffix: `Dr. MAS #3` → `Dr. MAS`. */
export const baseLabel = (label: string) => label.replace(/ #\d+$/, '');

/** A figure's pick: its short name (CSV, `lab report`), its name in words (the page), how to read it. */
export type Pick = [name: string, words: string, pick: (s: RunSummary) => number];

/** The figures compared, in table order (Reproduced? reads the same ones: reproduced.ts). */
export function figurePicks(summaries: readonly RunSummary[]): Pick[] {
  const agents = [...new Set(summaries.flatMap((s) => Object.keys(s.agents)))];
  const k = sharedEvalK(summaries);
  const tail = summaries[0]?.rewardTail ?? NaN;
  return [
    [`eval avg@${k}`, `held-out success, mean over ${k} samples per question`, (s) => s.evalAvg],
    [`eval pass@${k}`, `held-out success, any of ${k} samples per question`, (s) => s.evalPass],
    [`reward (last ${tail})`, `training reward, mean over the last ${tail} steps`, (s) => s.finalReward],
    // A search's own outcome (mcts): its best node, and how it shares the tree among its arms.
    ...(summaries.some((s) => Number.isFinite(s.treeBest))
      ? ([
          [
            `trees solved (last ${tail})`,
            `search trees with a node that passes, mean over the last ${tail} steps`,
            (s) => s.treeSolved,
          ],
          [
            `best node (last ${tail})`,
            `best node score per search tree, mean over the last ${tail} steps`,
            (s) => s.treeBest,
          ],
          ...agents
            .filter((a) => summaries.some((s) => Number.isFinite(s.agents[a]?.nodes)))
            .map((a): Pick => [
              `${a} nodes (last ${tail})`,
              `${a}: nodes per search tree it generated, mean over the last ${tail} steps`,
              (s) => s.agents[a]?.nodes ?? NaN,
            ]),
        ] as Pick[])
      : []),
    // Each agent's own part, where the task tells it (sync-own, coder-tester): whose learning moved,
    // and over several agents the worst one's and their mean (the agents study reads both).
    ...ownPicks(
      summaries,
      agents,
      'ownSuccess',
      `own success (last ${tail})`,
      `own success (did its own part), mean over the last ${tail} steps`,
    ),
    ...ownPicks(
      summaries,
      agents,
      'evalOwnSuccess',
      'held-out own success',
      'own success on held-out questions, at the last evaluation',
    ),
    ...agents.flatMap((a): Pick[] => [
      [
        `${a} |g| median`,
        `${a}: gradient norm, median over steps`,
        (s) => s.agents[a]?.gradNormMedian ?? NaN,
      ],
      [`${a} |g| max`, `${a}: gradient norm, largest over steps`, (s) => s.agents[a]?.gradNormMax ?? NaN],
      [
        `${a} spike frac`,
        `${a}: spike fraction: steps above 3× the running median`,
        (s) => s.agents[a]?.spikeFrac ?? NaN,
      ],
    ]),
    ['skipped updates', 'skipped updates (a non-finite loss or gradient)', (s) => s.skippedUpdates],
  ];
}

/** Each agent's own success by `field`, then, with two agents or more, the worst agent's and the mean. */
function ownPicks(
  summaries: readonly RunSummary[],
  agents: readonly string[],
  field: 'ownSuccess' | 'evalOwnSuccess',
  name: string,
  words: string,
): Pick[] {
  const told = agents.filter((a) => summaries.some((s) => Number.isFinite(s.agents[a]?.[field])));
  const values = (s: RunSummary) => told.map((a) => s.agents[a]?.[field] ?? NaN).filter(Number.isFinite);
  const each = told.map((a): Pick => [`${a} ${name}`, `${a}: ${words}`, (s) => s.agents[a]?.[field] ?? NaN]);
  if (told.length < 2) return each;
  return [
    ...each,
    [
      `worst agent ${name}`,
      `the worst agent's ${words}`,
      (s) => (values(s).length ? Math.min(...values(s)) : NaN),
    ],
    [
      `mean agent ${name}`,
      `the agents' mean ${words}`,
      (s) => (values(s).length ? values(s).reduce((x, y) => x + y, 0) / values(s).length : NaN),
    ],
  ];
}

/**
 * `summaries` hold every run × seed; runs are told apart by label, seeds paired by `seed`.
 * `expectedSeeds`: how many seeds the experiment has, when some may not have reported yet.
 */
export function compareSeeds(summaries: readonly RunSummary[], expectedSeeds = 0): Comparison {
  const runs = [...new Set(summaries.map((s) => baseLabel(s.run)))];
  const bySeed = runs.map(
    (r) => new Map(summaries.filter((s) => baseLabel(s.run) === r).map((s) => [s.seed, s])),
  );
  const seeds = [...(bySeed[0]?.keys() ?? [])];
  const figures = figurePicks(summaries).map(([name, words, pick]): Figure => ({
    name,
    words,
    runs: bySeed.map((m) => estimate([...m.values()].map(pick))),
    diffs: bySeed.slice(1).map((m, i) => {
      const values = seeds.map((seed) =>
        m.has(seed) ? pick(m.get(seed)!) - pick(bySeed[0].get(seed)!) : NaN,
      );
      const d = estimate(values);
      return { ...d, verdict: verdict(runs[i + 1], d, values, Math.max(expectedSeeds, d.n)) };
    }),
  }));
  return { runs, seeds: seeds.length, figures };
}

/** `mean ± half-width of the 95 % CI` (just the mean for one seed). */
export const pm = (x: Estimate, digits = 3): string =>
  !Number.isFinite(x.mean)
    ? '—'
    : Number.isFinite(x.hi)
      ? `${formatFixed(x.mean, digits)} ± ${formatFixed(x.hi - x.mean, digits)}`
      : formatFixed(x.mean, digits);

/** The comparison as header + rows of cells: the CLI's text table and the CSV export share it. */
function comparisonCells(c: Comparison): string[][] {
  const later = c.runs.slice(1);
  const head = [
    `figure (mean ± 95 % CI over ${c.seeds} seeds)`,
    ...c.runs,
    ...later.flatMap((r) => [`${r} − ${c.runs[0]} (paired)`, 'verdict']),
  ];
  const rows = c.figures.map((f) => [
    f.name,
    ...f.runs.map((x) => pm(x)),
    ...f.diffs.flatMap((d) => [pm(d), d.verdict.text]),
  ]);
  return [head, ...rows];
}

/** A plain-text table, one row per figure. */
export const comparisonTable = (c: Comparison): string => textTable(comparisonCells(c));

/**
 * The same cells as CSV (RFC 4180 quoting). With `source` (the page's export), two last columns
 * name the experiment on every row, its title and its link, so a CSV read alone says what it
 * compares; the columns before them are the table's.
 */
export function comparisonCsv(c: Comparison, source?: { experiment: string; link: string }): string {
  const cells = comparisonCells(c);
  if (!source) return csvText(cells);
  const [head, ...rows] = cells;
  return csvText([
    [...head, 'experiment', 'link'],
    ...rows.map((r) => [...r, source.experiment, source.link]),
  ]);
}

/** Header + rows of cells as aligned plain text, the header underlined. */
export function textTable([head, ...rows]: readonly string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * JSON.stringify's replacer for figures: JSON has no NaN or Infinity, so they become null (a gap,
 * as in metrics.jsonl and the charts).
 */
export const nanAsNull = (_key: string, value: unknown): unknown =>
  typeof value === 'number' && !Number.isFinite(value) ? null : value;

/** Header + rows of cells as CSV (RFC 4180 quoting). */
export function csvText(cells: readonly string[][]): string {
  const q = (x: string) => (/[",\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x);
  return cells.map((r) => r.map(q).join(',')).join('\n') + '\n';
}
