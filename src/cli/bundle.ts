/**
 * `npm run lab -- bundle RUN_DIR --out FILE`: a train, sweep or import folder as one result file
 * (src/report/result-file.ts), to share what ran rather than a recipe to run again
 * (docs/sharing.md#making-one). Every repeat's frames as metrics.jsonl recorded them, each
 * experiment's Findings and What differs as `lab report` and the page compute them, a sweep's Map
 * table, the live changes, machine.json, and each run's latest rollout sample (`lab train`'s
 * rollouts/); no checkpoints ever.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { runRepeats } from '../core/config';
import type { Experiment } from '../core/config';
import { scheduleEntries } from '../core/live-schedule';
import { M } from '../core/metrics';
import { planCells, readSweepFile } from '../rl/sweep';
import { readResult, writeResult } from '../report/result-file';
import { parseRolloutSample } from '../report/result-format';
import type {
  ResultBody,
  ResultExperiment,
  ResultMachine,
  ResultRun,
  RolloutSample,
} from '../report/result-format';
import { resultExperiment, summariesOf } from '../report/result-make';
import { sweepMapCells } from '../report/sweep-map';
import { taskOf } from '../tasks/registry';
import { parseOptions, UsageError } from './args';
import { readImportJson } from './interop';
import { loadConfig } from './load-config';
import { readMachines } from './machine';
import type { Machine } from '../core/machine';
import { readMetrics, rolloutsPath, SessionDirError, warn, writeAtomic } from './session-dir';

export const BUNDLE_USAGE = 'usage: npm run lab -- bundle RUN_DIR --out FILE [--force]';

type Rows = { run: string; metrics: Record<string, number> }[];

/**
 * One repeat's lines as frames over its keys (`step` first, then in the order they first come),
 * steps ascending; a step recorded twice (a torn line and its resume) keeps its last line.
 */
function framesOf(rows: Rows, label: string): { keys: string[]; frames: Float64Array[] } {
  const byStep = new Map<number, Record<string, number>>();
  for (const r of rows) if (r.run === label) byStep.set(r.metrics[M.step], r.metrics);
  const lines = [...byStep.values()].sort((a, b) => a[M.step] - b[M.step]);
  const keys = [...new Set([M.step as string, ...lines.flatMap((line) => Object.keys(line))])];
  const frames = lines.map((line) => Float64Array.from(keys, (k) => line[k] ?? NaN));
  return { keys, frames };
}

/**
 * A run's rollout sample as `lab train` wrote it, or none: a folder trained before it wrote them,
 * or a file that does not read as one (said, and the rest is bundled).
 */
function rolloutsOf(dir: string, index: number, label: string): RolloutSample[] {
  const path = rolloutsPath(dir, index, label);
  if (!existsSync(path)) return [];
  const sample = parseRolloutSample(readFileSync(path, 'utf8'));
  if (!sample) warn(`${path}: not a rollout sample this lab writes; ${label} is bundled without one`);
  return sample ? [sample] : [];
}

/** A train folder's experiment and its repeats (every one of runRepeats', recorded or not). */
function trainedRuns(dir: string, exp: Experiment, experiment: number): ResultRun[] {
  const rows = readMetrics(join(dir, 'metrics.jsonl'), warn, exp.task);
  const agents = taskOf(exp).agents.map((a) => a.role);
  return runRepeats(exp).map(({ label, seed, runIndex }, i) => ({
    ...{ label, seed, experiment, runIndex, agents },
    markers: scheduleEntries(exp.runs[runIndex].live),
    ...framesOf(rows, label),
    rollouts: rolloutsOf(dir, i, label),
  }));
}

/** machine.json's entry as a result keeps it (a hand-edited field reads as unknown). */
const resultMachine = (m: Partial<Machine>): ResultMachine => {
  const str = (v: unknown) => (typeof v === 'string' ? v : 'unknown');
  return {
    ...{ date: str(m.date), commit: typeof m.commit === 'string' ? m.commit : null },
    dirty: typeof m.dirty === 'boolean' ? m.dirty : null,
    ...{ cpu: str(m.cpu), cores: Number.isSafeInteger(m.cores) ? m.cores! : 0, platform: str(m.platform) },
    ...{ runtime: `node ${str(m.node)}`, backend: str(m.backend), kernels: `wasm SIMD: ${str(m.simd)}` },
  };
};

/** Each folder's machine.json entries, once each. */
function machinesOf(dirs: readonly string[]): ResultMachine[] {
  const all = dirs.flatMap((d) => readMachines(d).map(resultMachine));
  return [...new Map(all.map((m) => [JSON.stringify(m), m])).values()];
}

interface Bundled {
  experiments: ResultExperiment[];
  sweep: ResultBody['sweep'];
  runs: ResultRun[];
  machines: ResultMachine[];
}

function trainFolder(dir: string): Bundled {
  const exp = loadConfig(join(dir, 'config.json'));
  const runs = trainedRuns(dir, exp, 0);
  return { experiments: [resultExperiment(exp, null, runs)], sweep: null, runs, machines: machinesOf([dir]) };
}

/** A sweep folder: each cell an experiment (one not started: its planned experiment, no frames), and the Map's table. */
function sweepFolder(dir: string): Bundled {
  const path = join(dir, 'sweep.json');
  let file;
  try {
    file = readSweepFile(JSON.parse(readFileSync(path, 'utf8')), path);
  } catch (e) {
    throw new SessionDirError(`${path}: ${(e as Error).message}`);
  }
  const planned = new Map(planCells(file.config, file.grid).map((c) => [c.dir, c.config]));
  const runs: ResultRun[] = [];
  const cells = file.cells.map((c, i) => {
    const at = join(dir, c.dir);
    const started = existsSync(join(at, 'config.json'));
    const exp = started ? loadConfig(join(at, 'config.json')) : planned.get(c.dir)!;
    const mine = started ? trainedRuns(at, exp, i) : [];
    runs.push(...mine);
    return { exp, params: c.params, mine, summaries: summariesOf(exp, mine) };
  });
  return {
    experiments: cells.map((c) => resultExperiment(c.exp, c.params, c.mine)),
    sweep: { grid: file.grid, map: sweepMapCells(file.grid, cells) },
    runs,
    machines: machinesOf(file.cells.map((c) => join(dir, c.dir))),
  };
}

/** A `lab import` folder: its runs as import.json names them, no experiment (they trained elsewhere). */
function importFolder(dir: string): Bundled {
  const rows = readMetrics(join(dir, 'metrics.jsonl'), warn);
  const runs = readImportJson(dir)!.map((r): ResultRun => ({
    ...{ label: r.label, seed: r.seed ?? 0, experiment: 0, runIndex: -1, agents: r.agents },
    markers: r.markers ?? [],
    ...framesOf(rows, r.label),
    rollouts: [],
  }));
  return { experiments: [resultExperiment(null, null, runs)], sweep: null, runs, machines: [] };
}

/** A train, sweep or import folder as a result's body (which kind: the file that marks it). */
export function folderResult(dir: string): ResultBody {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new SessionDirError(`no such folder: ${dir}`);
  const has = (f: string) => existsSync(join(dir, f));
  const folder = has('sweep.json')
    ? sweepFolder(dir)
    : has('import.json')
      ? importFolder(dir)
      : has('config.json')
        ? trainFolder(dir)
        : null;
  if (!folder)
    throw new SessionDirError(
      `${dir} holds no sweep.json, import.json or config.json: not a folder lab sweep, import or train wrote`,
    );
  return {
    made: { by: 'lab bundle', at: new Date().toISOString(), from: basename(resolve(dir)) },
    ...folder,
  };
}

/** `lab bundle`: writes the result file; returns the exit status. */
export function bundle(argv: readonly string[]): number {
  const { values, positionals } = parseOptions(
    argv,
    { out: { type: 'string' }, force: { type: 'boolean', default: false } },
    BUNDLE_USAGE,
  );
  if (positionals.length !== 1 || !values.out) throw new UsageError(BUNDLE_USAGE);
  const [dir] = positionals;
  const out = values.out as string;
  if (existsSync(out) && !values.force)
    throw new SessionDirError(`${out} exists: --force replaces it, or choose another --out`);
  const body = folderResult(dir);
  const bytes = writeResult(body);
  // Read back before it is written: a file the lab would refuse to open is never shared.
  const { sha256 } = readResult(bytes);
  writeAtomic(out, bytes);
  const frames = body.runs.reduce((n, r) => n + r.frames.length, 0);
  const cells = body.sweep ? `${body.experiments.length} cells, ` : '';
  console.log(
    `${out}: ${cells}${body.runs.length} runs, ${frames} frames, ${(bytes.length / 2 ** 20).toFixed(2)} MB; sha256 ${sha256}`,
  );
  return 0;
}
