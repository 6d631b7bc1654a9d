/**
 * W&B run-history CSV exports as rows by step. Two shapes are read:
 * - a run's history (the run page's export, or `run.history().to_csv()`): a `_step` column
 *   (or `step`, `Step`, `global_step`, `trainer/global_step`), `_runtime` in seconds, and one
 *   column per metric;
 * - a chart's export: `Step` and `<run> - <metric>` columns, with `__MIN` / `__MAX` band columns
 *   (skipped), several runs in one file.
 * Empty and non-numeric cells are missing values. Pure: no Node, no DOM.
 */
import { M } from '../core/metrics';
import type { StepMetrics } from './tensorboard';

const STEP_COLUMNS = ['_step', 'step', 'Step', 'global_step', 'trainer/global_step'];

/** RFC 4180 fields: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows.filter((r) => r.some((f) => f !== ''));
}

interface CsvRuns {
  /** Run name ('' for a single-run history) → rows by step. */
  runs: Map<string, StepMetrics[]>;
  /** Data lines dropped: no step, or a different number of fields than the header. */
  skipped: number;
}

/** Reads a W&B export; throws only when the file has no step column (the message names it). */
export function readWandbCsv(text: string): CsvRuns {
  const [header, ...lines] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) throw new Error('empty CSV');
  const stepCol = STEP_COLUMNS.map((c) => header.indexOf(c)).find((i) => i >= 0);
  if (stepCol === undefined) throw new Error(`no step column (expected one of ${STEP_COLUMNS.join(', ')})`);
  const runtimeCol = header.indexOf('_runtime');
  // Each metric column: which run it belongs to, and its name.
  const columns = header.flatMap((name, col) => {
    if (col === stepCol || name.startsWith('_') || /__(MIN|MAX)$/.test(name)) return [];
    const chart = /^(.+?) - (.+)$/.exec(name);
    return [{ col, run: chart ? chart[1] : '', name: chart ? chart[2] : name }];
  });
  const runs = new Map<string, Map<number, StepMetrics>>();
  let skipped = 0;
  for (const fields of lines) {
    const step = Number(fields[stepCol]);
    if (fields.length !== header.length || fields[stepCol] === '' || !Number.isFinite(step)) {
      skipped++;
      continue;
    }
    for (const { col, run, name } of columns) {
      if (fields[col] === '' || fields[col] === undefined) continue;
      const value = Number(fields[col]);
      if (!Number.isFinite(value)) continue;
      let byStep = runs.get(run);
      if (!byStep) runs.set(run, (byStep = new Map()));
      let row = byStep.get(step);
      if (!row) byStep.set(step, (row = { [M.step]: step }));
      row[name] = value;
      if (runtimeCol >= 0 && fields[runtimeCol] !== '' && Number.isFinite(Number(fields[runtimeCol])))
        row[M.timeS] = Number(fields[runtimeCol]);
    }
  }
  return {
    runs: new Map(
      [...runs].map(([run, byStep]) => [run, [...byStep.values()].sort((a, b) => a[M.step] - b[M.step])]),
    ),
    skipped,
  };
}
