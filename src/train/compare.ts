/**
 * Runs compared over seeds: for every figure of the run summaries (final avg@k / pass@k, reward,
 * per-agent grad-norm median, max and spike fraction), each run's mean ± std over its seeds, and
 * each later run's paired difference from the first (same seed, same task stream: the pairing
 * removes the seed-to-seed spread the runs share). Pure: summaries in, rows out.
 */
import type { RunSummary } from './summary';

export interface Figure {
  name: string;
  /** Per compared run (config order): mean and sample std over seeds, and how many seeds had it. */
  runs: { mean: number; std: number; n: number }[];
  /** Per later run: mean and sample std over seeds of (that run − the first run). */
  diffs: { mean: number; std: number; n: number }[];
}

export interface Comparison {
  /** Compared runs, config order (labels without the ` #s` seed suffix). */
  runs: string[];
  figures: Figure[];
}

export function meanStd(xs: readonly number[]): { mean: number; std: number; n: number } {
  const f = xs.filter(Number.isFinite);
  const n = f.length;
  if (n === 0) return { mean: NaN, std: NaN, n };
  const mean = f.reduce((a, x) => a + x, 0) / n;
  const std = n > 1 ? Math.sqrt(f.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : NaN;
  return { mean, std, n };
}

/** The run label without its seed suffix: `Dr. MAS #3` → `Dr. MAS`. */
export const baseLabel = (label: string) => label.replace(/ #\d+$/, '');

/** `summaries` hold every run × seed; runs are told apart by label, seeds paired by `seed`. */
export function compareSeeds(summaries: readonly RunSummary[]): Comparison {
  const runs = [...new Set(summaries.map((s) => baseLabel(s.run)))];
  const bySeed = runs.map((r) => new Map(summaries.filter((s) => baseLabel(s.run) === r).map((s) => [s.seed, s])));
  const agents = [...new Set(summaries.flatMap((s) => Object.keys(s.agents)))];
  const picks: [string, (s: RunSummary) => number][] = [
    ['eval avg@k', (s) => s.evalAvg],
    ['eval pass@k', (s) => s.evalPass],
    ['reward (last 10)', (s) => s.finalReward],
    ...agents.flatMap((a): [string, (s: RunSummary) => number][] => [
      [`${a} |g| median`, (s) => s.agents[a]?.gradNormMedian ?? NaN],
      [`${a} |g| max`, (s) => s.agents[a]?.gradNormMax ?? NaN],
      [`${a} spike frac`, (s) => (s.agents[a] ? s.agents[a].spikes / s.steps : NaN)],
    ]),
  ];
  const seeds = [...bySeed[0].keys()];
  const figures = picks.map(([name, pick]) => ({
    name,
    runs: bySeed.map((m) => meanStd([...m.values()].map(pick))),
    diffs: bySeed.slice(1).map((m) =>
      meanStd(seeds.map((seed) => (m.has(seed) ? pick(m.get(seed)!) - pick(bySeed[0].get(seed)!) : NaN))),
    ),
  }));
  return { runs, figures };
}

/** A plain-text table: one row per figure, `mean ± std` per run, then the paired differences. */
export function comparisonTable(c: Comparison, digits = 3): string {
  const pm = (x: { mean: number; std: number }) =>
    Number.isFinite(x.mean) ? `${x.mean.toFixed(digits)} ± ${Number.isFinite(x.std) ? x.std.toFixed(digits) : '—'}` : '—';
  const head = ['figure (mean ± std over seeds)', ...c.runs, ...c.runs.slice(1).map((r) => `${r} − ${c.runs[0]} (paired)`)];
  const rows = c.figures.map((f) => [f.name, ...f.runs.map(pm), ...f.diffs.map(pm)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((x, i) => x.padEnd(widths[i])).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
