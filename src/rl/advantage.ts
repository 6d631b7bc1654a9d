/**
 * The advantages of one batch under a run's estimator (docs/estimator-algebra.md#estimator-algebra):
 * rows in, one advantage per row out, plus per-agent diagnostics. Every estimator is an instance
 * of one algebra: a unit (rows or trajectories), the set its mean is taken over and the set its std
 * is taken over (or none), with the group statistics of rl/stats.ts; nothing else differs. The
 * estimators themselves, their names, labels and docs, are entries of core/estimators.ts; this
 * module holds only the computation. Pure: no tfjs, no DOM, no Node APIs.
 */
import { keyedSets, sameSets, type AdvantageSet, type EstimatorDef } from '../core/advantage-sets';
import { SINGLETON_MODES } from '../core/config-names';
import type { AdvantageOptions } from '../core/config-sections';
import { lookup } from '../core/registry';
import { estimatorDef, type EstimatorChoice } from '../core/estimators';
import { computeStats, type AdvantageStats, type SetCounts } from './diagnostics';
import { groupIndices, idKey, type AdvantageRow } from './rows';
import { mean, normalize, setStats } from './stats';

export type { AdvantageRow } from './rows';

interface AdvantageResult {
  /** One advantage per row, in row order. */
  advantages: Float64Array;
  stats: AdvantageStats;
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
  lookup(SINGLETON_MODES, 'singleton mode', String(singleton));
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
