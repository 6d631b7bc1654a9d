/**
 * `npm run lab -- train …`: the experiment's runs headless, in lockstep on one backend, writing
 * config.json, metrics.jsonl (one line per run per step) and summary.json, with a progress bar per
 * run and a summary table at the end. See `npm run lab -- help`.
 */
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { DEFAULT_EXPERIMENT } from '../core/config';
import type { Experiment } from '../core/config';
import { PRESETS, presetById } from '../core/presets';
import { encodeExperiment } from '../core/url';
import { enableRelaxedSimd, simdVariableError } from '../backends/relaxed-simd-node';
import { runLabels } from '../train/experiment';
import type { RunSummary } from '../report/summary';
import { compareSeeds, comparisonTable, formatFixed } from '../report/findings';
import { sharedEvalK, stepSpan, trainedNothing } from '../report/summary';
import { modelSlots } from '../sizing/slots';
import { UsageError, parseCli, unknownName } from './args';
import { helpFor } from './help';
import type { PretrainArgs, TrainArgs } from './args';
import { selectBackend } from '../backends/backend';
import { nodePlatform } from '../backends/platform-node';
import { initFiles, pretrainWorkflow, withWorkflow } from './workflow';
import { bundle } from './bundle';
import { readImportSummaries, runInterop } from './interop';
import { ConfigError, loadConfig } from './load-config';
import { checkSessionDir, SessionDirError } from './session-dir';
import { Progress } from './progress';
import { evalNote } from './eval-note';
import { tableLegend } from './table-legend';
import { checkMemory, folderSummaries, onStopSignals, trainFolder } from './train';
import { merge, sweep, sweepReport } from './sweep';
import { MERGE_HELP, parseMerge, parseSweep, SWEEP_HELP } from './sweep-args';

// Quiet tfjs's console banner ("looks like you are running TensorFlow.js in Node.js"): prod mode
// silences its warnings; the CLI reports its own.
tf.enableProdMode();

function summaryTable(summaries: readonly RunSummary[]): string {
  const agents = [...new Set(summaries.flatMap((s) => Object.keys(s.agents)))];
  const evalK = sharedEvalK(summaries);
  const head = [
    'run',
    `avg@${evalK}`,
    `pass@${evalK}`,
    'reward',
    'skipped',
    ...agents.map((a) => `${a} |g| med/max/spikes`),
  ];
  const rows = summaries.map((s) => [
    s.run,
    formatFixed(s.evalAvg),
    formatFixed(s.evalPass),
    formatFixed(s.finalReward),
    String(s.skippedUpdates),
    ...agents.map((a) => {
      const g = s.agents[a];
      return g ? `${formatFixed(g.gradNormMedian)}/${formatFixed(g.gradNormMax)}/${g.spikes}` : '—';
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Trains; the exit status: 1 when a run never trained (every update skipped). */
async function train(args: TrainArgs): Promise<number> {
  const out =
    args.resume ?? args.out ?? join('runs', new Date().toISOString().replace(/[:T]/g, '-').slice(0, 19));
  if (args.resume) checkSessionDir(args.resume);
  const configPath = args.resume ? join(args.resume, 'config.json') : args.config;
  const named = configPath
    ? loadConfig(configPath)
    : args.preset
      ? presetConfig(args.preset)
      : DEFAULT_EXPERIMENT;
  const given = args.workflow ? withWorkflow(named, args.workflow) : named;
  // config.json records the run's own step count: a resume keeps it unless --steps raises it.
  if (args.resume && args.steps !== null && args.steps < given.steps) {
    throw new UsageError(
      `${out} was started with --steps ${given.steps}; --resume may raise it, not lower it`,
    );
  }
  const exp: Experiment = { ...given, steps: args.steps ?? given.steps };
  const { steps } = exp;
  console.error(checkMemory(exp, args.backend));

  const labels = runLabels(exp).map((r) => r.label);
  const progress = args.quiet ? null : new Progress(labels, steps);
  const stop = new AbortController();
  const unlisten = onStopSignals(stop, args.checkpointEvery > 0);
  try {
    const { summaries, stopped } = await trainFolder(exp, out, {
      backend: args.backend,
      init: initFiles(args.init),
      checkpointEvery: args.checkpointEvery,
      resume: args.resume !== null,
      givenSteps: given.steps,
      force: args.force,
      stop: stop.signal,
      note: (line) => console.error(line),
      progress: progress ? (label, step, info) => progress.update(label, step, info) : undefined,
    });
    if (stopped) {
      const at = summaries.map((s) => s.steps);
      const where =
        Math.min(...at) === Math.max(...at) ? `step ${at[0]}` : `steps ${Math.min(...at)}–${Math.max(...at)}`;
      const next =
        args.checkpointEvery > 0
          ? `each run's state is saved: npm run lab -- train --resume ${out} goes on from there`
          : `no states were saved (--checkpoint-every 0): --resume ${out} starts over`;
      console.error(`stopped at ${where} of ${steps}; ${out}/metrics.jsonl holds every step run; ${next}`);
      return 128 + os.constants.signals[stop.signal.reason as NodeJS.Signals];
    }
    printTables(summaries, exp.seeds > 1, exp.eval.every);
    const states = args.checkpointEvery > 0 ? ', checkpoints/' : '';
    console.log(`\nwrote ${out}/config.json, metrics.jsonl, summary.json, machine.json, rollouts/${states}`);
    // A run whose every update was skipped recorded lines but never trained: not a success.
    const dead = summaries.filter((s) => trainedNothing(s, modelSlots(exp).length));
    for (const s of dead)
      console.error(
        `warning: ${s.run}: all ${s.skippedUpdates} model updates were skipped (non-finite loss, gradient or weights); it never trained`,
      );
    return dead.length ? 1 : 0;
  } finally {
    unlisten();
  }
}

/** The end-of-run tables; `evalEvery` is the experiment's eval.every (undefined for an import). */
function printTables(summaries: readonly RunSummary[], seeds: boolean, evalEvery: number | undefined): void {
  console.log(summaryTable(summaries));
  // A run that never evaluated shows "—" under avg@k and pass@k: say why once, under the table.
  const note = evalNote(summaries, evalEvery);
  if (note) console.log(note);
  // What the reward, skipped and |g| columns hold, which their headers are too short to say.
  console.log(tableLegend(summaries));
  // One seed per run: say why there is no verdict, as the page's Findings does, and how to get one.
  if (!seeds && new Set(summaries.map((x) => x.run)).size >= 2) console.log(`\n${ONE_SEED}`);
  if (!seeds) return;
  const c = compareSeeds(summaries);
  console.log(
    `\nover ${c.seeds} seeds (spike frac: share of steps above 3× the running median; verdicts from the paired 95 % CI)\n${comparisonTable(c)}`,
  );
}

const ONE_SEED =
  'no verdicts: one seed per run, so a difference between two runs is one sample of each, which no ' +
  'confidence interval can tell from luck. Train with 3 or more seeds (seeds=3 in the --config link, ' +
  'or "seeds": 3 in its JSON) for each run’s mean ± 95 % CI over seeds, the paired difference from ' +
  'the first run and a verdict.';

/** `lab pretrain --workflow F --out DIR`: the workflow's base models, prepared and written. */
async function pretrain(args: PretrainArgs): Promise<number> {
  const named = args.config
    ? loadConfig(args.config)
    : args.preset
      ? presetConfig(args.preset)
      : DEFAULT_EXPERIMENT;
  const exp = withWorkflow(named, args.workflow);
  if (existsSync(args.out) && readdirSync(args.out).length > 0)
    throw new UsageError(`--out ${args.out} holds files already; give a new folder (nothing is overwritten)`);
  await selectBackend(tf, 'wasm', nodePlatform);
  await pretrainWorkflow(exp, args.out, {
    seed: args.seed,
    ...(args.target === null ? {} : { targetSuccess: args.target }),
    ...(args.maxSteps === null ? {} : { maxSteps: args.maxSteps }),
    note: (line) => console.error(line),
  });
  console.log(
    `wrote ${args.out}/manifest.json and one checkpoint per model; train from them with --workflow ${args.workflow} --init ${args.out}`,
  );
  return 0;
}

function presetConfig(id: string): Experiment {
  const p = presetById(id);
  if (!p)
    throw new UsageError(
      `${unknownName(
        `--preset: no preset "${id}"`,
        id,
        PRESETS.map((q) => q.id),
      )} (npm run lab -- presets lists them)`,
    );
  return p.config;
}

/** `lab presets [--json]`: the page's named experiments, from the same list. */
function listPresets(json: boolean): void {
  const rows = PRESETS.map((p) => ({
    id: p.id,
    title: p.title,
    task: p.config.task,
    hash: encodeExperiment(p.config),
  }));
  if (json) {
    console.log(
      JSON.stringify(
        PRESETS.map((p, i) => ({ ...rows[i], blurb: p.blurb, config: p.config })),
        null,
        2,
      ),
    );
    return;
  }
  const w = (k: 'id' | 'title' | 'task') => Math.max(k.length, ...rows.map((r) => r[k].length));
  for (const r of [{ id: 'id', title: 'title', task: 'task', hash: 'hash' }, ...rows]) {
    console.log(
      `${r.id.padEnd(w('id'))}  ${r.title.padEnd(w('title'))}  ${r.task.padEnd(w('task'))}  ${r.hash}`,
    );
  }
}

/**
 * `lab report DIR [--tail N]`: the end-of-run tables again, from what the folder recorded; for a `lab import`
 * folder, from its import.json (runs, seeds, agents) and metrics.jsonl.
 */
function report(dir: string, tail: number): void {
  if (existsSync(join(dir, 'sweep.json'))) {
    console.log(sweepReport(dir, tail));
    return;
  }
  const imported = readImportSummaries(dir, tail);
  if (imported) {
    const { summaries, seeded } = imported;
    console.log(`${dir}: imported, ${stepSpan(summaries)} steps per run`);
    printTables(summaries, seeded, undefined);
    return;
  }
  const { summaries, seeded, evalEvery } = folderSummaries(dir, tail);
  console.log(`${dir}: ${stepSpan(summaries)} steps recorded per repeat`);
  printTables(summaries, seeded, evalEvery);
}

async function main(argv: string[]): Promise<number> {
  try {
    const args = parseCli(argv);
    if (args.command === 'help') {
      console.log(helpFor(args.topic));
      return 0;
    }
    if (args.command === 'interop') return runInterop(args.argv);
    if (args.command === 'bundle') return bundle(args.argv);
    if (args.command === 'sweep') {
      const a = parseSweep(args.argv);
      if (a) return await sweep(a);
      console.log(SWEEP_HELP);
      return 0;
    }
    if (args.command === 'merge') {
      const a = parseMerge(args.argv);
      if (a) return merge(a);
      console.log(MERGE_HELP);
      return 0;
    }
    if (args.command === 'pretrain') return await pretrain(args);
    if (args.command === 'presets') listPresets(args.json);
    else if (args.command === 'report') report(args.dir, args.tail);
    else return await train(args);
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      console.error(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof SessionDirError) {
      console.error(`error: ${e.message}`);
      return 1;
    }
    console.error(`error: ${(e as Error).stack ?? e}`);
    return 1;
  }
}

const simdError = simdVariableError();
if (simdError) {
  console.error(`error: ${simdError}`);
  process.exitCode = 2;
} else {
  enableRelaxedSimd(); // before any model runs: the fused kernels then multiply-add in one instruction
  process.exitCode = await main(process.argv.slice(2));
}
