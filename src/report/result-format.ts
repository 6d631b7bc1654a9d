/**
 * What a result file (`*.lab.json.gz`) holds: its one zod schema, its bounds, and the types its
 * writer takes and its reader gives, all derived from the schema (result-file.ts writes and reads
 * the file, result-check.ts checks a body against the schema and what no schema says,
 * docs/sharing.md#what-a-result-file-holds says it in words). Every string, list and number within
 * bounds far above any real result's, so that a hostile file cannot make the page hold more;
 * numbers finite (JSON's null stands for NaN where the lab itself records NaN); no key the lab does
 * not write. Pure.
 */
import { z } from 'zod';
import { MAX_STEPS } from '../core/config-names';
import { ESTIMATOR_NAMES } from '../core/estimators';
import type { Experiment } from '../core/config';
import type { InspectedTrajectory } from '../core/inspected';
import { LIVE_PARAMS } from '../core/live-params';
import type { LiveParam } from '../core/live-params';
import type { Params } from '../rl/sweep';
import { VERDICT_KINDS } from './findings';

export const RESULT_FORMAT = 'agentwise-lab-result';
export const RESULT_VERSION = 1;
/** A result file's name ends so. */
export const RESULT_EXTENSION = '.lab.json.gz';
/** Larger files are refused before they are read (the page stops fetching past it). */
export const MAX_RESULT_BYTES = 50 * 2 ** 20;
/** A body inflating past this is refused: gzip compresses a hostile run of zeros 1000-fold. */
export const MAX_BODY_BYTES = 256 * 2 ** 20;
/** JSON nested deeper than any result's (hostile: it would cost the parser its stack). */
export const MAX_DEPTH = 32;

/** A refused result file: the message says what is wrong with it. */
export class ResultRefused extends Error {}

/** Bounds far above any real result's, so that a hostile file cannot make the page hold more. */
const MAX_RUNS = 10_000;
const MAX_KEYS = 4_096;
const MAX_TEXT = 20_000;
const MAX_ROLLOUT_SAMPLES = 16;
const MAX_LIST = 1_000;

/**
 * A list of at most `max` items, each an `item`: refused at its length, or at its first bad item
 * without reading the rest, so that a hostile list costs no more than its first error.
 */
function listOf<T extends z.ZodType>(item: T, max: number) {
  return z.unknown().transform((v, ctx): z.output<T>[] => {
    const fail = (message: string, path: PropertyKey[] = []) => {
      ctx.addIssue({ code: 'custom', message, path });
      return z.NEVER;
    };
    if (!Array.isArray(v)) return fail('not a list');
    if (v.length > max) return fail(`${v.length} items, where at most ${max} are read`);
    const out: z.output<T>[] = [];
    for (let i = 0; i < v.length; i++) {
      const r = item.safeParse(v[i]);
      if (!r.success) return fail(r.error.issues[0].message, [i, ...r.error.issues[0].path]);
      out.push(r.data);
    }
    return out;
  });
}

const name = z.string().min(1).max(200);
const text = z.string().max(MAX_TEXT);
const nat = z.number().int().min(0);
/** A number the lab records as NaN where it has none (an estimate of no seeds): JSON's null. */
const orNaN = z
  .number()
  .nullable()
  .transform((v) => v ?? NaN);
const agent = z.string().regex(/^[a-z][a-z0-9-]{0,15}$/, 'not an agent name');

const estimate = z.strictObject({ mean: orNaN, std: orNaN, n: nat, lo: orNaN, hi: orNaN });
const verdict = z.strictObject({ kind: z.enum(VERDICT_KINDS), text });
const figure = z.strictObject({
  name,
  words: text,
  runs: listOf(estimate, MAX_RUNS),
  diffs: listOf(estimate.extend({ verdict }), MAX_RUNS),
});
const comparison = z.strictObject({
  runs: listOf(name, MAX_RUNS),
  seeds: nat,
  figures: listOf(figure, MAX_LIST),
});
const otherScale = z.strictObject({
  run: name,
  estimator: z.enum(ESTIMATOR_NAMES),
  scale: orNaN,
  rms: orNaN,
  corr: orNaN,
});
const agentDifference = z.strictObject({
  agent,
  amplification: orNaN,
  carried: orNaN,
  scale: orNaN,
  rms: z.strictObject({ grpo: orNaN, drmas: orNaN }),
  corr: orNaN,
  gradRatio: orNaN,
  // The experiment's other runs' estimators on the same rows (absent in files written before them).
  others: listOf(otherScale, 16).optional(),
  sentence: text,
});
const differences = z.strictObject({
  steps: z.tuple([nat, nat]),
  identical: z.boolean(),
  summary: text,
  scores: text,
  runs: text.optional(),
  agents: listOf(agentDifference, 64),
});

const turnFields = {
  agent,
  prompt: text,
  response: text,
  valid: z.boolean(),
  reward: orNaN,
  advantage: orNaN,
  logp: listOf(orNaN, 4_096),
  credit: z.strictObject({ credit: orNaN, without: orNaN, weight: orNaN }).optional(),
  node: z.strictObject({ index: nat, parent: z.number().int().min(-1) }).optional(),
};
const sibling = z.strictObject({ ...turnFields, branch: nat, chosen: z.boolean() });
const turn = z.strictObject({ ...turnFields, siblings: listOf(sibling, 64).optional() });
// A sample's trajectories are the rollout inspector's: the build fails where the two part.
const trajectory: z.ZodType<InspectedTrajectory> = z.strictObject({
  group: nat,
  traj: nat,
  success: z.boolean(),
  reward: orNaN,
  status: z.enum(['ok', 'error']),
  tree: z.literal(true).optional(),
  turns: listOf(turn, 256),
});
const rolloutSample = z.strictObject({ step: nat, trajectories: listOf(trajectory, 64) });
const marker = z.strictObject({
  step: nat,
  param: z.enum(LIVE_PARAMS as [LiveParam, ...LiveParam[]]),
  value: z.number(),
});

const run = z.strictObject({
  label: name,
  seed: z.number().int(),
  experiment: nat,
  runIndex: z.number().int().min(-1),
  agents: listOf(agent, 64),
  markers: listOf(marker, 100_000),
  keys: listOf(name, MAX_KEYS),
  // Checked after: each frame against its key table (framesOf), without a schema per number.
  frames: listOf(z.unknown(), MAX_STEPS),
  rollouts: listOf(rolloutSample, MAX_ROLLOUT_SAMPLES),
});

const cell = z.union([z.string().max(1_000), z.number(), z.boolean(), z.null()]);
const experiment = z.strictObject({
  experiment: z.unknown(),
  params: z.record(name, cell).nullable(),
  findings: comparison,
  whatDiffers: z.strictObject({ run: name, card: differences }).nullable(),
});
const dial = z.strictObject({ key: name, values: listOf(z.string().max(1_000), MAX_LIST) });
const machine = z.strictObject({
  date: name,
  commit: z.string().max(64).nullable(),
  dirty: z.boolean().nullable(),
  cpu: text,
  cores: nat,
  platform: text,
  runtime: text,
  backend: text,
  kernels: text,
});
/** The body's schema: what a result file holds, field by field. */
export const resultSchema = z.strictObject({
  made: z.strictObject({ by: z.enum(['lab bundle', 'page']), at: name, from: text }),
  experiments: listOf(experiment, MAX_RUNS),
  sweep: z
    .strictObject({ grid: listOf(dial, 16), map: listOf(listOf(z.string().max(1_000), MAX_LIST), 100_000) })
    .nullable(),
  runs: listOf(run, MAX_RUNS),
  machines: listOf(machine, MAX_LIST),
});

/** One sample of a run's rollouts: a step's trajectories as the rollout inspector is sent them. */
export type RolloutSample = z.output<typeof rolloutSample>;

/** A rollout sample from JSON text (a train folder's `rollouts/`), or null where it is not one this lab writes. */
export function parseRolloutSample(text: string): RolloutSample | null {
  try {
    const r = rolloutSample.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/**
 * One run × seed (a repeat): its label and seed; `experiment`, its index into the result's
 * experiments (a sweep's cell); `runIndex`, into that experiment's runs (-1: imported); its agents
 * and live-change markers; `keys`, its frame key table (`step` among them); `frames`, one per step
 * in key order, steps ascending, NaN where a key had no value; a sample of its rollouts.
 */
export type ResultRun = Omit<z.output<typeof run>, 'frames'> & { frames: Float64Array[] };

/**
 * One experiment of the result (a train folder's, a session's, or a sweep's cell): the experiment
 * its link encodes, live schedule included (null for runs imported from other tools); a sweep
 * cell's dial values (null outside a sweep); its Findings (its runs compared over seeds, as `lab
 * report` and the page give them); its What differs card, of the run the page reads it from.
 */
export type ResultExperiment = Omit<z.output<typeof experiment>, 'experiment' | 'params'> & {
  experiment: Experiment | null;
  params: Params | null;
};

/**
 * Where a result ran: a `lab train` folder's machine.json entry (core/machine.ts), or the page's
 * browser, in words that fit both: `runtime` (`node v20.20.2`, or the browser's user agent) for
 * machine.json's `node`, and `kernels` (`wasm SIMD: relaxed`, or the page's words) for its `simd`.
 */
export type ResultMachine = z.output<typeof machine>;

/** Everything a result file holds; `sweep`, a sweep's grid and its Map's table (null for one experiment). */
export type ResultBody = Omit<z.output<typeof resultSchema>, 'experiments' | 'runs'> & {
  experiments: ResultExperiment[];
  runs: ResultRun[];
};

/** A result as read: its body and its content hash (SHA-256 of the body). */
export interface Result {
  body: ResultBody;
  sha256: string;
}
