/**
 * Advantage estimators of the GRPO family, one registry keyed by name (DESIGN.md "Estimator API";
 * algorithms.md §2–§4). Rows in, one advantage per row out, plus per-agent diagnostics. Every
 * estimator is "which values form a normalization set" + the §2 group statistics; nothing else
 * differs. Pure: no tfjs, no DOM, no Node APIs.
 */
import { SINGLETON_MODES, type AdvantageOptions, type EstimatorName } from '../core/config';
import { computeStats, type AdvantageStats, type SetCounts } from './diagnostics';
import { groupIndices, idKey, type AdvantageRow, type RowId } from './rows';
import { mean, normalize, setStats } from './stats';

export type { AdvantageRow, RowId } from './rows';

/** One registry entry: what is normalized together, and whether the std divides. */
export interface EstimatorSpec {
  /** The name people know it by, for chart titles and legends (the key is the config's name). */
  label: string;
  /** Normalization set, formula in the paper's notation, and the reference it follows. */
  doc: string;
  /** 'rows': every row's reward is a value; 'trajectories': one value per (group, traj), the mean of its rows. */
  over: 'rows' | 'trajectories';
  /** The ids that name a row's normalization set. */
  setKey: (row: AdvantageRow) => readonly RowId[];
  /** false: mean baseline only, whatever `normalizeStd` says. */
  std: boolean;
}

/** The estimators, one per name of `ESTIMATOR_NAMES` (core/config): the compiler wants an entry for each. */
export const ESTIMATORS = {
  grpo: {
    label: 'GRPO',
    doc:
      'Vanilla GRPO as the Dr. MAS repo runs it (group_by_agent_id=False; ray_trainer.py::compute_advantage). ' +
      "Set: prompt group q over its G trajectories. s̄_i = mean of trajectory i's row rewards; " +
      'A_i = (s̄_i − μ_q)/(σ_q + ε) with μ_q, σ_q over {s̄_1..s̄_G}; every row of trajectory i gets A_i. (algorithms.md §3.1) ' +
      "Tree sampling: runs, but not meaningful: branch i is no trajectory (each level continues from the chosen sibling, not from branch i's own), so s̄_i averages unrelated candidates.",
    over: 'trajectories',
    setKey: (r) => [r.group],
    std: true,
  },
  drmas: {
    label: 'Dr. MAS',
    doc:
      'Dr. MAS agent-wise normalization (arXiv 2602.08847; group_by_agent_id=True, key uid_agentId). ' +
      'Set Y_k(q): every row of agent k over the G rollouts of prompt q, steps not trajectories. ' +
      'A_y = (r_y − μ_k)/(σ_k + ε) with μ_k, σ_k over Y_k(q). (algorithms.md §3.2) ' +
      "Tree sampling: an agent-wise baseline over all of the agent's candidates in the tree, pooled across its turns: sound where its turn rewards share one scale, but no per-state baseline.",
    over: 'rows',
    setKey: (r) => [r.group, r.agent],
    std: true,
  },
  atgrpo: {
    label: 'AT-GRPO',
    doc:
      'AT-GRPO (PettingLLMs, arXiv 2510.11062), its documented intent: set = (prompt q, agent k, turn t), ' +
      'the candidates of one agent at one turn. A_y = (r_y − μ_{q,k,t})/(σ_{q,k,t} + ε). (algorithms.md §3.4) ' +
      'Tree sampling is what it is built for: each set is the G siblings sampled from one state, never a singleton; under parallel sampling the sets mix states from turn 1 on.',
    over: 'rows',
    setKey: (r) => [r.group, r.agent, r.turn],
    std: true,
  },
  'global-step': {
    label: 'global step-level',
    doc:
      'Global step-level ablation (Dr. MAS issue #81, "Mechanism B" without the per-agent split): ' +
      'set = prompt q over all rows of all agents, no trajectory averaging. ' +
      'A_y = (r_y − mean(rows_q))/(std(rows_q) + ε). (algorithms.md §3.3) ' +
      'Tree sampling: one baseline over every candidate of every level and agent: runs, but mixes states and agents.',
    over: 'rows',
    setKey: (r) => [r.group],
    std: true,
  },
  magrpo: {
    label: 'MAGRPO',
    doc:
      'MAGRPO (CoMLRL, arXiv 2508.04652) mean baseline, REINFORCE-style: set = (prompt q, agent k, turn t); ' +
      'A_y = r_y − μ_{q,k,t}, never divided by a std. (algorithms.md §3.6; comlrl magrpo.py _compute_advantages "mean") ' +
      'Tree sampling: meaningful, its own setting: the G siblings of one node share the mean baseline.',
    over: 'rows',
    setKey: (r) => [r.group, r.agent, r.turn],
    std: false,
  },
} as const satisfies Record<EstimatorName, EstimatorSpec>; // every name the config accepts

export interface AdvantageResult {
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

/**
 * Units are the values an estimator normalizes: single rows, or whole trajectories whose value is
 * the mean of their rows' rewards. Each unit remembers the rows that receive its advantage.
 */
interface Unit {
  value: number;
  rows: number[];
  set: string;
}

function buildUnits(rows: readonly AdvantageRow[], spec: EstimatorSpec): Unit[] {
  if (spec.over === 'rows') {
    return rows.map((r, i) => ({ value: r.reward, rows: [i], set: idKey(spec.setKey(r)) }));
  }
  const byTraj = groupIndices(rows, (r) => idKey([r.group, r.traj]));
  return [...byTraj.values()].map((idx) => ({
    value: mean(idx.map((i) => rows[i].reward)),
    rows: idx,
    set: idKey(spec.setKey(rows[idx[0]])),
  }));
}

/**
 * One advantage per row under the named estimator (DESIGN.md "Estimator API"), with the
 * per-agent diagnostics of algorithms.md §8. Row order changes nothing, to the last bit.
 */
export function computeAdvantages(
  rows: readonly AdvantageRow[],
  options: { estimator: EstimatorName } & Partial<AdvantageOptions>,
): AdvantageResult {
  const { advantages, counts } = estimateAdvantages(rows, options);
  return { advantages, stats: computeStats(rows, advantages, counts) };
}

/**
 * The advantages alone, with the set counts the estimator makes while it normalizes: for a caller
 * that needs no per-agent diagnostics (the same-batch comparison of every estimator, rl/shadow.ts).
 */
export function estimateAdvantages(
  rows: readonly AdvantageRow[],
  options: { estimator: EstimatorName } & Partial<AdvantageOptions>,
): { advantages: Float64Array; counts: SetCounts } {
  const spec = getEstimator(options.estimator);
  const normalizeStd = (options.normalizeStd ?? true) && spec.std;
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

  // Partition units into normalization sets.
  const units = buildUnits(rows, spec);
  const sets = [...groupIndices(units, (u) => u.set).values()].map((idx) => idx.map((j) => units[j]));
  // PettingLLMs zeroes singletons only when some set in the batch has ≥ 2 members (§2).
  const batchHasPairs = sets.some((members) => members.length >= 2);

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
      const a = normalize(u.value, st, normalizeStd, eps);
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
