/**
 * Same-batch comparison: a run's own rows weighed by every estimator of the registry, with the
 * run's advantage options, beside the run's own advantages (rl/advantage.ts computes those, for
 * the update; this module reuses them). Two runs' curves can part because their estimators weigh the
 * same data differently, or because their policies drifted apart and sample different data; on one
 * batch only the first can happen. Per agent k and estimator e, over agent k's rows:
 *   mean    = mean of A_e
 *   sq_mean = E[A_e²] (what scales agent k's gradient, docs/estimators.md#the-amplification-factor)
 *   corr    = Pearson correlation of A_e with the run's own advantages (NaN if either is constant)
 * Pure: no tfjs, no DOM, no Node APIs.
 */
import type { AdvantageOptions } from '../core/config-sections';
import { defText, estimatorDef, type EstimatorChoice, type EstimatorName } from '../core/estimators';
import { agentSameBatchKey, sameBatchEstimators } from '../core/metrics';
import { estimateAdvantages } from './advantage';
import { groupIndices, type AdvantageRow } from './rows';
import { mean } from './stats';

interface SameBatchStats {
  mean: number;
  sqMean: number;
  corr: number;
}

/** Per estimator, per agent (keyed by `String(agent)`): that estimator's view of the batch. */
type SameBatch = Record<EstimatorName, Record<string, SameBatchStats>> & {
  custom?: Record<string, SameBatchStats>;
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
    sameBatchEstimators(own).map((estimator) => {
      const key = defKey(estimator);
      const advantages =
        known[estimator] ?? byDef.get(key) ?? estimateAdvantages(rows, { ...options, estimator }).advantages;
      byDef.set(key, advantages);
      return [estimator, advantages];
    }),
  ) as EveryEstimator;
}

/**
 * The same-batch comparison of one training step: every estimator's advantages on the step's rows,
 * and their metrics (`agent/<a>/shadow/…`) for the run's configured `agents`. `own` is the run's own
 * advantages, computed with `estimator` for the update: it is taken as it is (the same array in
 * `all`), and each other definition is computed once.
 */
export function sameBatchOfStep(
  rows: readonly AdvantageRow[],
  own: Float64Array,
  estimator: EstimatorChoice,
  options: Partial<AdvantageOptions>,
  agents: readonly string[],
): { all: EveryEstimator; metrics: Record<string, number> } {
  const all = everyEstimator(rows, options, { [estimator]: own }, estimator);
  return { all, metrics: sameBatchToMetrics(weighSameBatch(rows, own, all), agents) };
}

/**
 * Every estimator's advantages on `rows` (`all`, from everyEstimator), summarized per agent
 * against `own`, the run's own advantages in row order.
 */
export function weighSameBatch(
  rows: readonly AdvantageRow[],
  own: ArrayLike<number>,
  all: EveryEstimator,
): SameBatch {
  if (own.length !== rows.length)
    throw new Error(`weighSameBatch: ${own.length} own advantages for ${rows.length} rows`);
  const byAgent = [...groupIndices(rows, (r) => String(r.agent))];
  const out = {} as SameBatch;
  for (const [estimator, advantages] of Object.entries(all) as [EstimatorChoice, Float64Array][]) {
    const perAgent: Record<string, SameBatchStats> = (out[estimator] = {});
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
 * The same-batch statistics as metric keys `agent/<name>/shadow/<estimator>/{mean,sq_mean,corr}`.
 * With `agents` (the run's configured agents) the key set is fixed: an agent with no rows this
 * batch gets NaN.
 */
export function sameBatchToMetrics(stats: SameBatch, agents: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [estimator, perAgent] of Object.entries(stats) as [
    EstimatorChoice,
    Record<string, SameBatchStats>,
  ][]) {
    for (const agent of agents) {
      const s = perAgent[agent];
      out[agentSameBatchKey(agent, estimator, 'mean')] = s?.mean ?? NaN;
      out[agentSameBatchKey(agent, estimator, 'sq_mean')] = s?.sqMean ?? NaN;
      out[agentSameBatchKey(agent, estimator, 'corr')] = s?.corr ?? NaN;
    }
  }
  return out;
}
