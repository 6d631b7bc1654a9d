/**
 * A run's live-change schedule (config-run.ts RunSchema `live`, its schema in live-params.ts): the live values it took, keyed by the
 * step they took effect at. The page records one entry per change (the step the run reports), a
 * link carries them (`runs.0.live.179.optim.lr=0.003`), and the trainer applies each entry at the
 * start of its step, so a replay of the link trains what the sender's runs trained
 * (docs/links.md#live-change-schedule). Pure: no tfjs, no DOM.
 */
import { LIVE, LIVE_PARAMS, liveValue, withLive } from './live-params';
import type { Experiment } from './config';
import type { LiveChange, LiveParam, LiveSchedule } from './live-params';

/** The changes due at `step`, in LIVE's order. */
export function changesAt(schedule: LiveSchedule, step: number): [LiveParam, number][] {
  const entry = schedule[String(step)];
  if (!entry) return [];
  return LIVE_PARAMS.flatMap((p): [LiveParam, number][] => {
    const v = entry[LIVE[p].section]?.[p];
    return v === undefined ? [] : [[p, v]];
  });
}

/** `schedule` with `p = v` at `step` (a copy; a value already there for `p` is replaced). */
export function withChange(schedule: LiveSchedule, step: number, p: LiveParam, v: number): LiveSchedule {
  const key = String(step);
  const entry: LiveChange = schedule[key] ?? {};
  const section = LIVE[p].section;
  return { ...schedule, [key]: { ...entry, [section]: { ...entry[section], [p]: v } } };
}

/** Every entry of `extra` laid over `schedule` (a copy). */
export function mergeSchedules(schedule: LiveSchedule, extra: LiveSchedule): LiveSchedule {
  let out = schedule;
  for (const step of Object.keys(extra))
    for (const [p, v] of changesAt(extra, Number(step))) out = withChange(out, Number(step), p, v);
  return out;
}

/** A live change as a run took it: drawn as a marker on the charts, kept with the run's exports. */
export interface LiveMarker {
  step: number;
  param: LiveParam;
  value: number;
}

/** Every change of a schedule, in step order. */
export function scheduleEntries(schedule: LiveSchedule): LiveMarker[] {
  return Object.keys(schedule)
    .map(Number)
    .sort((a, b) => a - b)
    .flatMap((step) => changesAt(schedule, step).map(([param, value]) => ({ step, param, value })));
}

/** Run `runIndex` of `exp` with `p = v` from `step` on: what the page records when a run reports a change. */
export function withScheduled(
  exp: Experiment,
  runIndex: number,
  step: number,
  p: LiveParam,
  v: number,
): Experiment {
  const runs = exp.runs.map((r, i) => (i === runIndex ? { ...r, live: withChange(r.live, step, p, v) } : r));
  return { ...exp, runs };
}

/** What one running repeat of a run says when asked to hold for a change: its next step, and whether it ends before it. */
export interface HoldAnswer {
  step: number;
  done: boolean;
}

/**
 * The one step a run's repeats take a live change at: the latest next step among the repeats
 * still training (those behind take it when they reach it); with none training, step 0 if some
 * repeat has not started yet (it starts with the change), else the latest (every repeat has
 * finished: the step a Continue goes on from). Null when no repeat is there to take it.
 */
export function agreedStep(answers: readonly HoldAnswer[], queued: boolean): number | null {
  const training = answers.filter((a) => !a.done).map((a) => a.step);
  if (training.length) return Math.max(...training);
  if (queued) return 0;
  return answers.length ? Math.max(...answers.map((a) => a.step)) : null;
}

/**
 * The value a live field shows: the latest change any run took (the runs take each change from
 * the page together), else the experiment's own value.
 */
export function latestLive(exp: Experiment, p: LiveParam): number {
  let latest = { step: -1, value: liveValue(exp, p) };
  for (const r of exp.runs)
    for (const e of scheduleEntries(r.live))
      if (e.param === p && e.step > latest.step) latest = { step: e.step, value: e.value };
  return latest.value;
}

/** `exp` with `p = v` from step 0: its value set, and every run's changes of `p` dropped. */
export function withBaseLive(exp: Experiment, p: LiveParam, v: number): Experiment {
  const runs = exp.runs.map((r) => {
    let live: LiveSchedule = {};
    for (const e of scheduleEntries(r.live))
      if (e.param !== p) live = withChange(live, e.step, e.param, e.value);
    return { ...r, live };
  });
  return withLive({ ...exp, runs }, p, v);
}
