/**
 * `lab export tensorboard <run DIR> --out TBDIR` and `lab import <files or folders…> --out DIR`:
 * the CLI side of src/interop. Reads and writes files; the formats themselves live in src/interop
 * (pure, shared with the page).
 */
import { chmodSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { encodeExperiment } from '../core/url';
import { ExportRefused, exportDrmas } from '../interop/drmas';
import { DEFAULT_DRMAS_MODEL } from '../interop/drmas-counterparts';
import { drmasReadme } from '../interop/drmas-readme';
import { readInFolder } from '../interop/file-kinds';
import { importFiles } from '../interop/import';
import type { ImportFile, ImportedRun } from '../interop/import';
import type { WgMap } from '../interop/metric-map';
import { runCardText } from '../interop/lab-exports';
import type { RunCard } from '../interop/lab-exports';
import { eventFileName, writeEventFile } from '../interop/tensorboard';
import { runRepeats } from '../core/config';
import type { Experiment } from '../core/config';
import { scheduleEntries } from '../core/live-schedule';
import { taskOf } from '../tasks/registry';
import type { StepMetrics } from '../interop/tensorboard';
import { parseOptions, UsageError, unknownName } from './args';
import { ConfigError, loadConfig } from './load-config';
import {
  fsError,
  prepareNewSessionDir,
  readMetrics,
  SessionDirError,
  warn,
  writeAtomic,
} from './session-dir';
import { evalKsOf } from '../core/metrics';
import { nanAsNull } from '../report/findings';
import { REWARD_TAIL, summarize } from '../report/summary';
import type { RunSummary } from '../report/summary';

/** A run label as a folder name (TensorBoard shows the folder as the run's name; `#` kept: `GRPO #2` reads back as seed 2). */
const runFolder = (label: string): string => label.replace(/[^\w .()+#-]+/g, '_');

/** `--name value` options (strings), `--flag` switches and positionals; an unknown option is a usage error. */
function options<K extends string, F extends string = never>(
  argv: readonly string[],
  names: readonly K[],
  flags: readonly F[] = [],
): { values: Partial<Record<K, string>> & Partial<Record<F, boolean>>; positionals: string[] } {
  const spec = Object.fromEntries([
    ...names.map((n) => [n, { type: 'string' as const }]),
    ...flags.map((n) => [n, { type: 'boolean' as const }]),
  ]);
  const { values, positionals } = parseOptions(argv, spec);
  return { values: values as Partial<Record<K, string>> & Partial<Record<F, boolean>>, positionals };
}

/**
 * Each repeat's card (label, seed, agents, live changes) from the folder's config, so its event
 * file names its run wherever it is read.
 */
function runCards(exp: Experiment): Map<string, RunCard> | null {
  let agents;
  try {
    agents = taskOf(exp).agents.map((a) => a.role);
  } catch {
    return null; // a workflow whose files are gone: its folders still name the runs
  }
  return new Map(
    runRepeats(exp).map(({ label, seed, runIndex }) => [
      label,
      { label, seed, agents, markers: scheduleEntries(exp.runs[runIndex].live) },
    ]),
  );
}

/** Every run of a train --out folder as one event file under TBDIR/<run>/, carrying its card. */
function exportTensorboard(argv: readonly string[]): void {
  const { values, positionals } = options(argv, ['out']);
  if (positionals.length !== 1 || !values.out)
    throw new UsageError('usage: npm run lab -- export tensorboard <run DIR> --out TBDIR');
  const [dir] = positionals;
  const metricsPath = join(dir, 'metrics.jsonl');
  if (!existsSync(metricsPath))
    throw new UsageError(`${dir} has no metrics.jsonl (expected a train --out folder)`);
  // Wall times count from when the session folder was made (its config.json); its task names the
  // series in today's role names (plan's old solver/coder keys are its planner/executor).
  const configPath = join(dir, 'config.json');
  const exp = existsSync(configPath) ? folderConfig(configPath) : undefined;
  const cards = exp ? runCards(exp) : null;
  if (!cards)
    warn(
      `${existsSync(configPath) ? `${configPath} cannot be read` : `${dir} has no config.json`}: the event files name no run; keep each in its folder`,
    );
  const byRun = new Map<string, StepMetrics[]>();
  for (const { run, metrics } of readMetrics(metricsPath, warn, exp?.task)) {
    if (!byRun.has(run)) byRun.set(run, []);
    byRun.get(run)!.push(metrics);
  }
  const wallStart = (existsSync(configPath) ? statSync(configPath).mtimeMs : Date.now()) / 1000;
  for (const [label, rows] of byRun) {
    const folder = join(values.out, runFolder(label));
    const card = cards?.get(label);
    const file = writeEventFile(rows, wallStart, card && runCardText(card));
    writeAtomic(join(folder, eventFileName(wallStart)), file);
    console.log(`${label}: ${rows.length} steps → ${folder}`);
  }
  console.log(`view with: tensorboard --logdir ${values.out}`);
}

/** A session folder's experiment, or undefined where it cannot be read (the export needs only the metrics). */
function folderConfig(configPath: string): Experiment | undefined {
  try {
    return loadConfig(configPath);
  } catch {
    return undefined;
  }
}

/** The experiment's runs as Dr. MAS launch scripts, wg_ids.json and README.md under --out. */
function exportDrmasDir(argv: readonly string[]): void {
  const { values, positionals } = options(argv, ['config', 'models', 'out']);
  if (positionals.length > 0 || !values.config || !values.out) {
    throw new UsageError(
      'usage: npm run lab -- export drmas --config <file | URL | hash> [--models id,…] --out DIR',
    );
  }
  const exp = loadConfig(values.config);
  const models = values.models ? values.models.split(',').filter(Boolean) : [DEFAULT_DRMAS_MODEL];
  let out;
  try {
    out = exportDrmas(exp, models);
  } catch (e) {
    // A refusal names the field, as a bad config does: the same exit status.
    if (e instanceof ExportRefused)
      throw new ConfigError('Dr. MAS cannot run this experiment', [{ path: e.field, message: e.reason }]);
    throw e;
  }
  for (const [name, text] of Object.entries(out.files)) writeAtomic(join(values.out, name), text);
  for (const name of out.scripts) {
    try {
      chmodSync(join(values.out, name), 0o755);
    } catch (e) {
      throw fsError(`make ${join(values.out, name)} executable`, e);
    }
  }
  writeAtomic(
    join(values.out, 'README.md'),
    drmasReadme(exp, out, models, encodeExperiment(exp) || 'the default experiment'),
  );
  for (const d of out.dropped) console.error(`not carried over: ${d}`);
  console.log(`wrote ${values.out}/: ${[...out.scripts, 'wg_ids.json', 'README.md'].join(', ')}`);
}

/** The given files, and every event file and CSV under the given folders, named from the folder picked. */
function collect(inputs: readonly string[]): ImportFile[] {
  const files: ImportFile[] = [];
  const add = (path: string, name: string) =>
    files.push({ path: name.split(sep).join('/'), bytes: readFileSync(path) });
  for (const input of inputs) {
    if (!existsSync(input)) throw new UsageError(`${input}: no such file or folder`);
    if (statSync(input).isFile()) {
      add(input, join(basename(dirname(resolve(input))), basename(input)));
      continue;
    }
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      )) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (readInFolder(entry.name)) add(path, join(basename(resolve(input)), relative(input, path)));
      }
    };
    walk(input);
  }
  return files;
}

function readWgMap(path: string): WgMap {
  let map: unknown;
  try {
    map = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--wg-map ${path}: ${(e as Error).message}`);
  }
  const ok =
    typeof map === 'object' &&
    map !== null &&
    Object.values(map).every((v) => Array.isArray(v) && v.every((a) => typeof a === 'string'));
  if (!ok)
    throw new UsageError(
      `--wg-map ${path}: expected {"<wg_id>": ["<agent>", …], …} as lab export drmas writes it`,
    );
  return map as WgMap;
}

/** JSON has no NaN: a gap becomes null, as in metrics.jsonl. */
const jsonLine = (value: object) => JSON.stringify(value, nanAsNull);

/** Cluster runs (event files, W&B CSVs) as a session folder: metrics.jsonl and import.json. */
function importRuns(argv: readonly string[]): number {
  const { values, positionals } = options(argv, ['out', 'wg-map'], ['force']);
  if (positionals.length === 0 || !values.out)
    throw new UsageError(
      'usage: npm run lab -- import <files or folders…> --out DIR [--force] [--wg-map wg_ids.json]',
    );
  const files = collect(positionals);
  const result = importFiles(files, values['wg-map'] ? readWgMap(values['wg-map']) : undefined);
  for (const r of result.refused) console.error(`${r.path}: refused: ${r.reason}`);
  if (result.runs.length === 0) {
    console.error(`error: nothing to import from ${positionals.join(', ')} (no event files or CSVs read)`);
    return 2;
  }
  // As train --out: a folder holding a run (trained or imported) is never written over.
  const moved = prepareNewSessionDir(values.out, values.force ?? false);
  if (moved) console.error(`--force: the run that was in ${values.out} is now in ${moved}`);
  const lines = result.runs.flatMap((run) =>
    run.rows.map((row) => jsonLine({ run: run.label, ...row }) + '\n'),
  );
  writeAtomic(join(values.out, 'metrics.jsonl'), lines.join(''));
  const summary = result.runs.map(({ rows, ...run }) => ({ ...run, steps: rows.length }));
  writeAtomic(
    join(values.out, 'import.json'),
    JSON.stringify({ runs: summary, refused: result.refused }, null, 2) + '\n',
  );
  for (const run of result.runs) {
    const other = Object.values(run.keys).filter((k) => k.startsWith('other/')).length;
    const damage =
      run.skipped || run.truncatedBytes
        ? `; damaged: ${run.skipped} records skipped, ${run.truncatedBytes} bytes of a cut-off tail`
        : '';
    console.log(
      `${run.label}: ${run.rows.length} steps from ${run.sources.length} file(s), ${run.records} records${damage}`,
    );
    console.log(
      `  agents: ${run.agents.join(', ') || '—'}; ${Object.keys(run.keys).length - other} series mapped, ${other} kept under other/`,
    );
    for (const wg of run.inferred) console.log(`  inferred: ${wg} → ${run.wgAgents[wg].join(', ')}`);
  }
  console.log(`wrote ${values.out}/metrics.jsonl, import.json`);
  return 0;
}

/** What import.json says of one run (as importRuns writes it; older folders lack some fields). */
export type ImportSummary = Pick<ImportedRun, 'label' | 'agents'> &
  Partial<Pick<ImportedRun, 'group' | 'seed' | 'keys' | 'markers'>>;

/** The runs of a `lab import` folder's import.json; null when DIR holds none. */
export function readImportJson(dir: string): ImportSummary[] | null {
  const path = join(dir, 'import.json');
  if (!existsSync(path)) return null;
  try {
    const runs = (JSON.parse(readFileSync(path, 'utf8')) as { runs: ImportSummary[] }).runs;
    if (!Array.isArray(runs) || !runs.every((r) => typeof r.label === 'string' && Array.isArray(r.agents)))
      throw new Error('no runs list');
    return runs;
  } catch (e) {
    throw new SessionDirError(
      `${path} is not an import summary as lab import writes it: ${(e as Error).message}`,
    );
  }
}

/**
 * A `lab import` folder's runs summarized as `lab report` prints them (null when DIR holds no
 * import.json): each run's agents and seed from import.json, its eval K from its own keys (the
 * largest avg@K it has; the cluster's, not the lab's default). `seeded`: some group has ≥ 2 seeds.
 */
export function readImportSummaries(
  dir: string,
  rewardTail = REWARD_TAIL,
): { summaries: RunSummary[]; seeded: boolean } | null {
  const runs = readImportJson(dir);
  if (!runs) return null;
  const rows = readMetrics(join(dir, 'metrics.jsonl'), warn);
  const summaries = runs.map((run) => {
    const history = rows.filter((r) => r.run === run.label).map((r) => r.metrics);
    const k = evalKsOf(Object.values(run.keys ?? {})).at(-1) ?? NaN;
    return summarize(run.label, run.seed ?? 0, history, run.agents, k, rewardTail);
  });
  const perGroup = new Map<string, number>();
  for (const r of runs) perGroup.set(r.group ?? r.label, (perGroup.get(r.group ?? r.label) ?? 0) + 1);
  return { summaries, seeded: [...perGroup.values()].some((n) => n > 1) };
}

/** `lab export …` and `lab import …`; returns the exit status. */
export function runInterop(argv: readonly string[]): number {
  const [command, what, ...rest] = argv;
  if (command === 'import') return importRuns(argv.slice(1));
  if (command === 'export' && what === 'tensorboard') {
    exportTensorboard(rest);
    return 0;
  }
  if (command === 'export' && what === 'drmas') {
    exportDrmasDir(rest);
    return 0;
  }
  const commands = ['export tensorboard', 'export drmas', 'import'];
  const typed = argv.slice(0, 2).join(' ');
  throw new UsageError(
    `${unknownName(`unknown command "${typed}"`, typed, commands)} (npm run lab -- help ${command})`,
  );
}
