/**
 * The live hyper-parameters: what a user may change while a run trains, without a reset. The LIVE
 * table names them; the helpers read and write one in an experiment or a trainer's settings; the
 * schema checks a run's schedule of the changes it took, keyed by step (RunSchema's `live`,
 * config-run.ts). The schedule's operations are live-schedule.ts's. Pure: no tfjs, no DOM.
 */
import { z } from 'zod';
import { MAX_STEPS } from './config-names';
import { OptimFields, OptimSchema, RolloutSchema, overridesOf } from './config-sections';
import type { Optim, RolloutOptions } from './config-sections';

/**
 * The live hyper-parameters, one entry each: what a user may change while a run trains, without
 * a reset (recorded with the step it took effect at). The key is the field's name in `section`;
 * its doc and range are that schema field's; `label` and `step` are the live panel's. The URL's
 * structure check, the JSON editor, the live panel, the run state and the trainer all read this
 * table (like TensorFlow Playground's state.ts).
 */
export const LIVE = {
  lr: { section: 'optim', label: 'learning rate', step: 1e-4 },
  maxGradNorm: { section: 'optim', label: 'max grad norm', step: 0.1 },
  clipLow: { section: 'optim', label: 'clip ε low', step: 0.05 },
  clipHigh: { section: 'optim', label: 'clip ε high', step: 0.05 },
  entropyCoef: { section: 'optim', label: 'entropy coef', step: 0.001 },
  temperature: { section: 'rollout', label: 'temperature', step: 0.1 },
} as const satisfies Record<string, { section: 'optim' | 'rollout'; label: string; step: number }>;

export type LiveParam = keyof typeof LIVE;
export const LIVE_PARAMS = Object.keys(LIVE) as LiveParam[];
const SECTIONS = { optim: OptimSchema, rollout: RolloutSchema };

/** Where live parameters live: an experiment, or a trainer's resolved settings. */
interface LiveHolder {
  optim: Optim;
  rollout: RolloutOptions;
}

/** The schema field of a live parameter: its doc (`.description`) and its range. */
export const liveField = (p: LiveParam): z.ZodType =>
  (SECTIONS[LIVE[p].section].shape as Record<string, z.ZodType>)[p];

export const liveValue = (c: LiveHolder, p: LiveParam): number =>
  (c[LIVE[p].section] as Record<string, unknown>)[p] as number;

/** `c` with live parameter `p` set to `v` (a copy; `c` is left alone). */
export function withLive<C extends LiveHolder>(c: C, p: LiveParam, v: number): C {
  const section = LIVE[p].section;
  return { ...c, [section]: { ...c[section], [p]: v } };
}

/** The live parameters of one section, as a mask for zod's `pick`. */
const liveMask = (section: 'optim' | 'rollout') =>
  Object.fromEntries(LIVE_PARAMS.filter((p) => LIVE[p].section === section).map((p) => [p, true])) as Record<
    string,
    true
  >;

/**
 * What a run took at one step: live values by section, as in the experiment (`optim.lr`). An
 * entry, and each section in it, names at least one value: an empty one would not survive a link.
 */
const LiveChangeSchema = z
  .strictObject({
    optim: overridesOf(OptimFields.pick(liveMask('optim') as never)).optional(),
    rollout: overridesOf(RolloutSchema.pick(liveMask('rollout') as never)).optional(),
  })
  .superRefine((change, ctx) => {
    const sections = Object.entries(change).filter(([, v]) => v !== undefined);
    if (sections.length === 0) ctx.addIssue({ code: 'custom', message: 'names no live parameter' });
    for (const [section, values] of sections)
      if (Object.keys(values as object).length === 0)
        ctx.addIssue({ code: 'custom', path: [section], message: 'names no live parameter' });
  });
export type LiveChange = { [S in 'optim' | 'rollout']?: Partial<Record<LiveParam, number>> };
/** A run's live changes by the step it took them at (docs/links.md#live-change-schedule). */
export type LiveSchedule = Record<string, LiveChange>;

/** A schedule's key: a step index, written without sign, point or leading zeros. */
const stepKey = z
  .string()
  .regex(/^(0|[1-9]\d*)$/, 'a step is a whole number ≥ 0')
  .refine((k) => Number(k) < MAX_STEPS, `a step is below ${MAX_STEPS}`);

/** A run's schedule as the schema reads it: live changes keyed by step. */
export const LiveScheduleSchema = z.record(stepKey, LiveChangeSchema) as unknown as z.ZodType<LiveSchedule>;
