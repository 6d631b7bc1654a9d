/**
 * An experiment's runs in one process: every run × seed gets its own RunDriver (driver.ts, the
 * page's run workers drive theirs the same way), and they advance in lockstep, one step each in
 * turn, so they share the task stream step for step and a consumer (the CLI's progress bars, a
 * test) sees them move together.
 *
 * Every `checkpointEvery` steps (and at the end) each run's state goes to `onCheckpoint`; a run
 * given in `resume` goes on from such a state with the history recorded before it. Runs that
 * stand at different steps (a crash between two runs' saves) are brought level first: each round
 * steps only the runs furthest behind.
 *
 * When `stop` is aborted (the CLI's Ctrl-C), each run finishes the step in flight, no run starts
 * another, and every run saves its state where it stands (when states are saved at all), so a
 * resume goes on from there and loses no step; the summaries are of what was recorded.
 */
import type { Experiment } from '../core/config';
import { runRepeats } from '../core/config';
import type { Checkpoint } from '../model/checkpoint';
import { InProcessEnvRunner, type EnvRunner } from '../tasks/env';
import { sealRunState, type RunState } from './run-state';
import { summarize, type RunSummary } from '../report/summary';
import { RunDriver } from './driver';
import type { TrainStepResult } from './trainer';

interface RunHandle {
  /** Legend label; `label #s` for the s-th repeat when the experiment has several seeds. */
  label: string;
  seed: number;
  driver: RunDriver;
  history: Record<string, number>[];
}

interface ExperimentOptions {
  steps?: number;
  base?: Readonly<Record<string, Checkpoint>> | null;
  /** Each run's environments (disposed at the end); absent: in-process. */
  env?: () => EnvRunner;
  onStep?: (run: RunHandle, result: TrainStepResult) => void | Promise<void>;
  /** Save each run's state every N steps and after its last step (0 or absent: never). */
  checkpointEvery?: number;
  onCheckpoint?: (run: RunHandle, state: RunState) => void | Promise<void>;
  /** By run label: a saved state to go on from, and the metric history recorded up to it. */
  resume?: ReadonlyMap<string, { state: RunState; history: Record<string, number>[] }>;
  /** Aborted: stop after the step in flight and save every run's state (see above). */
  stop?: AbortSignal;
}

export function runLabels(
  exp: Experiment,
): { label: string; seed: number; run: Experiment['runs'][number] }[] {
  return runRepeats(exp).map(({ label, seed, runIndex }) => ({ label, seed, run: exp.runs[runIndex] }));
}

export async function runExperiment(exp: Experiment, o: ExperimentOptions = {}): Promise<RunSummary[]> {
  const steps = o.steps ?? exp.steps;
  const every = o.checkpointEvery ?? 0;
  const handles: RunHandle[] = [];
  try {
    for (const { label, seed, run } of runLabels(exp)) {
      const saved = o.resume?.get(label);
      const handle = { label, seed, history: [...(saved?.history ?? [])] } as RunHandle;
      const onCheckpoint = o.onCheckpoint;
      const env = o.env?.() ?? new InProcessEnvRunner();
      try {
        handle.driver = await RunDriver.open(
          saved
            ? { state: saved.state, schedule: run.live }
            : { fresh: { exp, run, seed, base: o.base ?? null } },
          {
            env,
            steps,
            saveEvery: every,
            store:
              onCheckpoint && every > 0
                ? { save: (state) => onCheckpoint(handle, sealRunState(state)) }
                : null,
            sink: {
              frame: async (r) => {
                handle.history.push(r.metrics);
                await o.onStep?.(handle, r);
              },
            },
          },
        );
      } catch (e) {
        env.dispose();
        throw e;
      }
      handles.push(handle);
    }
    for (;;) {
      const behind = Math.min(...handles.map((h) => h.driver.step));
      if (behind >= steps || o.stop?.aborted) break;
      for (const h of handles) if (h.driver.step === behind && !o.stop?.aborted) await h.driver.stepOnce();
    }
    // Runs may stand one step apart here; each saves its own step and a resume brings them level.
    if (o.stop?.aborted) for (const h of handles) await h.driver.pause();
    return handles.map((h) => summarize(h.label, h.seed, h.history, h.driver.trainer.agents, exp.eval.k));
  } finally {
    for (const h of handles) h.driver.stop();
  }
}
