/**
 * Same-batch ("shadow") comparison: a run's own rows weighed by every estimator of the registry,
 * with the run's advantage options. Two runs' curves can part because their estimators weigh the
 * same data differently, or because their policies drifted apart and sample different data; on one
 * batch only the first can happen. Per agent k and estimator e, over agent k's rows:
 *   mean    = mean of A_e
 *   sq_mean = E[A_e²] (what scales agent k's gradient, docs/estimators.md#the-amplification-factor)
 *   corr    = Pearson correlation of A_e with the run's own advantages (NaN if either is constant)
 * Pure: no tfjs, no DOM, no Node APIs.
 */
import type { AdvantageOptions, EstimatorChoice, EstimatorName } from '../core/config';
import { agentShadowKey, shadowEstimators } from '../core/metrics';
import {
  computeAdvantages,
  defText,
  estimateAdvantages,
  estimatorDef,
  type AdvantageResult,
} from './advantage';
import { statsToMetrics } from './diagnostics';
import { groupIndices, type AdvantageRow } from './rows';
import { mean } from './stats';

export interface ShadowStats {
  mean: number;
  sqMean: number;
  corr: number;
}

/** Per estimator, per agent (keyed by `String(agent)`): that estimator's view of the batch. */
export type Shadow = Record<EstimatorName, Record<string, ShadowStats>> & {
  custom?: Record<string, ShadowStats>;
};
/** Advantages in row order, per estimator weighed: every named one, and a custom run's own. */
export type EveryEstimator = Record<EstimatorName, Float64Array> & { custom?: Float64Array };

/**
 * Pearson correlation, cov / sqrt(var_x · var_y). Written so that identical inputs give exactly 1:
 * cov and both variances are then the same sums, and sqrt(v · v) is v in IEEE arithmetic.
 */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  if (n !== y.length) throw new Error(`pearson: ${n} values against ${y.length}`);
  if (n < 2) return NaN;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    cov += dx * dy;
    vx += dx * dx;
    vy += dy * dy;
  }
  return vx > 0 && vy > 0 ? cov / Math.sqrt(vx * vy) : NaN;
}

/**
 * Every estimator's advantages on `rows`, in row order, with the run's options (std, eps,
 * singleton, and a custom estimator's sets): the named ones, and `custom` when `own` is. `known`
 * holds advantages already computed on these rows with these options (the run's own, for its
 * update): they are taken as they are, not computed again.
 */
export function everyEstimator(
  rows: readonly AdvantageRow[],
  options: Partial<AdvantageOptions>,
  known: Partial<EveryEstimator> = {},
  own: EstimatorChoice = 'grpo',
): EveryEstimator {
  // Estimators of one definition (mars2 and global-step are both rows; group; group) give the same
  // advantages on the same rows and options: each definition is computed once.
  const byDef = new Map<string, Float64Array>();
  const defKey = (estimator: EstimatorChoice) => defText(estimatorDef(estimator, options));
  for (const [estimator, advantages] of Object.entries(known) as [EstimatorChoice, Float64Array][])
    byDef.set(defKey(estimator), advantages);
  return Object.fromEntries(
    shadowEstimators(own).map((estimator) => {
      const key = defKey(estimator);
      const advantages =
        known[estimator] ?? byDef.get(key) ?? estimateAdvantages(rows, { ...options, estimator }).advantages;
      byDef.set(key, advantages);
      return [estimator, advantages];
    }),
  ) as EveryEstimator;
}

/**
 * One batch's advantages as a training step needs them, each estimator computed once: the run's
 * own (`estimator`, with its per-agent stats, for the update), every estimator's on the same rows
 * (the run's own among them, the same array), and their metrics — the run's `adv/…`, `groups/…` and
 * every estimator's `shadow/…` — for the run's configured `agents`.
 */
export function batchAdvantages(
  rows: readonly AdvantageRow[],
  estimator: EstimatorChoice,
  options: Partial<AdvantageOptions>,
  agents: readonly string[],
): { own: AdvantageResult; all: EveryEstimator; metrics: Record<string, number> } {
  const own = computeAdvantages(rows, { ...options, estimator });
  const all = everyEstimator(rows, options, { [estimator]: own.advantages }, estimator);
  const metrics = {
    ...statsToMetrics(own.stats, agents),
    ...shadowToMetrics(shadowAdvantages(rows, own.advantages, all), agents),
  };
  return { own, all, metrics };
}

/**
 * Every estimator's advantages on `rows` (`all`, from everyEstimator), summarized per agent
 * against `own`, the run's own advantages in row order.
 */
export function shadowAdvantages(
  rows: readonly AdvantageRow[],
  own: ArrayLike<number>,
  all: EveryEstimator,
): Shadow {
  if (own.length !== rows.length)
    throw new Error(`shadowAdvantages: ${own.length} own advantages for ${rows.length} rows`);
  const byAgent = [...groupIndices(rows, (r) => String(r.agent))];
  const out = {} as Shadow;
  for (const [estimator, advantages] of Object.entries(all) as [EstimatorChoice, Float64Array][]) {
    const perAgent: Record<string, ShadowStats> = (out[estimator] = {});
    for (const [agent, idx] of byAgent) {
      const a = idx.map((i) => advantages[i]);
      perAgent[agent] = {
        mean: mean(a),
        sqMean: mean(a.map((x) => x * x)), // the same reduction as adv/sq_mean: equal for the run's own estimator
        corr: pearson(
          a,
          idx.map((i) => own[i]),
        ),
      };
    }
  }
  return out;
}

/**
 * The shadow as metric keys `agent/<name>/shadow/<estimator>/{mean,sq_mean,corr}`. With `agents`
 * (the run's configured agents) the key set is fixed: an agent with no rows this batch gets NaN.
 */
export function shadowToMetrics(shadow: Shadow, agents: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [estimator, perAgent] of Object.entries(shadow) as [
    EstimatorChoice,
    Record<string, ShadowStats>,
  ][]) {
    for (const agent of agents) {
      const s = perAgent[agent];
      out[agentShadowKey(agent, estimator, 'mean')] = s?.mean ?? NaN;
      out[agentShadowKey(agent, estimator, 'sq_mean')] = s?.sqMean ?? NaN;
      out[agentShadowKey(agent, estimator, 'corr')] = s?.corr ?? NaN;
    }
  }
  return out;
}
