/**
 * CSV exports as rows by step. Three shapes are read:
 * - a run's history (W&B's run page export, or `run.history().to_csv()`): a `_step` column
 *   (or `step`, `Step`, `global_step`, `trainer/global_step`), `_runtime` in seconds, and one
 *   column per metric;
 * - a W&B chart's export: `Step` and `<run> - <metric>` columns, with `__MIN` / `__MAX` band
 *   columns (skipped), several runs in one file;
 * - a file with a `run` column (the lab's own, `run,seed,step,…`: lab-exports.ts): each line
 *   belongs to the run it names, and a `seed` column gives that run's seed.
 * Empty and non-numeric cells are missing values. A run with one step on two lines (two runs under
 * one name, or two files pasted together) is not read: which line is which run cannot be told.
 * Pure: no Node, no DOM.
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
  /** Data lines dropped: no step, no run name, or a different number of fields than the header. */
  skipped: number;
  /** The runs are named by a `run` column (the lab's CSV), not by columns or the file. */
  runColumn: boolean;
  /** Run name → its seed, from the `seed` column of a file with a `run` column. */
  seeds: Map<string, number>;
  /** Runs not read, and why (a step on two lines, two seeds under one name). */
  conflicts: { run: string; reason: string }[];
}

/** Reads a W&B export; throws only when the file has no step column (the message names it). */
export function readWandbCsv(text: string): CsvRuns {
  const [header, ...lines] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) throw new Error('empty CSV');
  const stepCol = STEP_COLUMNS.map((c) => header.indexOf(c)).find((i) => i >= 0);
  if (stepCol === undefined) throw new Error(`no step column (expected one of ${STEP_COLUMNS.join(', ')})`);
  const runtimeCol = header.indexOf('_runtime');
  const runCol = header.indexOf('run');
  const seedCol = runCol >= 0 ? header.indexOf('seed') : -1;
  // Each metric column: which run it belongs to ('' for the line's own with a run column), and its name.
  const columns = header.flatMap((name, col) => {
    if (col === stepCol || col === runCol || col === seedCol) return [];
    if (name.startsWith('_') || /__(MIN|MAX)$/.test(name)) return [];
    const chart = runCol < 0 ? /^(.+?) - (.+)$/.exec(name) : null;
    return [{ col, run: chart ? chart[1] : '', name: chart ? chart[2] : name }];
  });
  const runs = new Map<string, Map<number, StepMetrics>>();
  const lineOf = new Map<string, Map<number, number>>(); // run → step → the data line that gave it
  const seeds = new Map<string, number>();
  const conflicts = new Map<string, string>();
  let skipped = 0;
  lines.forEach((fields, line) => {
    const step = Number(fields[stepCol]);
    const lineRun = runCol >= 0 ? fields[runCol] : '';
    const bad = fields.length !== header.length || fields[stepCol] === '' || !Number.isFinite(step);
    if (bad || (runCol >= 0 && !lineRun)) {
      skipped++;
      return;
    }
    if (seedCol >= 0) {
      const seed = Number(fields[seedCol]);
      const had = seeds.get(lineRun);
      if (fields[seedCol] !== '' && had !== undefined && had !== seed)
        conflicts.set(lineRun, `two seeds (${had} and ${fields[seedCol]}) under one run name`);
      else if (fields[seedCol] !== '' && Number.isSafeInteger(seed)) seeds.set(lineRun, seed);
    }
    for (const { col, run: columnRun, name } of columns) {
      if (fields[col] === '' || fields[col] === undefined) continue;
      const value = Number(fields[col]);
      if (!Number.isFinite(value)) continue;
      const run = columnRun || lineRun;
      let stepLines = lineOf.get(run);
      if (!stepLines) lineOf.set(run, (stepLines = new Map()));
      const first = stepLines.get(step) ?? line;
      stepLines.set(step, first);
      if (first !== line)
        conflicts.set(run, `step ${step} is on two lines (data lines ${first + 1} and ${line + 1})`);
      let byStep = runs.get(run);
      if (!byStep) runs.set(run, (byStep = new Map()));
      let row = byStep.get(step);
      if (!row) byStep.set(step, (row = { [M.step]: step }));
      row[name] = value;
      if (runtimeCol >= 0 && fields[runtimeCol] !== '' && Number.isFinite(Number(fields[runtimeCol])))
        row[M.timeS] = Number(fields[runtimeCol]);
    }
  });
  for (const run of conflicts.keys()) runs.delete(run);
  return {
    runs: new Map(
      [...runs].map(([run, byStep]) => [run, [...byStep.values()].sort((a, b) => a[M.step] - b[M.step])]),
    ),
    skipped,
    runColumn: runCol >= 0,
    seeds,
    conflicts: [...conflicts].map(([run, reason]) => ({ run, reason })),
  };
}
