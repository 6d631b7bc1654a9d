/**
 * `lab sweep`, `lab merge` and `lab report` on a sweep folder: the files and threads around the
 * pure sweep logic of src/rl/sweep.ts. Each cell is trained by a worker thread through the same
 * trainFolder as `lab train`, into an ordinary train folder under DIR/cells/.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EXPERIMENT } from '../core/config';
import { textTable } from '../report/findings';
import { REWARD_TAIL } from '../report/summary';
import {
  joinDials,
  mergeShards,
  planCells,
  readSweepFile,
  shardCells,
  sweepDifference,
  sweepFile,
} from '../rl/sweep';
import { loadSweep, sweepMapCells } from '../report/sweep-map';
import { taskOf } from '../tasks/registry';
import { SweepRefused } from '../rl/sweep';
import type { Cell, SweepFile } from '../rl/sweep';
import { tsxThread } from '../workers/env-pool-node';
import { UsageError } from './args';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../backends/backend';
import { nodePlatform } from '../backends/platform-node';
import { loadSweepConfig } from './load-config';
import { dataBytesOf, withWorkflow, workflowBaseFiles } from './workflow';
import { Progress } from './progress';
import { fsError, lockSessionDir, SessionDirError, warn, writeAtomic } from './session-dir';
import type { MergeArgs, SweepArgs } from './sweep-args';
import type { FromSweepWorker, ToSweepWorker, WorkerSettings } from './sweep-worker';
import { checkMemory, onStopSignals } from './train';

const refusedAsUsage = <T>(f: () => T): T => {
  try {
    return f();
  } catch (e) {
    throw e instanceof SweepRefused ? new UsageError(e.message) : e;
  }
};

/** DIR/sweep.json read and checked; refusals name the file. */
function readSweepDir(dir: string): SweepFile {
  const path = join(dir, 'sweep.json');
  if (!existsSync(path))
    throw new SessionDirError(`${dir} has no sweep.json: not a folder written by lab sweep`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new SessionDirError(`${path}: not valid JSON: ${(e as Error).message}`);
  }
  return refusedAsUsage(() => readSweepFile(json, path));
}

const isDone = (dir: string) => existsSync(join(dir, 'summary.json'));

/** Runs (or goes on with) this shard's cells; the exit status. */
export async function sweep(args: SweepArgs): Promise<number> {
  const given = args.config ? loadSweepConfig(args.config) : { config: DEFAULT_EXPERIMENT, dials: [] };
  const named = args.workflow ? withWorkflow(given.config, args.workflow) : given.config;
  const config = { ...named, steps: args.steps };
  const grid = refusedAsUsage(() => joinDials(given.dials, args.grid));
  const cells = shardCells(
    refusedAsUsage(() => planCells(config, grid)),
    args.shard,
  );
  for (const c of cells) {
    try {
      checkMemory(c.config, args.backend);
    } catch (e) {
      throw new UsageError(`${c.dir}: ${(e as Error).message}`);
    }
  }
  const file = sweepFile(config, grid, args.shard, cells);
  prepareSweepDir(args.out, file);
  const unlock = lockSessionDir(args.out);
  const stop = new AbortController();
  const unlisten = onStopSignals(stop, args.checkpointEvery > 0);
  try {
    writeAtomic(join(args.out, 'sweep.json'), JSON.stringify(file, null, 2) + '\n');
    const name = (c: Cell) => c.dir.replace(/^cells\//, '');
    const progress = args.quiet ? null : new Progress(cells.map(name), args.steps);
    const todo = cells.filter((c) => !isDone(join(args.out, c.dir)));
    for (const c of cells) if (!todo.includes(c)) progress?.update(name(c), args.steps, 'done earlier, kept');
    console.error(
      `sweep: ${cells.length} cells${args.shard ? ` (shard ${args.shard.index}/${args.shard.count})` : ''}, ${cells.length - todo.length} done earlier; ${Math.min(args.workers, todo.length)} at a time`,
    );
    const note = noter();
    // A workflow's base models are prepared once per set the cells need (a dial of the workflow's
    // agents needs one per value), here, before the cells' threads look for them (on wasm, as lab
    // pretrain: tfjs's own default in Node is its plain-JavaScript cpu backend).
    if (todo[0]?.config.workflow) await selectBackend(tf, 'wasm', nodePlatform);
    for (const c of todo) await workflowBaseFiles(c.config, (line) => note('sweep', line));
    const outcome = await runCells(todo, args, stop, (c, m) => {
      if (m.type === 'progress') progress?.update(name(c), m.step, m.info);
      if (m.type === 'note') note(name(c), m.line);
    });
    if (stop.signal.aborted) {
      console.error(
        `stopped: ${cells.filter((c) => isDone(join(args.out, c.dir))).length} of ${cells.length} cells done, each cell in flight saved where it stands; the same command goes on from there`,
      );
      return 128 + os.constants.signals[stop.signal.reason as NodeJS.Signals];
    }
    for (const [c, why] of outcome.failed) console.error(`error: ${c.dir}: ${why}`);
    for (const [c, runs] of outcome.dead)
      warn(`${c.dir}: ${runs.join(', ')}: every model update was skipped (non-finite values); never trained`);
    console.log(sweepReport(args.out));
    console.log(`\nwrote ${args.out}/sweep.json and ${cells.length} cell folders`);
    return outcome.failed.size || outcome.dead.size ? 1 : 0;
  } finally {
    unlisten();
    unlock();
  }
}

/** A sweep's note lines: the backend and model lines are the same for every cell, said once; the rest per cell. */
function noter(): (cell: string, line: string) => void {
  const said = new Set<string>();
  return (cell, line) => {
    const common = /^(backend:|model )/.test(line);
    if (common && said.has(line)) return;
    said.add(line);
    console.error(common ? line : `${cell}: ${line}`);
  };
}

/** A new folder, or one holding this very sweep (then its cells are gone on with). */
function prepareSweepDir(out: string, file: SweepFile): void {
  if (existsSync(join(out, 'sweep.json'))) {
    const held = readSweepDir(out);
    const diff = sweepDifference(held, file);
    if (JSON.stringify(held.shard) !== JSON.stringify(file.shard))
      diff.push(`shard ${held.shard ? `${held.shard.index}/${held.shard.count}` : 'none'}`);
    if (diff.length)
      throw new SessionDirError(
        `${out} holds another sweep (it differs in ${diff.join(', ')}): the command that started it goes on with it; or choose another --out`,
      );
    return;
  }
  // A lone .lock: a sweep killed before it wrote sweep.json.
  if (existsSync(out) && readdirSync(out).some((f) => f !== '.lock'))
    throw new SessionDirError(`${out} is not empty and holds no sweep.json; choose another --out`);
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw fsError(`create the output folder ${out}`, e);
  }
}

/** The cells trained by `args.workers` threads, each taking the next cell when done. */
async function runCells(
  todo: readonly Cell[],
  args: SweepArgs,
  stop: AbortController,
  onMessage: (c: Cell, m: FromSweepWorker) => void,
): Promise<{ failed: Map<Cell, string>; dead: Map<Cell, string[]> }> {
  const failed = new Map<Cell, string>();
  const dead = new Map<Cell, string[]>();
  const queue = [...todo];
  const settings: WorkerSettings = {
    backend: args.backend,
    checkpointEvery: args.checkpointEvery,
    dataset: todo[0] ? dataBytesOf(todo[0].config) : null,
  };
  const thread = () =>
    new Promise<void>((resolve) => {
      const worker = tsxThread(new URL('./sweep-worker.ts', import.meta.url), { workerData: settings });
      let current: Cell | undefined;
      const onStop = () => worker.postMessage({ type: 'stop', signal: String(stop.signal.reason) });
      stop.signal.addEventListener('abort', onStop);
      const next = () => {
        current = stop.signal.aborted ? undefined : queue.shift();
        if (!current) return void worker.terminate();
        const dir = join(args.out, current.dir);
        const m: ToSweepWorker = {
          type: 'cell',
          dir,
          config: current.config,
          resume: existsSync(join(dir, 'config.json')),
        };
        worker.postMessage(m);
      };
      worker.on('message', (m: FromSweepWorker) => {
        if (!current) return;
        onMessage(current, m);
        if (m.type === 'failed') failed.set(current, m.message);
        if (m.type === 'finished' && m.dead.length) dead.set(current, m.dead);
        if (m.type === 'finished' || m.type === 'failed') next();
      });
      worker.on('error', (e) => current && failed.set(current, e.message));
      worker.on('exit', () => {
        stop.signal.removeEventListener('abort', onStop);
        resolve();
      });
      next();
    });
  await Promise.all(Array.from({ length: Math.min(args.workers, todo.length) }, thread));
  return { failed, dead };
}

/**
 * `lab report DIR` on a sweep folder: the map, a row per figure and cell. The folder is read as
 * the page's Map reads one (loadSweep), so the Map's CSV is this table.
 */
export function sweepReport(dir: string, tail = REWARD_TAIL): string {
  readSweepDir(dir); // its refusals, as merge and sweep give them
  const read = (path: string) => {
    const at = join(dir, path);
    if (!existsSync(at)) return undefined;
    try {
      return readFileSync(at, 'utf8');
    } catch (e) {
      throw fsError(`read ${at}`, e);
    }
  };
  const { file, cells } = refusedAsUsage(() =>
    loadSweep(dir, read, (exp) => taskOf(exp).agents.map((a) => a.role), tail, warn),
  );
  return (
    `${dir}: sweep of ${file.cells.length} cells × ${file.config.runs.length} runs × ${file.config.seeds} seeds, ${file.config.steps} steps; ` +
    `each later run's paired difference from ${file.config.runs[0]?.label} (same seed), mean ± 95 % CI over seeds, and its verdict, per figure\n` +
    textTable(sweepMapCells(file.grid, cells))
  );
}

/** `lab merge`: shards joined into one sweep folder, each cell folder copied. */
export function merge(args: MergeArgs): number {
  const shards = args.shards.map((name) => ({ name, sweep: readSweepDir(name) }));
  const { sweep: whole, from, missing } = refusedAsUsage(() => mergeShards(shards));
  if (existsSync(args.out) && readdirSync(args.out).length)
    throw new SessionDirError(`${args.out} is not empty; merge writes a new sweep folder`);
  const absent = [...missing];
  for (const [dir, shard] of from) {
    if (!existsSync(join(shard, dir))) {
      absent.push(dir);
      continue;
    }
    try {
      cpSync(join(shard, dir), join(args.out, dir), {
        recursive: true,
        filter: (src) => !src.endsWith('.lock') && !src.endsWith('.tmp'),
      });
    } catch (e) {
      throw fsError(`copy ${join(shard, dir)} to ${join(args.out, dir)}`, e);
    }
  }
  writeAtomic(join(args.out, 'sweep.json'), JSON.stringify(whole, null, 2) + '\n');
  const unfinished = whole.cells
    .map((c) => c.dir)
    .filter((d) => !absent.includes(d) && !isDone(join(args.out, d)));
  if (absent.length)
    warn(`no shard ran ${absent.join(', ')}; the sweep command with --out ${args.out} runs them`);
  if (unfinished.length)
    warn(
      `${unfinished.join(', ')} did not finish; the sweep command with --out ${args.out} goes on with them`,
    );
  console.log(
    `merged ${shards.length} shards into ${args.out}: ${whole.cells.length - absent.length - unfinished.length} of ${whole.cells.length} cells finished`,
  );
  return 0;
}
