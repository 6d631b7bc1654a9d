/**
 * A run's live hyper-parameters (core/live-params.ts LIVE) as its trainer holds them: the resolved
 * settings they change, and the schedule of changes by step (the run's own `live`, plus those set
 * while it trains), which the run's saved state carries. Kept apart from the trainer, which only
 * reads the settings of the step it computes and applies the changes due at it.
 */
import type { Experiment } from '../core/config';
import type { Run } from '../core/config-run';
import type { LiveParam, LiveSchedule } from '../core/live-params';
import { resolveRun } from '../core/config-run';
import { LIVE_PARAMS, liveField, liveValue, withLive } from '../core/live-params';
import { changesAt, mergeSchedules, withChange } from '../core/live-schedule';

/** Refuses a live value outside its schema field's range, naming the parameter. */
function checkLive(param: LiveParam, value: number): void {
  const checked = liveField(param).safeParse(value);
  if (!checked.success)
    throw new Error(`live parameter ${param}: ${checked.error.issues[0].message}, got ${value}`);
}

export class LiveSettings {
  /** The run's resolved optimizer, advantage and rollout settings as they stand now. */
  current: ReturnType<typeof resolveRun>;
  /** The run's live changes by step (its `live`, plus those set while it trains). */
  schedule: LiveSchedule;

  /** `schedule`: changes laid over the run's own `live`. */
  constructor(exp: Experiment, run: Run, schedule: LiveSchedule = {}) {
    this.current = resolveRun(exp, run);
    this.schedule = mergeSchedules(run.live ?? {}, schedule);
  }

  /** Applies the changes scheduled for step `step`. */
  applyDue(step: number): void {
    for (const [p, v] of changesAt(this.schedule, step)) this.set(p, v);
  }

  /** Changes a live hyper-parameter now. */
  set(param: LiveParam, value: number): void {
    checkLive(param, value);
    this.current = withLive(this.current, param, value);
  }

  /** Schedules a change of a live hyper-parameter at step `due`. */
  scheduleAt(param: LiveParam, value: number, due: number): void {
    checkLive(param, value);
    this.schedule = withChange(this.schedule, due, param, value);
  }

  /** The live hyper-parameters as they stand now. */
  values(): Record<LiveParam, number> {
    return Object.fromEntries(LIVE_PARAMS.map((p) => [p, liveValue(this.current, p)])) as Record<
      LiveParam,
      number
    >;
  }
}
