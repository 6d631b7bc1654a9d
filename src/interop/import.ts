/**
 * Files from other trainers, and the lab's own exports, → read-only lab runs: TensorBoard event
 * files (a folder is a run, as in TensorBoard, named by its path under the folder picked; several
 * files in one folder, e.g. a resumed run, merge by step; a file the lab wrote names its run
 * itself), W&B history CSVs (a file is a run, or one run per `<run> - <metric>` prefix), and the
 * lab's CSV and JSON (lab-exports.ts: each run as it was, with its seed). A run whose name ends in
 * a seed (seedOf) is that seed of its group, so the Findings and `lab report` compare groups over
 * seeds. Series names are mapped to the lab's keys (metric-map.ts). Damaged files give what could
 * be read and say what was lost; a file of no known kind, a run of which no value could be read,
 * and anything that would merge two runs into one are refused by name. Never throws. Pure: no
 * Node, no DOM.
 */
import type { LiveMarker } from '../core/live-schedule';
import { M, parseAgentKey } from '../core/metrics';
import { readMetricsJson, readRunCard } from './lab-exports';
import { mapNames } from './metric-map';
import type { WgMap } from './metric-map';
import { base, fileKind } from './file-kinds';
import { readEventFile } from './tensorboard';
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
  /** The seed a lab export recorded; else the seed read from the name, 0 when it has none. */
  seed: number;
  sources: string[];
  /** Rows by step, keys mapped to the lab's (unmapped ones under `other/`). */
  rows: StepMetrics[];
  /** The agents a lab export recorded; else the lab agent names found in the mapped keys, in order of first appearance. */
  agents: string[];
  /** Live changes a lab export recorded (JSON, an event file's card); none for other tools' runs. */
  markers: LiveMarker[];
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

/** What a file of the lab's own says of its run (a run card, a JSON run, a CSV's run and seed columns). */
interface Owned {
  seed?: number;
  agents?: string[];
  markers?: LiveMarker[];
}

interface RawRun {
  label: string;
  sources: string[];
  byStep: Map<number, StepMetrics>;
  records: number;
  skipped: number;
  truncatedBytes: number;
  /** Set for a run named inside its file: never merged with another file's run. */
  owned?: Owned;
}

/** Records read and dropped, and bytes of a cut-off tail, as a file adds them to its run. */
interface Counts {
  records: number;
  skipped?: number;
  truncatedBytes?: number;
}

const newRun = (label: string, owned?: Owned): RawRun => ({
  ...{ label, sources: [], byStep: new Map(), records: 0, skipped: 0, truncatedBytes: 0 },
  ...(owned ? { owned } : {}),
});

/**
 * Reads every file and maps its series; `wgMap` as in mapNames. Where a file's runs come from:
 * - a run named inside its file (an event file's run card, a JSON's runs, a CSV's `run` column)
 *   is that run, wherever the file lies; the same run in a second file is refused, not merged;
 * - an event file without a card is the run of its folder (several files in one folder, e.g. a
 *   resumed run, merge by step, as in TensorBoard); a W&B chart's runs merge across charts by
 *   name; a history CSV is the run of its file name. Two such files at one path (picked without
 *   their folders) are refused: which run each is cannot be told, and they would merge.
 * A run whose label another run already has is refused, as is a run of which no value was read.
 */
export function importFiles(files: readonly ImportFile[], wgMap?: WgMap): ImportResult {
  const named = new Map<string, RawRun>();
  const owned: RawRun[] = [];
  const all: RawRun[] = []; // in the order first read
  const refused: ImportResult['refused'] = [];
  /** Adds a file's rows and counts to a run (nothing when the run was refused). */
  const take = (run: RawRun | null, path: string, rows: readonly StepMetrics[], n: Counts) => {
    if (!run) return;
    if (!run.sources.includes(path)) run.sources.push(path);
    for (const row of rows) {
      const into = run.byStep.get(row[M.step]);
      if (into) Object.assign(into, row);
      else run.byStep.set(row[M.step], { ...row });
    }
    run.records += n.records;
    run.skipped += n.skipped ?? 0;
    run.truncatedBytes += n.truncatedBytes ?? 0;
  };
  const namedRun = (label: string): RawRun => {
    if (!named.has(label)) {
      named.set(label, newRun(label));
      all.push(named.get(label)!);
    }
    return named.get(label)!;
  };
  /** A run named inside its file; null (and the file refused) when another file already gave it. */
  const ownedRun = (path: string, label: string, o: Owned): RawRun | null => {
    const before = owned.find((r) => r.label === label);
    if (before) {
      refused.push({
        path,
        reason: `holds run "${label}", as does ${before.sources.join(', ')}: two exports of one run, or of two sessions? Import them one at a time`,
      });
      return null;
    }
    const run = newRun(label, o);
    owned.push(run);
    all.push(run);
    return run;
  };
  /** What `read` returns, or null with the file refused in its words. */
  const readOr = <T>(path: string, read: () => T): T | null => {
    try {
      return read();
    } catch (e) {
      refused.push({ path, reason: (e as Error).message });
      return null;
    }
  };
  // Files whose runs are named by their path wait until every path is known.
  const byPath: { path: string; add: () => void }[] = [];
  for (const { path, bytes } of files) {
    const kind = fileKind(path);
    if (kind === 'events') {
      const scan = readEventFile(bytes);
      const text = scan.card;
      const card = text === null ? null : readOr(path, () => readRunCard(text));
      if (card) take(ownedRun(path, card.label, card), path, scan.rows, scan);
      else if (text === null)
        byPath.push({ path, add: () => take(namedRun(runOfPath(path)), path, scan.rows, scan) });
    } else if (kind === 'csv') {
      const csv = readOr(path, () => readWandbCsv(new TextDecoder().decode(bytes)));
      if (!csv) continue;
      for (const c of csv.conflicts) refused.push({ path, reason: `run "${c.run}" not read: ${c.reason}` });
      const stem = base(path).replace(/\.csv$/i, '');
      for (const [name, rows] of csv.runs) {
        const n = { records: rows.length, skipped: csv.skipped };
        if (csv.runColumn) take(ownedRun(path, name, { seed: csv.seeds.get(name) }), path, rows, n);
        else if (name) take(namedRun(name), path, rows, n);
        else byPath.push({ path, add: () => take(namedRun(stem), path, rows, n) });
      }
      if (csv.runs.size === 0 && csv.conflicts.length === 0)
        refused.push({ path, reason: 'no numeric values' });
    } else if (kind === 'json') {
      const runs = readOr(path, () => readMetricsJson(new TextDecoder().decode(bytes)));
      for (const { rows, ...card } of runs ?? [])
        take(ownedRun(path, card.label, card), path, rows, { records: rows.length });
      if (runs?.length === 0) refused.push({ path, reason: 'it holds no runs' });
    } else {
      refused.push({
        path,
        reason:
          'neither a TensorBoard event file (name with "tfevents"), a CSV, nor a metrics JSON of this lab',
      });
    }
  }
  const perPath = new Map<string, number>();
  for (const { path } of byPath) perPath.set(path, (perPath.get(path) ?? 0) + 1);
  for (const { path, add } of byPath) {
    const n = perPath.get(path)!;
    if (n === 1) add();
    else
      refused.push({
        path,
        reason: `${n} files read as ${path}, with nothing in them to tell their runs apart: they would merge into one run. Give the folders that hold them instead`,
      });
  }
  // A run with no step read (an empty or wholly damaged event file) is refused, not charted or
  // stored as an empty run; so is a second run of one label (two sources would share its lines).
  const labels = new Map<string, RawRun>();
  const read: ImportedRun[] = [];
  for (const r of all) {
    if (r.byStep.size === 0) {
      const cut = r.truncatedBytes ? `, ${r.truncatedBytes} bytes of a cut-off tail` : '';
      refused.push({
        path: r.sources.join(', '),
        reason: `no scalar values read (${r.records} records, ${r.skipped} damaged records skipped${cut})`,
      });
      continue;
    }
    const run = mapRun(r, wgMap);
    const other = labels.get(run.label);
    if (other) {
      refused.push({
        path: r.sources.join(', '),
        reason: `its run reads as "${run.label}", as does the run of ${other.sources.join(', ')}; import them one at a time`,
      });
      continue;
    }
    labels.set(run.label, r);
    read.push(run);
  }
  return { runs: read, refused };
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
  // In the order the file first names them (a lab export's columns follow its agents' order).
  const found = [...new Set([...names].flatMap((n) => parseAgentKey(mapping.keys.get(n)!)?.agent ?? []))];
  const seeded = seedOf(run.label);
  // A run whose seed the lab recorded keeps its label as written (`GRPO #0`, seed 42); another is
  // labelled `<group> #<seed>` when its name ends in a seed.
  const recorded = run.owned?.seed !== undefined;
  const label = !recorded && seeded ? `${seeded.group} #${seeded.seed}` : run.label;
  return {
    label,
    group: seeded?.group ?? run.label,
    seed: run.owned?.seed ?? seeded?.seed ?? 0,
    sources: run.sources,
    rows,
    agents: run.owned?.agents ?? found,
    markers: run.owned?.markers ?? [],
    keys: Object.fromEntries(mapping.keys),
    wgAgents: mapping.wgAgents,
    inferred: mapping.inferred,
    records: run.records,
    skipped: run.skipped,
    truncatedBytes: run.truncatedBytes,
  };
}
