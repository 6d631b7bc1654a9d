/**
 * A result's experiments made from their runs' frames, as `lab bundle` and the page's Share result
 * make them: each experiment's Findings (its runs compared over seeds, as `lab report` prints
 * them) and its What differs card (of the run the page reads it from), and a bounded sample of
 * each run's rollouts. Pure.
 */
import type { Experiment } from '../core/config';
import { evalKsOf } from '../core/metrics';
import type { Params } from '../rl/sweep';
import { compareSeeds } from './findings';
import type { ResultExperiment, ResultRun, RolloutSample } from './result-format';
import { REWARD_TAIL, summarize } from './summary';
import type { RunSummary } from './summary';
import { DIFFERS_WINDOW, differsPick, whatDiffers } from './what-differs';

/** Rollout samples kept per run: the first, the last, and evenly between. */
export const ROLLOUT_SAMPLES = 4;

/** A run's frames as rows of the values it has (NaN left out), oldest first. */
export function rowsOf(run: Pick<ResultRun, 'keys' | 'frames'>): Record<string, number>[] {
  return run.frames.map((f) => {
    const row: Record<string, number> = {};
    run.keys.forEach((k, i) => {
      if (!Number.isNaN(f[i])) row[k] = f[i];
    });
    return row;
  });
}

/** At most `n` of a run's rollout samples, evenly spaced over its steps (the first and last kept). */
export function sampleRollouts(samples: readonly RolloutSample[], n = ROLLOUT_SAMPLES): RolloutSample[] {
  if (samples.length <= n) return [...samples];
  const at = new Set(Array.from({ length: n }, (_, i) => Math.round((i * (samples.length - 1)) / (n - 1))));
  return samples.filter((_, i) => at.has(i));
}

type MadeRun = Pick<ResultRun, 'label' | 'seed' | 'runIndex' | 'agents' | 'keys' | 'frames'>;

/**
 * Each run summarized as `lab report` summarizes it: at the experiment's eval K, or for runs
 * imported from other tools (`experiment` null) at their own, the largest they carry.
 */
export function summariesOf(
  experiment: Experiment | null,
  runs: readonly MadeRun[],
  rows = runs.map(rowsOf),
): RunSummary[] {
  return runs.map((r, i) => {
    const k = experiment ? experiment.eval.k : (evalKsOf(r.keys).at(-1) ?? NaN);
    return summarize(r.label, r.seed, rows[i], r.agents, k, REWARD_TAIL);
  });
}

/**
 * One experiment of a result from its runs: `experiment` null for runs imported from other tools
 * (their eval K is their own, the largest they carry, as `lab report` reads an import folder).
 */
export function resultExperiment(
  experiment: Experiment | null,
  params: Params | null,
  runs: readonly MadeRun[],
): ResultExperiment {
  const rows = runs.map(rowsOf);
  const summaries = summariesOf(experiment, runs, rows);
  const picked = experiment ? differsPick(experiment, runs) : null;
  const i = picked ? runs.indexOf(picked.r) : -1;
  const card =
    picked &&
    whatDiffers(rows[i].slice(-DIFFERS_WINDOW), picked.r.agents, picked.estimator, {
      trajectories: picked.trajectories,
      groupSize: picked.groupSize,
      trees: picked.trees,
      run: picked.r.label,
      others: picked.others,
    });
  return {
    experiment,
    params,
    findings: compareSeeds(summaries, experiment?.seeds ?? 0),
    whatDiffers: card ? { run: picked!.r.label, card } : null,
  };
}
