/**
 * A CLI sweep folder opened in the page (the Map view): the files the user picked, read as text
 * and handed to the same pure reader `lab report` uses (src/report/sweep-map.ts), so the Map's CSV
 * is `lab report`'s table. Only sweep.json and each cell's config.json and metrics.jsonl are read
 * (checkpoints are not). No React here (docs/sweeps.md#the-map-in-the-page).
 */
import type { Experiment } from '../core/config';
import { csvText, nanAsNull } from '../report/findings';
import { loadSweep, sweepMapCells } from '../report/sweep-map';
import type { LoadedSweep } from '../report/sweep-map';
import { SweepRefused } from '../rl/sweep';
import { taskOf } from '../tasks/registry';

/** A picked file: its path inside the picked folder (File.webkitRelativePath) and its text. */
export interface PickedFile {
  path: string;
  text(): Promise<string>;
}

export interface OpenedSweep extends LoadedSweep {
  /** The folder holding sweep.json, as the picked paths name it. */
  name: string;
  /** Torn metrics lines and missing files, said rather than dropped silently. */
  warnings: string[];
}

const READ = /(^|\/)(sweep\.json|config\.json|metrics\.jsonl)$/;

/** An experiment's agents, as `lab report` names them: its task's roles. */
export const agentsOf = (exp: Experiment) => taskOf(exp).agents.map((a) => a.role);

/**
 * The sweep among `files`: the shallowest sweep.json gives the folder, every path is read
 * relative to it. Refused (SweepRefused) when no sweep.json was picked or the folder is not a
 * sweep's, with a message that names the file.
 */
export async function openSweep(files: readonly PickedFile[], tail: number): Promise<OpenedSweep> {
  const sweeps = files
    .filter((f) => f.path === 'sweep.json' || f.path.endsWith('/sweep.json'))
    .sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  if (!sweeps.length)
    throw new SweepRefused(
      'no sweep.json among the picked files: pick the folder lab sweep or lab merge wrote (its --out)',
    );
  const root = sweeps[0].path.slice(0, -'sweep.json'.length);
  const texts = new Map<string, string>();
  await Promise.all(
    files
      .filter((f) => f.path.startsWith(root) && READ.test(f.path))
      .map(async (f) => texts.set(f.path.slice(root.length), await f.text())),
  );
  const name = root.replace(/\/$/, '') || 'sweep';
  const warnings: string[] = [];
  const loaded = loadSweep(
    name,
    (p) => texts.get(p),
    agentsOf,
    tail,
    (m) => warnings.push(m),
  );
  return { ...loaded, name, warnings };
}

/**
 * The Map's CSV: `lab report`'s table for this sweep, a row per figure and cell, its pairs against
 * `baseline` (the Map's pick; `lab report`'s, the first run, unless given).
 */
export const mapCsv = (s: LoadedSweep, baseline?: string): string =>
  csvText(sweepMapCells(s.file.grid, s.cells, baseline));

/**
 * The Map's JSON: the sweep's file, the baseline run the pairs are against (`baseline`, else the
 * first run), the table and every run's summary per cell (NaN as null).
 */
export const mapJson = (s: LoadedSweep, baseline?: string): string =>
  JSON.stringify(
    {
      sweep: s.file,
      baseline: baseline ?? s.file.config.runs[0]?.label,
      table: sweepMapCells(s.file.grid, s.cells, baseline),
      cells: s.cells,
    },
    nanAsNull,
    2,
  );
