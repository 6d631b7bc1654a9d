/**
 * Advantage estimators of the GRPO family, one registry keyed by name
 * (docs/estimator-algebra.md#estimator-algebra). Rows in, one advantage per row out, plus per-agent
 * diagnostics. Every estimator is an instance of one algebra: a unit (rows or trajectories), the
 * set its mean is taken over and the set its std is taken over (or none), with the group
 * statistics of rl/stats.ts; nothing else differs. A run's `custom` estimator is the same algebra
 * with the sets its config names. Pure: no tfjs, no DOM, no Node APIs.
 */
import {
  defOf,
  keyedSets,
  sameSets,
  setsText,
  type AdvantageSet,
  type EstimatorDef,
} from '../core/advantage-sets';
import { SINGLETON_MODES, type EstimatorChoice, type EstimatorName } from '../core/config-names';
import type { AdvantageOptions } from '../core/config-sections';
import { ESTIMATOR_LABELS } from '../core/run-labels';
import { computeStats, type AdvantageStats, type SetCounts } from './diagnostics';
import { groupIndices, idKey, type AdvantageRow } from './rows';
import { mean, normalize, setStats } from './stats';

export type { AdvantageRow } from './rows';

/** One registry entry: its place in the algebra, and the name people know it by. */
interface EstimatorSpec extends EstimatorDef {
  /** The name people know it by, for chart titles and legends (the key is the config's name). */
  label: string;
  /** Normalization set, formula in the paper's notation, and the reference it follows. */
  doc: string;
  /** The values of a row's normalization set, in plain words (turn: the agent's call index, 0-based). */
  within: (agent: string, turn: number) => string;
}

/** The estimators, one per name of `ESTIMATOR_NAMES` (core/config): the compiler wants an entry for each. */
export const ESTIMATORS = {
  grpo: {
    label: ESTIMATOR_LABELS.grpo,
    doc:
      'Vanilla GRPO as the Dr. MAS repo runs it (group_by_agent_id=False; ray_trainer.py::compute_advantage). ' +
      "Set: prompt group q over its G trajectories. s̄_i = mean of trajectory i's row rewards; " +
      'A_i = (s̄_i − μ_q)/(σ_q + ε) with μ_q, σ_q over {s̄_1..s̄_G}; every row of trajectory i gets A_i. (docs/estimators.md#grpo) ' +
      "Tree sampling: runs, but not meaningful: branch i is no trajectory (each level continues from the chosen sibling, not from branch i's own), so s̄_i averages unrelated candidates.",
    unit: 'trajectories',
    meanOver: ['group'],
    stdOver: ['group'],
    within: () => 'the G trajectory scores of its question',
  },
  drmas: {
    label: ESTIMATOR_LABELS.drmas,
    doc:
      'Dr. MAS agent-wise normalization (arXiv 2602.08847; group_by_agent_id=True, key uid_agentId). ' +
      'Set Y_k(q): every row of agent k over the G rollouts of prompt q, steps not trajectories. ' +
      'A_y = (r_y − μ_k)/(σ_k + ε) with μ_k, σ_k over Y_k(q). (docs/estimators.md#drmas) ' +
      "Tree sampling: an agent-wise baseline over all of the agent's candidates in the tree, pooled across its turns: sound where its turn rewards share one scale, but no per-state baseline.",
    unit: 'rows',
    meanOver: ['group', 'agent'],
    stdOver: ['group', 'agent'],
    within: (agent) => `agent ${agent}’s rows over the G rollouts of its question`,
  },
  atgrpo: {
    label: ESTIMATOR_LABELS.atgrpo,
    doc:
      'AT-GRPO (PettingLLMs, arXiv 2510.11062), its documented intent: set = (prompt q, agent k, turn t), ' +
      'the candidates of one agent at one turn. A_y = (r_y − μ_{q,k,t})/(σ_{q,k,t} + ε). (docs/estimators.md#atgrpo) ' +
      'Tree sampling is what it is built for: each set is the G siblings sampled from one state, never a singleton; under parallel sampling the sets mix states from turn 1 on.',
    unit: 'rows',
    meanOver: ['group', 'agent', 'turn'],
    stdOver: ['group', 'agent', 'turn'],
    within: (agent, turn) => `agent ${agent}’s call-${turn + 1} rows over the G rollouts of its question`,
  },
  'global-step': {
    label: ESTIMATOR_LABELS['global-step'],
    doc:
      'Global step-level ablation (Dr. MAS issue #81, "Mechanism B" without the per-agent split): ' +
      'set = prompt q over all rows of all agents, no trajectory averaging. ' +
      'A_y = (r_y − mean(rows_q))/(std(rows_q) + ε). (docs/estimators.md#global-step) ' +
      'Tree sampling: one baseline over every candidate of every level and agent: runs, but mixes states and agents.',
    unit: 'rows',
    meanOver: ['group'],
    stdOver: ['group'],
    within: () => 'every row of the G rollouts of its question',
  },
  magrpo: {
    label: ESTIMATOR_LABELS.magrpo,
    doc:
      'MAGRPO (CoMLRL, arXiv 2508.04652) mean baseline, REINFORCE-style: set = (prompt q, agent k, turn t); ' +
      'A_y = r_y − μ_{q,k,t}, never divided by a std. (docs/estimators.md#magrpo; comlrl magrpo.py _compute_advantages "mean") ' +
      'Tree sampling: meaningful, its own setting: the G siblings of one node share the mean baseline.',
    unit: 'rows',
    meanOver: ['group', 'agent', 'turn'],
    stdOver: 'none',
    within: (agent, turn) => `agent ${agent}’s call-${turn + 1} rows over the G rollouts of its question`,
  },
  mars2: {
    label: ESTIMATOR_LABELS.mars2,
    doc:
      'MARS2 (MARTI, arXiv 2602.07848; experience_maker.py group_norm): set = one search tree, every node of every agent, one group across agents; ' +
      'A_y = (r_y − μ_tree)/(σ_tree + ε), then each agent trains on its own nodes. (docs/estimators.md#mars2) ' +
      "The algebra's (rows; group; group), as global-step: the two differ in the setting they name, a tree of rollout.sampling=mcts, whose group is the tree's nodes.",
    unit: 'rows',
    meanOver: ['group'],
    stdOver: ['group'],
    within: () => 'every node of its tree, all agents together',
  },
} as const satisfies Record<EstimatorName, EstimatorSpec>; // every name the config accepts

/** The `custom` choice: the option's label and doc where the named ones show theirs. */
const CUSTOM_ESTIMATOR = {
  label: ESTIMATOR_LABELS.custom,
  doc:
    "The run's own instance of the algebra: advantage.unit (rows, or trajectories = the mean of a trajectory's rows), " +
    'the set the mean is taken over (advantage.meanOver) and the set the std is taken over (advantage.stdOver, or none), ' +
    'each a comma list of batch, group, agent, turn. A = (s − μ_mean set)/(σ_std set + ε). (docs/estimator-algebra.md#estimator-algebra)',
};

/** Every choice a run's estimator field offers, with its label and doc. */
export const ESTIMATOR_OPTIONS: Record<EstimatorChoice, { label: string; doc: string }> = {
  ...ESTIMATORS,
  custom: CUSTOM_ESTIMATOR,
};

/**
 * What one row's advantage was computed from, in plain words, from the estimator's entry: the
 * value (its trajectory's score or its own reward) and the set it is normalized within.
 */
export function advantageBasis(
  choice: EstimatorChoice,
  row: { agent: string; turn: number },
  normalizeStd = true,
  options: AlgebraOptions = {},
): string {
  const def = estimatorDef(choice, options);
  const value =
    def.unit === 'trajectories' ? 'trajectory score = mean of its rows’ rewards' : 'this row’s reward';
  const how =
    def.stdOver !== 'none' && normalizeStd ? 'normalized by the mean and std of' : 'minus the mean of';
  // A custom run's sets are its own: said as the algebra writes them, not in a named one's words.
  if (choice === 'custom') return `${value}, ${how} its set (custom: ${defText(def)})`;
  const spec = getEstimator(choice);
  return `${value}, ${how} ${spec.within(row.agent, row.turn)} (${spec.label})`;
}

interface AdvantageResult {
  /** One advantage per row, in row order. */
  advantages: Float64Array;
  stats: AdvantageStats;
}

/** Looks an estimator up by name; unknown names throw with the valid list. */
export function getEstimator(name: string): EstimatorSpec {
  if (!Object.hasOwn(ESTIMATORS, name)) {
    throw new Error(`Unknown advantage estimator '${name}'. Valid: ${Object.keys(ESTIMATORS).join(', ')}.`);
  }
  return ESTIMATORS[name as EstimatorName];
}

/** The algebra fields a `custom` estimator reads (the advantage options' own defaults where absent). */
type AlgebraOptions = Partial<Pick<AdvantageOptions, 'unit' | 'meanOver' | 'stdOver'>>;

/** The definition of a run's estimator: a named one's registry entry, or `custom`'s from the options. */
export function estimatorDef(estimator: EstimatorChoice, options: AlgebraOptions = {}): EstimatorDef {
  if (estimator !== 'custom') return getEstimator(estimator);
  return defOf(options);
}

/** A definition as it reads in a chart: `rows; group,agent; none`. */
export const defText = (d: EstimatorDef): string =>
  `${d.unit}; ${setsText(d.meanOver)}; ${setsText(d.stdOver)}`;

/** What a chart calls a run's estimator: the name people know, or `custom (rows; group,agent; none)`. */
export function estimatorLabel(estimator: EstimatorChoice, options: AlgebraOptions = {}): string {
  return estimator === 'custom'
    ? `custom (${defText(estimatorDef(estimator, options))})`
    : getEstimator(estimator).label;
}

/** Refuses NaN / ±Infinity rewards, naming the rows, rather than spreading NaN advantages. */
function checkRewards(rows: readonly AdvantageRow[]): void {
  const bad: number[] = [];
  rows.forEach((r, i) => {
    if (typeof r.reward !== 'number' || !Number.isFinite(r.reward)) bad.push(i);
  });
  if (bad.length === 0) return;
  const shown = bad.slice(0, 20).map((i) => `${i} (${String(rows[i].reward)})`);
  const more = bad.length > 20 ? ` and ${bad.length - 20} more` : '';
  throw new Error(`computeAdvantages: non-finite reward at row ${shown.join(', ')}${more}.`);
}

/** The key of the set a row is in: its ids for the keyed sets, in canonical order. */
const setKeyOf =
  (sets: readonly AdvantageSet[]) =>
  (r: AdvantageRow): string =>
    idKey(keyedSets(sets).map((s) => r[s]));

/**
 * Units are the values an estimator normalizes: single rows, or whole trajectories whose value is
 * the mean of their rows' rewards. Each unit remembers the rows that receive its advantage and the
 * keys of its mean and std sets (a trajectory's are its first row's: batch and group only).
 */
interface Unit {
  value: number;
  rows: number[];
  set: string;
  stdSet: string;
}

function buildUnits(rows: readonly AdvantageRow[], def: EstimatorDef): Unit[] {
  const meanKey = setKeyOf(def.meanOver);
  const stdKey = setKeyOf(def.stdOver === 'none' ? def.meanOver : def.stdOver);
  if (def.unit === 'rows') {
    return rows.map((r, i) => ({ value: r.reward, rows: [i], set: meanKey(r), stdSet: stdKey(r) }));
  }
  const byTraj = groupIndices(rows, (r) => idKey([r.group, r.traj]));
  return [...byTraj.values()].map((idx) => ({
    value: mean(idx.map((i) => rows[i].reward)),
    rows: idx,
    set: meanKey(rows[idx[0]]),
    stdSet: stdKey(rows[idx[0]]),
  }));
}

/**
 * One advantage per row under the run's estimator, with the per-agent diagnostics of the metric
 * registry (core/metrics.ts). Row order changes nothing, to the last bit.
 */
export function computeAdvantages(
  rows: readonly AdvantageRow[],
  options: { estimator: EstimatorChoice } & Partial<AdvantageOptions>,
): AdvantageResult {
  const { advantages, counts } = estimateAdvantages(rows, options);
  return { advantages, stats: computeStats(rows, advantages, counts) };
}

/**
 * σ of each std set where it differs from the mean set (LitePPO's batch std under a group mean):
 * setStats' sigma under 'raw' singletons, so the unbiased std of the set's values, 1 for a set of
 * one (verl's convention), 0 for equal values.
 */
function stdSetSigmas(units: readonly Unit[]): Map<string, number> {
  const sigmas = new Map<string, number>();
  for (const [key, idx] of groupIndices(units, (u) => u.stdSet))
    sigmas.set(
      key,
      setStats(
        idx.map((j) => units[j].value),
        'raw',
        false,
      ).sigma,
    );
  return sigmas;
}

/**
 * The advantages alone, with the set counts the estimator makes while it normalizes: for a caller
 * that needs no per-agent diagnostics (the same-batch comparison of every estimator, rl/same-batch.ts).
 */
export function estimateAdvantages(
  rows: readonly AdvantageRow[],
  options: { estimator: EstimatorChoice } & Partial<AdvantageOptions>,
): { advantages: Float64Array; counts: SetCounts } {
  const def = estimatorDef(options.estimator, options);
  const normalizeStd = (options.normalizeStd ?? true) && def.stdOver !== 'none';
  const eps = options.eps ?? 1e-6;
  const singleton = options.singleton ?? 'raw';
  if (!Number.isFinite(eps) || eps < 0)
    throw new Error(`computeAdvantages: eps must be finite and ≥ 0, got ${eps}.`);
  if (!Object.hasOwn(SINGLETON_MODES, singleton)) {
    throw new Error(
      `computeAdvantages: unknown singleton mode '${String(singleton)}'. Valid: ${Object.keys(SINGLETON_MODES).join(', ')}.`,
    );
  }
  checkRewards(rows);

  // Partition units into normalization sets (the mean's).
  const units = buildUnits(rows, def);
  const sets = [...groupIndices(units, (u) => u.set).values()].map((idx) => idx.map((j) => units[j]));
  // PettingLLMs zeroes singletons only when some set in the batch has ≥ 2 members (docs/estimators.md#group-statistics).
  const batchHasPairs = sets.some((members) => members.length >= 2);
  // A std over its own set: the named estimators' one path when it is the mean's, bit for bit.
  const sigmas =
    normalizeStd && def.stdOver !== 'none' && !sameSets(def.stdOver, def.meanOver)
      ? stdSetSigmas(units)
      : null;

  // Normalize each set and broadcast each unit's advantage to its rows.
  const advantages = new Float64Array(rows.length);
  let singletons = 0;
  let zeroVariance = 0;
  for (const members of sets) {
    const values = members.map((u) => u.value);
    const st = setStats(values, singleton, batchHasPairs);
    if (members.length === 1) singletons++;
    else if (st.zero) zeroVariance++;
    for (const u of members) {
      // A std set of equal values has no spread to scale by: its units get 0, as a mean set's do.
      const sigma = sigmas?.get(u.stdSet);
      const a = normalize(
        u.value,
        sigma === undefined ? st : { ...st, sigma, zero: st.zero || sigma === 0 },
        normalizeStd,
        eps,
      );
      for (const i of u.rows) advantages[i] = a;
    }
  }

  const nSets = sets.length;
  const counts = {
    sets: nSets,
    singletonFrac: nSets === 0 ? NaN : singletons / nSets,
    zeroAdvFrac: nSets === 0 ? NaN : zeroVariance / nSets,
  };
  return { advantages, counts };
}
