/**
 * `npm run lab -- train …`: the experiment's runs headless, in lockstep on one backend, writing
 * config.json, metrics.jsonl (one line per run per step) and summary.json, with a progress bar per
 * run and a summary table at the end. See `npm run lab -- help`.
 */
import os from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { DEFAULT_EXPERIMENT } from '../core/config';
import { M } from '../core/metrics';
import { PRESETS, presetById } from '../core/presets';
import { encodeExperiment } from '../core/url';
import { timedPreset } from '../runtime/auto-choice';
import { describeReport, selectBackend } from '../runtime/backend';
import { nodePlatform } from '../runtime/platform-node';
import { enableRelaxedSimd } from '../runtime/relaxed-simd-node';
import { nodeEnvPool } from '../runtime/env-pool-node';
import { runExperiment, runLabels } from '../train/experiment';
import { getTask } from '../tasks/registry';
import type { RunSummary } from '../rl/summary';
import { HELP, UsageError, parseCli } from './args';
import type { TrainArgs } from './args';
import { loadShippedBase } from './base-models';
import { readImportSummaries, runInterop } from './interop';
import { ConfigError, loadConfig } from './load-config';
import { checkRunDir, loadResume, lockRunDir, MetricsLog, prepareNewRunDir, readMetrics, RunDirError, statePath, warn, writeAtomic, writeRunState } from './run-dir';
import { compareSeeds, comparisonTable } from '../rl/findings';
import { sharedEvalK, summarize, trainedNothing } from '../rl/summary';
import { modelSlots } from '../train/slots';
import { estimateMemory, gb, memoryRefusal } from '../runtime/memory';
import type { Experiment } from '../core/config';
import { Progress } from './progress';

// Quiet tfjs's console banner ("looks like you are running TensorFlow.js in Node.js"): prod mode
// silences its warnings; the CLI reports its own.
tf.enableProdMode();

const fmt = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : '—');

export function summaryTable(summaries: readonly RunSummary[]): string {
  const agents = [...new Set(summaries.flatMap((s) => Object.keys(s.agents)))];
  const evalK = sharedEvalK(summaries);
  const head = ['run', `avg@${evalK}`, `pass@${evalK}`, 'reward', 'skipped', ...agents.map((a) => `${a} |g| med/max/spikes`)];
  const rows = summaries.map((s) => [
    s.run,
    fmt(s.evalAvg),
    fmt(s.evalPass),
    fmt(s.finalReward),
    String(s.skippedUpdates),
    ...agents.map((a) => {
      const g = s.agents[a];
      return g ? `${fmt(g.gradNormMedian)}/${fmt(g.gradNormMax)}/${g.spikes}` : '—';
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Trains; the exit status: 1 when a run never trained (every update skipped). */
async function train(args: TrainArgs): Promise<number> {
  const out = args.resume ?? args.out ?? join('runs', new Date().toISOString().replace(/[:T]/g, '-').slice(0, 19));
  if (args.resume) checkRunDir(args.resume);
  const configPath = args.resume ? join(args.resume, 'config.json') : args.config;
  const given = configPath ? loadConfig(configPath) : args.preset ? presetConfig(args.preset) : DEFAULT_EXPERIMENT;
  // config.json records the run's own step count: a resume keeps it unless --steps raises it.
  if (args.resume && args.steps !== null && args.steps < given.steps) {
    throw new UsageError(`${out} was started with --steps ${given.steps}; --resume may raise it, not lower it`);
  }
  const exp: Experiment = { ...given, steps: args.steps ?? given.steps };
  const { steps } = exp;
  // Refused up front rather than a minute in with an opaque wasm error.
  const memory = estimateMemory(exp);
  const refused = memoryRefusal(exp, args.backend, memory);
  if (refused) throw new UsageError(refused);
  console.error(`memory: about ${gb(memory.bytes)} at most (estimate)`);

  // auto times candidates only when there is a choice (wasm alone unless a Dawn shim adds webgpu); no cache in Node.
  const report = await selectBackend(tf, args.backend, nodePlatform, { preset: timedPreset(exp) });
  if (!report.backend) throw new UsageError(`--backend ${args.backend}: ${describeReport(report)}`);
  console.error(`backend: ${describeReport(report)}`);
  const { checkpoints, notes } = await loadShippedBase(exp, 'models', args.init);
  for (const [id, note] of Object.entries(notes)) console.error(`model ${id}: ${note}`);

  if (!args.resume) {
    const moved = prepareNewRunDir(out, args.force);
    if (moved) console.error(`--force: the run that was in ${out} is now in ${moved}`);
  }
  const unlock = lockRunDir(out);
  let unlisten = () => {};
  try {
    const resumed = args.resume ? loadResume(args.resume, exp) : null;
    if (resumed) for (const note of resumed.notes) console.error(`resume ${note}`);
    if (!resumed || steps !== given.steps) writeAtomic(join(out, 'config.json'), JSON.stringify(exp, null, 2) + '\n');
    const metrics = new MetricsLog(join(out, 'metrics.jsonl'), resumed?.held);
    const labels = runLabels(exp).map((r) => r.label);
    const progress = args.quiet ? null : new Progress(labels, steps);
    for (const [label, r] of resumed?.resume ?? []) progress?.update(label, r.state.manifest.step, 'resumed');

    const stop = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      if (stop.signal.aborted) process.exit(128 + os.constants.signals[signal]); // asked twice: now, keeping what is on disk
      stop.abort(signal);
      const saving = args.checkpointEvery > 0 ? "and saving each run's state" : '(no states: --checkpoint-every 0)';
      console.error(`\n${signal}: stopping after the step in flight ${saving}; ${signal} again quits at once`);
    };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    unlisten = () => process.off('SIGINT', onSignal).off('SIGTERM', onSignal);

    const summaries = await runExperiment(exp, {
      stop: stop.signal,
      steps,
      base: checkpoints,
      env: () => nodeEnvPool(exp.rollout.envTimeoutMs),
      ...(resumed ? { resume: resumed.resume } : {}),
      checkpointEvery: args.checkpointEvery,
      onCheckpoint: (run, state) => {
        metrics.sync(); // the lines up to a state are on disk before the state is
        writeRunState(statePath(out, labels.indexOf(run.label), run.label), state);
      },
      onStep: (run, r) => {
        // Appended as it comes: a crash or Ctrl-C loses nothing already recorded.
        metrics.append(JSON.stringify({ run: run.label, ...finiteOrNull(r.metrics) }), { step: r.step, run: labels.indexOf(run.label) });
        progress?.update(
          run.label,
          r.step + 1,
          `reward ${fmt(r.metrics[M.rewardMean])}  success ${fmt(r.metrics[M.successRate])}  ${fmt(r.metrics[M.rolloutMs] + r.metrics[M.updateMs], 0)} ms/step`,
        );
      },
    });
    metrics.close();
    if (stop.signal.aborted) {
      const at = summaries.map((s) => s.steps);
      const where = Math.min(...at) === Math.max(...at) ? `step ${at[0]}` : `steps ${Math.min(...at)}–${Math.max(...at)}`;
      const next = args.checkpointEvery > 0 ? `each run's state is saved: npm run lab -- train --resume ${out} goes on from there` : `no states were saved (--checkpoint-every 0): --resume ${out} starts over`;
      console.error(`stopped at ${where} of ${steps}; ${out}/metrics.jsonl holds every step run; ${next}`);
      return 128 + os.constants.signals[stop.signal.reason as NodeJS.Signals];
    }
    writeAtomic(join(out, 'summary.json'), JSON.stringify(summaries.map(finiteOrNull), null, 2) + '\n');
    printTables(summaries, exp.seeds > 1);
    console.log(`\nwrote ${out}/config.json, metrics.jsonl, summary.json`);
    // A run whose every update was skipped recorded lines but never trained: not a success.
    const dead = summaries.filter((s) => trainedNothing(s, modelSlots(exp).length));
    for (const s of dead) console.error(`warning: ${s.run}: all ${s.skippedUpdates} model updates were skipped (non-finite loss, gradient or weights); it never trained`);
    return dead.length ? 1 : 0;
  } finally {
    unlisten();
    unlock();
  }
}

function printTables(summaries: readonly RunSummary[], seeds: boolean): void {
  console.log(summaryTable(summaries));
  if (!seeds) return;
  const c = compareSeeds(summaries);
  console.log(`\nover ${c.seeds} seeds (spike frac: share of steps above 3× the running median; verdicts from the paired 95 % CI)\n${comparisonTable(c)}`);
}

function presetConfig(id: string): Experiment {
  const p = presetById(id);
  if (!p) throw new UsageError(`--preset: no preset "${id}"; presets: ${PRESETS.map((q) => q.id).join(', ')}`);
  return p.config;
}

/** `lab presets [--json]`: the page's named experiments, from the same list. */
function listPresets(json: boolean): void {
  const rows = PRESETS.map((p) => ({ id: p.id, title: p.title, task: p.config.task, hash: encodeExperiment(p.config) }));
  if (json) {
    console.log(JSON.stringify(PRESETS.map((p, i) => ({ ...rows[i], blurb: p.blurb, config: p.config })), null, 2));
    return;
  }
  const w = (k: 'id' | 'title' | 'task') => Math.max(k.length, ...rows.map((r) => r[k].length));
  for (const r of [{ id: 'id', title: 'title', task: 'task', hash: 'hash' }, ...rows]) {
    console.log(`${r.id.padEnd(w('id'))}  ${r.title.padEnd(w('title'))}  ${r.task.padEnd(w('task'))}  ${r.hash}`);
  }
}

/**
 * `lab report DIR [--tail N]`: the end-of-run tables again, from what the folder recorded; for a `lab import`
 * folder, from its import.json (runs, seeds, agents) and metrics.jsonl.
 */
function report(dir: string, tail: number): void {
  const imported = readImportSummaries(dir, tail);
  if (imported) {
    const { summaries, seeded } = imported;
    console.log(`${dir}: imported, ${Math.min(...summaries.map((s) => s.steps))}–${Math.max(...summaries.map((s) => s.steps))} steps per run`);
    printTables(summaries, seeded);
    return;
  }
  checkRunDir(dir);
  const exp = loadConfig(join(dir, 'config.json'));
  const rows = readMetrics(join(dir, 'metrics.jsonl'), warn);
  const agents = getTask(exp.task).agents.map((a) => a.role);
  const summaries = runLabels(exp).map(({ label, seed }) =>
    summarize(label, seed, rows.filter((r) => r.run === label).map((r) => r.metrics), agents, exp.eval.k, tail),
  );
  console.log(`${dir}: ${Math.min(...summaries.map((s) => s.steps))}–${Math.max(...summaries.map((s) => s.steps))} steps recorded per run`);
  printTables(summaries, exp.seeds > 1);
}

/** JSON has no NaN or Infinity: they become null (a gap, as in the charts). */
function finiteOrNull<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)));
}

async function main(argv: string[]): Promise<number> {
  try {
    const args = parseCli(argv);
    if (args.command === 'help') {
      console.log(HELP);
      return 0;
    }
    if (args.command === 'interop') return runInterop(args.argv);
    if (args.command === 'presets') listPresets(args.json);
    else if (args.command === 'report') report(args.dir, args.tail);
    else return await train(args);
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      console.error(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof RunDirError) {
      console.error(`error: ${e.message}`);
      return 1;
    }
    console.error(`error: ${(e as Error).stack ?? e}`);
    return 1;
  }
}

enableRelaxedSimd(); // before any model runs: the fused kernels then multiply-add in one instruction
process.exitCode = await main(process.argv.slice(2));
