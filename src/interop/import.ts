/**
 * Files from other trainers → read-only lab runs: TensorBoard event files (a folder is a run, as
 * in TensorBoard, named by its path under the folder picked; several files in one folder, e.g. a
 * resumed run, merge by step) and W&B history CSVs (a file is a run, or one run per `<run> -
 * <metric>` prefix). A run whose name ends in a seed (seedOf) is that seed of its group, so the
 * Findings and `lab report` compare groups over seeds. Series names are mapped to the
 * lab's keys (metric-map.ts). Damaged files give what could be read and say what was lost; a file
 * that is neither kind, or a run of which no value could be read, is refused by name. Never throws. Pure: no Node, no DOM.
 */
import { M, parseAgentKey } from '../core/metrics';
import { mapNames } from './metric-map';
import type { WgMap } from './metric-map';
import { EVENT_FILE_INFIX, readEventFile } from './tensorboard';
import type { StepMetrics } from './tensorboard';
import { readWandbCsv } from './wandb-csv';

export interface ImportFile {
  /** '/'-separated path, relative to what the user picked (the folder names give run names). */
  path: string;
  bytes: Uint8Array;
}

export interface ImportedRun {
  /** `<group> #<seed>` when the name carries a seed (the lab's own labels), else the name. */
  label: string;
  /** The run's name without its seed: runs of one group differ only in seed. */
  group: string;
  /** The seed read from the name, 0 when it has none. */
  seed: number;
  sources: string[];
  /** Rows by step, keys mapped to the lab's (unmapped ones under `other/`). */
  rows: StepMetrics[];
  /** Lab agent names found in the mapped keys, in order of first appearance. */
  agents: string[];
  /** Source name → lab key, for every series. */
  keys: Record<string, string>;
  /** wg_id → agents used for the mapping, and which of them were inferred. */
  wgAgents: WgMap;
  inferred: string[];
  /** Records or CSV lines read, and those dropped as damaged. */
  records: number;
  skipped: number;
  /** Bytes of cut-off tails (event files), 0 if none. */
  truncatedBytes: number;
}

export interface ImportResult {
  runs: ImportedRun[];
  refused: { path: string; reason: string }[];
}

const base = (path: string) => path.split('/').pop() ?? path;
/** An event file's run: its folder's path under the folder picked (`logs/grpo/seed1/f` → `grpo/seed1`), or the picked folder itself. */
const runOfPath = (path: string) => {
  const dirs = path.split('/').slice(0, -1);
  return (dirs.length > 1 ? dirs.slice(1) : dirs).join('/') || 'run';
};

/**
 * The seed a run's name ends in, as trainers name seeded runs: the lab's `GRPO #2`, `grpo_seed2`,
 * `grpo-seed-2`, `grpo/seed2` (a folder per seed), `grpo_s2`. Null when the name has no seed or
 * nothing before it.
 */
export function seedOf(name: string): { group: string; seed: number } | null {
  const m = /^(.*?)(?: #|[\s_\-/.]?seed[\s_\-=]?|[\s_\-/.]s)(\d+)$/i.exec(name);
  const group = m?.[1].replace(/[\s_\-/.]+$/, '');
  return m && group ? { group, seed: Number(m[2]) } : null;
}

export function fileKind(path: string): 'events' | 'csv' | null {
  if (base(path).includes(EVENT_FILE_INFIX)) return 'events';
  if (/\.csv$/i.test(path)) return 'csv';
  return null;
}

interface RawRun {
  label: string;
  sources: string[];
  byStep: Map<number, StepMetrics>;
  records: number;
  skipped: number;
  truncatedBytes: number;
}

/** Reads every file and maps its series; `wgMap` as in mapNames. */
export function importFiles(files: readonly ImportFile[], wgMap?: WgMap): ImportResult {
  const raw = new Map<string, RawRun>();
  const refused: ImportResult['refused'] = [];
  const runOf = (label: string): RawRun => {
    let r = raw.get(label);
    if (!r)
      raw.set(
        label,
        (r = { label, sources: [], byStep: new Map(), records: 0, skipped: 0, truncatedBytes: 0 }),
      );
    return r;
  };
  const merge = (run: RawRun, rows: StepMetrics[]) => {
    for (const row of rows) {
      const into = run.byStep.get(row[M.step]);
      if (into) Object.assign(into, row);
      else run.byStep.set(row[M.step], { ...row });
    }
  };
  for (const file of files) {
    const kind = fileKind(file.path);
    if (kind === 'events') {
      const scan = readEventFile(file.bytes);
      const run = runOf(runOfPath(file.path));
      run.sources.push(file.path);
      merge(run, scan.rows);
      run.records += scan.records;
      run.skipped += scan.skipped;
      run.truncatedBytes += scan.truncatedBytes;
    } else if (kind === 'csv') {
      let csv;
      try {
        csv = readWandbCsv(new TextDecoder().decode(file.bytes));
      } catch (e) {
        refused.push({ path: file.path, reason: (e as Error).message });
        continue;
      }
      const stem = base(file.path).replace(/\.csv$/i, '');
      for (const [name, rows] of csv.runs) {
        const run = runOf(name || stem);
        run.sources.push(file.path);
        merge(run, rows);
        run.records += rows.length;
        run.skipped += csv.skipped;
      }
      if (csv.runs.size === 0) refused.push({ path: file.path, reason: 'no numeric values' });
    } else {
      refused.push({
        path: file.path,
        reason: 'neither a TensorBoard event file (name with "tfevents") nor a CSV',
      });
    }
  }
  // A run with no step read (an empty or wholly damaged event file) is refused, not charted or
  // stored as an empty run.
  for (const r of raw.values()) {
    if (r.byStep.size > 0) continue;
    const cut = r.truncatedBytes ? `, ${r.truncatedBytes} bytes of a cut-off tail` : '';
    refused.push({
      path: r.sources.join(', '),
      reason: `no scalar values read (${r.records} records, ${r.skipped} damaged records skipped${cut})`,
    });
  }
  const read = [...raw.values()].filter((r) => r.byStep.size > 0);
  return { runs: read.map((r) => mapRun(r, wgMap)), refused };
}

function mapRun(run: RawRun, wgMap?: WgMap): ImportedRun {
  const names = new Set<string>();
  for (const row of run.byStep.values())
    for (const k of Object.keys(row)) if (k !== M.step && k !== M.timeS) names.add(k);
  const mapping = mapNames(names, wgMap);
  const rows = [...run.byStep.values()]
    .sort((a, b) => a[M.step] - b[M.step])
    .map((row) => {
      const out: StepMetrics = {};
      for (const [k, v] of Object.entries(row)) out[mapping.keys.get(k) ?? k] = v;
      return out;
    });
  const agents = [...new Set([...mapping.keys.values()].flatMap((k) => parseAgentKey(k)?.agent ?? []))];
  const seeded = seedOf(run.label);
  return {
    label: seeded ? `${seeded.group} #${seeded.seed}` : run.label,
    group: seeded?.group ?? run.label,
    seed: seeded?.seed ?? 0,
    sources: run.sources,
    rows,
    agents,
    keys: Object.fromEntries(mapping.keys),
    wgAgents: mapping.wgAgents,
    inferred: mapping.inferred,
    records: run.records,
    skipped: run.skipped,
    truncatedBytes: run.truncatedBytes,
  };
}
