/**
 * An experiment's runs in one process: every run × seed gets its own RunTrainer, and they advance
 * in lockstep, one step each in turn, so they share the task stream step for step and a consumer
 * (the CLI's progress bars, a test) sees them move together. The browser instead hosts one run
 * per worker with the same RunTrainer.
 */
import type { Experiment } from '../core/config';
import type { Checkpoint } from '../model/checkpoint';
import type { EnvRunner } from '../tasks/env';
import { summarize, type RunSummary } from './summary';
import { RunTrainer, type StepResult } from './trainer';

export interface RunHandle {
  /** Legend label; `label #s` for the s-th repeat when the experiment has several seeds. */
  label: string;
  seed: number;
  trainer: RunTrainer;
  history: Record<string, number>[];
}

export interface ExperimentOptions {
  steps?: number;
  base?: Readonly<Record<string, Checkpoint>> | null;
  env?: () => EnvRunner;
  onStep?: (run: RunHandle, result: StepResult) => void | Promise<void>;
}

export function runLabels(exp: Experiment): { label: string; seed: number; run: Experiment['runs'][number] }[] {
  return exp.runs.flatMap((run) =>
    Array.from({ length: exp.seeds }, (_, s) => ({
      label: exp.seeds > 1 ? `${run.label} #${s}` : run.label,
      seed: exp.seed + s,
      run,
    })),
  );
}

export async function runExperiment(exp: Experiment, o: ExperimentOptions = {}): Promise<RunSummary[]> {
  const steps = o.steps ?? exp.steps;
  const handles: RunHandle[] = runLabels(exp).map(({ label, seed, run }) => ({
    label,
    seed,
    trainer: new RunTrainer({ exp, run, seed, base: o.base ?? null, ...(o.env ? { env: o.env() } : {}) }),
    history: [],
  }));
  try {
    for (let step = 0; step < steps; step++) {
      for (const h of handles) {
        const result = await h.trainer.trainStep();
        h.history.push(result.metrics);
        await o.onStep?.(h, result);
      }
    }
    return handles.map((h) => summarize(h.label, h.seed, h.history, h.trainer.agents, exp.eval.k));
  } finally {
    for (const h of handles) h.trainer.dispose();
  }
}
