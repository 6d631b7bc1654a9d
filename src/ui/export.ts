/**
 * Metrics export: the board's runs' frames (a link sweep's shown cell: boardRuns) as CSV (one row per run per step, one column per metric key,
 * the union over runs) or JSON (the experiment plus each run's rows), downloaded as a Blob. Names
 * are the metric dictionary's (src/core/metrics.ts), the same as the CLI's JSONL.
 */
import { encodeExperiment } from '../core/url';
import { allRows, runData } from './run-data';
import { boardConfig, boardRuns, useLab } from './session/store';

function runsWithRows() {
  return boardRuns(useLab.getState()).map((r) => ({
    run: r,
    rows: allRows(r.id),
    keys: runData(r.id)?.codec.keys ?? [],
  }));
}

function csvCell(v: string | number | undefined): string {
  if (v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** `run,seed,step,<keys…>` then one line per run per step; empty cells where a key had no value. */
function metricsCsv(): string {
  const runs = runsWithRows();
  const keys: string[] = [];
  const seen = new Set(['step']);
  for (const { keys: ks } of runs) {
    for (const k of ks) {
      if (!seen.has(k)) {
        seen.add(k);
        keys.push(k);
      }
    }
  }
  const lines = [['run', 'seed', 'step', ...keys].map(csvCell).join(',')];
  for (const { run, rows } of runs) {
    for (const row of rows)
      lines.push([run.label, run.seed, row.step, ...keys.map((k) => row[k])].map(csvCell).join(','));
  }
  return lines.join('\n') + '\n';
}

function metricsJson(): string {
  const config = boardConfig(useLab.getState());
  return JSON.stringify(
    {
      experiment: config,
      link: `#${encodeExperiment(config)}`,
      runs: runsWithRows().map(({ run, rows }) => ({
        label: run.label,
        seed: run.seed,
        agents: run.agents,
        markers: run.markers,
        rows,
      })),
    },
    null,
    1,
  );
}

/** One chart's metrics at full resolution: `run,seed,step,<the chart's keys…>`. */
export function chartCsv(series: { runIds: readonly string[]; key: string }[]): string {
  const keys = [...new Set(series.map((s) => s.key))];
  const ids = [...new Set(series.flatMap((s) => s.runIds))];
  const lines = [['run', 'seed', 'step', ...keys].map(csvCell).join(',')];
  for (const run of useLab.getState().runs.filter((r) => ids.includes(r.id))) {
    for (const row of allRows(run.id)) {
      if (keys.some((k) => row[k] !== undefined)) {
        lines.push([run.label, run.seed, row.step, ...keys.map((k) => row[k])].map(csvCell).join(','));
      }
    }
  }
  return lines.join('\n') + '\n';
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

const stamp = () => new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
export const downloadCsv = () => download(`agentwise-metrics-${stamp()}.csv`, metricsCsv(), 'text/csv');
export const downloadJson = () =>
  download(`agentwise-metrics-${stamp()}.json`, metricsJson(), 'application/json');
