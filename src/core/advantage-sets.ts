/**
 * The vocabulary of the estimator algebra (docs/estimator-algebra.md#estimator-algebra): an
 * estimator is a unit (rows, or trajectories), the set its mean is taken over and the set its std
 * is taken over (or none). A set is named by the ids its members share, a subset of batch, group,
 * agent and turn, written as a comma list (`group,agent`), so a link carries it as one readable
 * value. The named estimators of core/estimators.ts are instances of it. Pure: no tfjs, no DOM.
 */
import { z } from 'zod';
import { namesOf } from './registry';

/** What one advantage is computed for. The docs label the dropdown's options. */
const ADVANTAGE_UNITS = {
  rows: { doc: "Every row (agent call) is a value: its own reward; its advantage is the row's." },
  trajectories: {
    doc: "One value per trajectory: the mean of its rows' rewards; every row of it gets the trajectory's advantage.",
  },
} as const;
type AdvantageUnit = keyof typeof ADVANTAGE_UNITS;
const ADVANTAGE_UNIT_NAMES = namesOf(ADVANTAGE_UNITS);

/**
 * The ids a set's members share. `batch` shares nothing: the whole batch is one set (with others
 * listed it adds nothing, as every row is in the batch).
 */
const ADVANTAGE_SETS = {
  batch: 'every value of the step',
  group: 'the G rollouts of one task instance (prompt q)',
  agent: 'one agent (k)',
  turn: "the agent's invocation index within its trajectory (t)",
} as const;
export type AdvantageSet = keyof typeof ADVANTAGE_SETS;
/** The order a set's ids are keyed in, whatever order a user wrote them. */
const SET_ORDER = Object.keys(ADVANTAGE_SETS) as AdvantageSet[];

/** One estimator of the algebra. */
export interface EstimatorDef {
  unit: AdvantageUnit;
  meanOver: readonly AdvantageSet[];
  /** `none`: centred only, never divided by a std (a mean baseline). */
  stdOver: readonly AdvantageSet[] | 'none';
}

/** The sets of a comma list, in canonical order; throws with what is wrong. */
function parseSets(text: string): AdvantageSet[] {
  const parts = text.split(',').map((s) => s.trim());
  const bad = parts.filter((p) => !Object.hasOwn(ADVANTAGE_SETS, p));
  if (bad.length)
    throw new Error(`'${bad.join("', '")}' is not a set; sets: ${SET_ORDER.join(', ')} (comma-separated)`);
  if (new Set(parts).size !== parts.length) throw new Error(`'${text}' names a set twice`);
  return SET_ORDER.filter((s) => parts.includes(s));
}

/** `stdOver`'s text: a set list, or `none`. */
const parseStdSets = (text: string): AdvantageSet[] | 'none' => (text === 'none' ? 'none' : parseSets(text));

/** The text of a set list, canonical order: `group,agent`. */
export const setsText = (sets: readonly AdvantageSet[] | 'none'): string =>
  sets === 'none' ? 'none' : sets.join(',');

/** The ids that key a set, batch left out: two rows are in one set iff these ids are equal. */
export const keyedSets = (sets: readonly AdvantageSet[]): Exclude<AdvantageSet, 'batch'>[] =>
  sets.filter((s) => s !== 'batch');

/** Whether two set lists are the same partition (group,batch is group). */
export const sameSets = (a: readonly AdvantageSet[], b: readonly AdvantageSet[]): boolean =>
  setsText(keyedSets(a)) === setsText(keyedSets(b));

/** What is wrong with a definition (field → message), or nothing. */
export function defProblems(def: EstimatorDef): { field: 'meanOver' | 'stdOver'; message: string }[] {
  if (def.unit !== 'trajectories') return [];
  // A trajectory holds several agents' rows at several turns: only batch and group name its set.
  const problems: { field: 'meanOver' | 'stdOver'; message: string }[] = [];
  for (const field of ['meanOver', 'stdOver'] as const) {
    const sets = def[field];
    const rowOnly = sets === 'none' ? [] : sets.filter((s) => s === 'agent' || s === 'turn');
    if (rowOnly.length)
      problems.push({
        field,
        message: `unit trajectories has no ${rowOnly.join(' or ')} (a trajectory spans agents and turns): use batch or group`,
      });
  }
  return problems;
}

/** A comma list of sets, checked; stored as written. */
const setList = (allowNone: boolean) =>
  z.string().superRefine((text, ctx) => {
    try {
      if (allowNone) parseStdSets(text);
      else parseSets(text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  });

/** What a `custom` estimator's absent fields read as: Dr. MAS's definition. */
const CUSTOM_DEFAULT = { unit: 'rows', meanOver: 'group,agent', stdOver: 'group,agent' } as const;

/**
 * The algebra's fields of the advantage options: read only by runs whose estimator is `custom`.
 * Optional, so configs and links without them stay as they were; absent reads as CUSTOM_DEFAULT.
 */
export const ALGEBRA_FIELDS = {
  unit: z
    .enum(ADVANTAGE_UNIT_NAMES)
    .optional()
    .describe(
      `Estimator custom: what gets an advantage, each row or each trajectory (the mean of its rows); default ${CUSTOM_DEFAULT.unit}`,
    ),
  meanOver: setList(false)
    .optional()
    .describe(
      `Estimator custom: the set the mean is taken over, a comma list of ${SET_ORDER.join(', ')}; default ${CUSTOM_DEFAULT.meanOver}`,
    ),
  stdOver: setList(true)
    .optional()
    .describe(
      `Estimator custom: the set the std is taken over, a comma list of ${SET_ORDER.join(', ')}, or none; default ${CUSTOM_DEFAULT.stdOver}`,
    ),
};

/** The algebra's fields as an experiment's advantage options hold them (already validated). */
export interface AlgebraFields {
  unit?: AdvantageUnit;
  meanOver?: string;
  stdOver?: string;
}

/** The definition the fields hold, CUSTOM_DEFAULT where absent. */
export const defOf = (o: AlgebraFields): EstimatorDef => ({
  unit: o.unit ?? CUSTOM_DEFAULT.unit,
  meanOver: parseSets(o.meanOver ?? CUSTOM_DEFAULT.meanOver),
  stdOver: parseStdSets(o.stdOver ?? CUSTOM_DEFAULT.stdOver),
});
