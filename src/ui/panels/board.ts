/**
 * The chart board's data side: the runs it shows, their series for each chart of the registry
 * (src/core/charts.ts), and which charts are flat for those runs (src/core/flat.ts). Colour is
 * the run's, dash the agent's; an opened result's run beside its twin trained here is drawn thin
 * and light (docs/charts.md#opened-beside-local); nothing else varies a line's style.
 */
import { useEffect, useMemo, useState } from 'react';
import { resolveRun } from '../../core/config-run';
import type { Optim } from '../../core/config-sections';
import type { ChartEntry } from '../../core/charts';
import { flatLines, flatReason } from '../../core/flat';
import { columnOf } from '../run-data';
import { agentDash, boardConfig, boardRuns, useLab } from '../session/store';
import type { LabState, RunView } from '../session/store';
import { useThrottledLab } from '../throttled';
import type { SeriesSpec } from './SeriesLayer';

/**
 * The runs as the board needs them (the session's, a link sweep's shown cell, then the imported
 * read-only ones, then an opened result's beside the runs trained here): a new list only when a
 * run, its agents or its markers change,
 * not on every tick's step-counter update (the charts re-read frames on their own).
 */
export function useBoardRuns(): RunView[] {
  const key = useLab((s) =>
    [...boardRuns(s), ...s.imported, ...(s.compared?.runs ?? [])]
      .map(
        (r) => `${r.id}:${r.runIndex}:${r.label}:${r.agents.join('+')}:${r.evalKs ?? ''}:${r.markers.length}`,
      )
      .join(','),
  );
  return useMemo(() => {
    void key;
    const s = useLab.getState();
    return [...boardRuns(s), ...s.imported, ...(s.compared?.runs ?? [])];
  }, [key]);
}

/**
 * Every run's agents, in the order the task lists them (the session's runs first), then the other
 * names imported runs carry (a cluster run's agents come from its data, not from this task).
 */
export function agentsOf(runs: RunView[]): string[] {
  return [...new Set(runs.flatMap((r) => r.agents))];
}

/** The eval K of each run: its own for an imported run (every K it carries), else the experiment's. */
export const evalKsOfRun = (r: RunView, evalK: number): number[] => r.evalKs ?? [evalK];

/**
 * Runs of one config entry (several seeds) form one series: their mean with a min–max band. An
 * opened result's runs beside the ones trained here form their own, named `(opened)`.
 */
export function groups(runs: RunView[]): { key: string; runs: RunView[]; label: string }[] {
  const byIndex = new Map<string, RunView[]>();
  for (const r of runs) {
    const k = `${r.opened ? 'o' : 'r'}${r.runIndex}`;
    byIndex.set(k, [...(byIndex.get(k) ?? []), r]);
  }
  return [...byIndex].map(([key, rs]) => {
    const base = `${rs[0].label.replace(/ #\d+$/, '')}${rs[0].opened ? ' (opened)' : ''}`;
    const label =
      rs.length > 1 ? `${base} (mean of ${rs.length})` : `${base}${/ #\d+$/.exec(rs[0].label)?.[0] ?? ''}`;
    return { key, runs: rs, label };
  });
}

/**
 * A chart's lines for these runs: per agent, one per group and agent it has (dash = agent); per
 * run, one per group and key (a second key, an imported run's second eval K, is dashed too and
 * named in the legend).
 */
export function chartSpecs(c: ChartEntry, runs: RunView[], agents: string[], evalK: number): SeriesSpec[] {
  const series = c.series;
  return groups(runs).flatMap((g) => {
    const runIds = g.runs.map((r) => r.id);
    const color = g.runs[0].color;
    const faded = g.runs[0].opened;
    if (series.per === 'agent')
      return agents.flatMap((a, ai): SeriesSpec[] =>
        g.runs.some((r) => r.agents.includes(a))
          ? [
              {
                id: `${g.key}a${ai}`,
                runIds,
                key: series.key(a),
                name: `${g.label} · ${a}`,
                color,
                dash: agentDash(ai),
                faded,
              },
            ]
          : [],
      );
    const keys = series.keys([...new Set(g.runs.flatMap((r) => evalKsOfRun(r, evalK)))]);
    return keys.map((k, ki) => ({
      id: `${g.key}k${ki}`,
      runIds,
      key: k.key,
      name: keys.length > 1 || c.id.startsWith('eval') ? `${g.label} · ${k.name}` : g.label,
      color,
      dash: agentDash(ki),
      faded,
    }));
  });
}

/** The optimizer settings of the session's runs among these (an imported run has none known). */
function optimsOf(runs: RunView[]): Optim[] {
  const config = boardConfig(useLab.getState());
  const session = boardRuns(useLab.getState());
  if (runs.some((r) => !session.some((s) => s.id === r.id))) return [];
  return [...new Set(runs.map((r) => r.runIndex))].flatMap((i) =>
    config.runs[i] ? [resolveRun(config, config.runs[i]).optim] : [],
  );
}

/** How often, at most, the board re-judges which charts are flat while frames stream, ms. */
const JUDGE_EVERY_MS = 2000;
const versionOf = (s: LabState) => s.frameVersion;

/**
 * The charts that are flat for the runs they draw, id → reason ("constant 0 over 200 steps: …"):
 * judged when the rows change and when new frames arrive (at most every JUDGE_EVERY_MS; a finished
 * session is judged once), a new object only when the verdicts change.
 */
export function useFlatCharts(rows: { chart: ChartEntry; specs: SeriesSpec[]; runs: RunView[] }[]) {
  const version = useThrottledLab(versionOf, null, JUDGE_EVERY_MS);
  const [flat, setFlat] = useState<Record<string, string>>({});
  useEffect(() => {
    void version; // the frames it reads are outside React state: their version says when to re-read
    const judge = () => {
      const next: Record<string, string> = {};
      for (const { chart, specs, runs } of rows) {
        const lines = specs.flatMap((s) => s.runIds.flatMap((id) => columnOf(id, s.key) ?? []));
        const f = lines.length > 0 ? flatLines(lines) : null;
        if (f) next[chart.id] = flatReason(f, chart.flatBecause?.(optimsOf(runs)));
      }
      setFlat((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    };
    // In a task of its own: it reads every line of every chart (a result's 16 repeats at once as
    // it opens), after the render that drew them (bench:open).
    const timer = setTimeout(judge, 0);
    return () => clearTimeout(timer);
  }, [rows, version]);
  return flat;
}
