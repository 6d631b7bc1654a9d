/**
 * Metrics export: the board's runs' frames (a link sweep's shown cell: boardRuns) as CSV (one row per run per step, one column per metric key,
 * the union over runs) or JSON (the experiment plus each run's card and rows), downloaded as a
 * Blob; both formats are src/interop/lab-exports.ts's, which `lab import` and Other tools read
 * back. Names are the metric dictionary's (src/core/metrics.ts), the same as the CLI's JSONL.
 */
import { encodeExperiment } from '../core/url';
import { metricsCsv, metricsJson } from '../interop/lab-exports';
import type { ExportedRun } from '../interop/lab-exports';
import { allRows, runData } from './run-data';
import { boardConfig, boardRuns, useLab } from './session/store';
import type { RunView } from './session/store';

/** A run's card, keys and every step, as the exports take it. */
export const exportedRun = (r: RunView): ExportedRun => ({
  ...{ label: r.label, seed: r.seed, agents: r.agents, markers: r.markers },
  ...{ keys: runData(r.id)?.codec.keys ?? [], rows: allRows(r.id) },
});

const boardExport = () => boardRuns(useLab.getState()).map(exportedRun);

/** One chart's metrics at full resolution: `run,seed,step,<the chart's keys…>`. */
export function chartCsv(series: { runIds: readonly string[]; key: string }[]): string {
  const keys = [...new Set(series.map((s) => s.key))];
  const ids = new Set(series.flatMap((s) => s.runIds));
  const runs = useLab.getState().runs.filter((r) => ids.has(r.id));
  return metricsCsv(
    runs.map((r) => {
      const run = exportedRun(r);
      return { ...run, keys, rows: run.rows.filter((row) => keys.some((k) => row[k] !== undefined)) };
    }),
  );
}

export function download(name: string, text: string, type: string): void {
  downloadBlob(name, new Blob([text], { type }));
}

export function downloadBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file name from a chart title: `agentwise-reward-mean`. */
export const fileName = (title: string) =>
  `agentwise-${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;

/** Now, for a download's name: `2026-12-02-05-30-00`. */
export const stamp = () => new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
export const downloadCsv = () =>
  download(`agentwise-metrics-${stamp()}.csv`, metricsCsv(boardExport()), 'text/csv');
export function downloadJson(): void {
  const config = boardConfig(useLab.getState());
  const text = metricsJson(config, `#${encodeExperiment(config)}`, boardExport());
  download(`agentwise-metrics-${stamp()}.json`, text, 'application/json');
}
