/**
 * One train folder trained: the code `lab train` and every cell of `lab sweep` run, so a sweep's
 * cells are ordinary train folders (config.json, metrics.jsonl, checkpoints/, rollouts/, summary.json),
 * resumable and locked the same way. No signal handling and no printing of tables here: the
 * caller owns the terminal and turns Ctrl-C into `stop`.
 */
import os from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type { Experiment } from '../core/config';
import type { BackendName } from '../core/config-names';
import { M } from '../core/metrics';
import { timedPreset } from '../backends/auto-choice';
import { describeReport, selectBackend } from '../backends/backend';
import { nodeEnvPool } from '../workers/env-pool-node';
import { gb, memoryVerdict } from '../sizing/memory';
import { nodePlatform } from '../backends/platform-node';
import { formatFixed, nanAsNull } from '../report/findings';
import type { RunSummary } from '../report/summary';
import { runExperiment, runLabels } from '../train/experiment';
import type { TrainStepResult } from '../train/trainer';
import { inspectBatch } from '../workers/inspect';
import { taskOf } from '../tasks/registry';
import { cellSummaries } from '../report/sweep-map';
import { loadConfig } from './load-config';
import { UsageError } from './args';
import { loadShippedBase } from './base-models';
import { ensureWorkflowData, keepDataBeside, workflowBaseFiles } from './workflow';
import { kernelsChanged, readMachines, recordMachine, thisMachine } from './machine';
import { simdFlavour } from '../model/kernels/wasm';
import {
  checkSessionDir,
  readMetrics,
  loadResume,
  warn,
  lockSessionDir,
  MetricsLog,
  prepareNewSessionDir,
  refuseHeldDir,
  rolloutsPath,
  statePath,
  writeAtomic,
  writeRunState,
} from './session-dir';

interface FolderOptions {
  backend: BackendName;
  init: readonly string[];
  checkpointEvery: number;
  /** `out` holds a run of `exp` to go on with (its config.json is rewritten only when steps changed). */
  resume: boolean;
  /** The step count config.json held before (a resume that raises --steps rewrites it). */
  givenSteps?: number;
  force: boolean;
  stop: AbortSignal;
  /** One line for the user (stderr). */
  note: (line: string) => void;
  /** A run's progress: steps done and a short status. */
  progress?: (label: string, step: number, info: string) => void;
}

/** Refused up front rather than a minute in with an opaque wasm error; the estimate otherwise. */
export function checkMemory(exp: Experiment, backend: BackendName): string {
  const memory = memoryVerdict(exp, backend);
  if (memory.error) throw memory.error;
  if (memory.refused) throw new UsageError(memory.refused);
  return `memory: about ${gb(memory.estimate.bytes)} at most (estimate)`;
}

/**
 * Trains `exp` (its `steps`) into `out`: a new folder, or with `resume` the runs recorded there
 * gone on with. Returns the summaries; `stopped` when `stop` was aborted before the end (then no
 * summary.json is written and each run's state is saved where it stands).
 */
export async function trainFolder(
  exp: Experiment,
  out: string,
  o: FolderOptions,
): Promise<{ summaries: RunSummary[]; stopped: boolean }> {
  const { steps } = exp;
  if (!o.resume) refuseHeldDir(out, o.force); // before a minute of loading, not after
  // auto times candidates only when there is a choice (wasm alone unless a Dawn shim adds webgpu); no cache in Node.
  const report = await selectBackend(tf, o.backend, nodePlatform, { preset: timedPreset(exp) });
  if (!report.backend) throw new UsageError(`--backend ${o.backend}: ${describeReport(report)}`);
  // The wasm kernels' build is said with the backend: it decides the last digits (LAB_SIMD).
  const kernels = report.backend === 'wasm' ? `; kernels: ${simdFlavour()} SIMD` : '';
  o.note(`backend: ${describeReport(report)}${kernels}`);
  // A workflow over a data file: its rows from this process's read, or from the copy beside
  // config.json (a resume, a sweep cell in a thread of its own).
  if (exp.workflow && !o.resume) ensureWorkflowData(exp, null);
  else if (exp.workflow) ensureWorkflowData(exp, out);
  const prepared = o.init.length ? [] : ((await workflowBaseFiles(exp, o.note)) ?? []);
  const { checkpoints, notes } = await loadShippedBase(exp, 'models', o.init, prepared);
  for (const [id, note] of Object.entries(notes)) o.note(`model ${id}: ${note}`);

  if (!o.resume) {
    const moved = prepareNewSessionDir(out, o.force);
    if (moved) o.note(`--force: the run that was in ${out} is now in ${moved}`);
    keepDataBeside(exp, out);
  }
  const unlock = lockSessionDir(out);
  try {
    const resumed = o.resume ? loadResume(out, exp) : null;
    if (resumed) for (const note of resumed.notes) o.note(`resume ${note}`);
    if (!resumed || steps !== o.givenSteps)
      writeAtomic(join(out, 'config.json'), JSON.stringify(exp, null, 2) + '\n');
    const machine = thisMachine(describeReport(report));
    const changed = resumed && kernelsChanged(readMachines(out), machine);
    if (changed) o.note(`warning: ${changed}`);
    recordMachine(out, machine); // where these steps ran (machine.ts)
    const metrics = new MetricsLog(join(out, 'metrics.jsonl'), resumed?.held);
    const labels = runLabels(exp).map((r) => r.label);
    // Each run's latest step, whose rollouts (as the page's inspector shows them) go to rollouts/
    // with its state and at the end: a sample for `lab bundle`, not a record, so not every step.
    const latest = new Map<string, TrainStepResult>();
    const saveRollouts = (label: string) => {
      const r = latest.get(label);
      const sample = r && { step: r.step, trajectories: inspectBatch(r) };
      if (sample)
        writeAtomic(rolloutsPath(out, labels.indexOf(label), label), JSON.stringify(sample, nanAsNull));
    };
    for (const [label, r] of resumed?.resume ?? []) o.progress?.(label, r.state.manifest.step, 'resumed');

    const summaries = await runExperiment(exp, {
      stop: o.stop,
      steps,
      base: checkpoints,
      env: () => nodeEnvPool(exp.rollout.envTimeoutMs),
      ...(resumed ? { resume: resumed.resume } : {}),
      checkpointEvery: o.checkpointEvery,
      onCheckpoint: (run, state) => {
        metrics.sync(); // the lines up to a state are on disk before the state is
        writeRunState(statePath(out, labels.indexOf(run.label), run.label), state);
        saveRollouts(run.label);
      },
      onStep: (run, r) => {
        latest.set(run.label, r);
        // Appended as it comes: a crash or Ctrl-C loses nothing already recorded.
        metrics.append(JSON.stringify({ run: run.label, ...r.metrics }, nanAsNull), {
          step: r.step,
          run: labels.indexOf(run.label),
        });
        o.progress?.(
          run.label,
          r.step + 1,
          `reward ${formatFixed(r.metrics[M.rewardMean])}  success ${formatFixed(r.metrics[M.successRate])}  ${formatFixed(r.metrics[M.rolloutMs] + r.metrics[M.updateMs], 0)} ms/step`,
        );
      },
    });
    metrics.close();
    for (const label of labels) saveRollouts(label);
    if (o.stop.aborted) return { summaries, stopped: true };
    writeAtomic(join(out, 'summary.json'), JSON.stringify(summaries, nanAsNull, 2) + '\n');
    return { summaries, stopped: false };
  } finally {
    unlock();
  }
}

/**
 * Ctrl-C (SIGINT) or SIGTERM aborts `stop`: every run finishes the step in flight and saves its
 * state; a second signal quits at once, keeping what is on disk. Returns the unlisten.
 */
export function onStopSignals(stop: AbortController, saving: boolean): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(128 + os.constants.signals[signal]);
    stop.abort(signal);
    const how = saving ? "and saving each run's state" : '(no states: --checkpoint-every 0)';
    console.error(`\n${signal}: stopping after the step in flight ${how}; ${signal} again quits at once`);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  return () => process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
}

/** Each run's summary from what a train folder recorded (finished, stopped or still running). */
export function folderSummaries(
  dir: string,
  tail: number,
): { summaries: RunSummary[]; seeded: boolean; evalEvery: number } {
  checkSessionDir(dir);
  const exp = loadConfig(join(dir, 'config.json'));
  const rows = readMetrics(join(dir, 'metrics.jsonl'), warn, exp.task);
  const summaries = cellSummaries(
    exp,
    taskOf(exp).agents.map((a) => a.role),
    rows,
    tail,
  );
  return { summaries, seeded: exp.seeds > 1, evalEvery: exp.eval.every };
}
