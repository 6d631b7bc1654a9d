/**
 * Per-agent diagnostics of one advantage batch (docs/estimators.md#per-agent-diagnostics; docs/metrics.md#metrics) and their
 * flattening into metric keys built by `src/core/metrics.ts`. The amplification factor is the
 * Dr. MAS Lemma 4.2 quantity (σ_k² + (μ_k − μ)²)/σ²: agent k's E[A²] under a shared baseline.
 * Pure: no tfjs, no DOM, no Node APIs.
 */
import { ADVANTAGE_DIAGNOSTICS, agentKey, M, type AdvantageDiagnostic } from '../core/metrics';
import { groupIndices, idKey, type AdvantageRow } from './rows';
import { mean, populationVariance, unbiasedStd } from './stats';

/**
 * One agent's numbers for one batch, one field per entry of core/metrics.ts's
 * ADVANTAGE_DIAGNOSTICS (docs there). The amplification terms are explained at amplificationTerm.
 */
type AgentStats = { -readonly [F in keyof typeof ADVANTAGE_DIAGNOSTICS]: number };

/** The `stats` returned with every advantage batch. */
export interface AdvantageStats {
  /** Keyed by `String(agent)`, agents in order of first appearance. */
  agents: Record<string, AgentStats>;
  /** Number of normalization sets under the active estimator. */
  sets: number;
  /** Share of normalization sets with exactly one value. */
  singletonFrac: number;
  /** Share of normalization sets with ≥ 2 values, all equal (advantage 0, no signal). Disjoint from singletons. */
  zeroAdvFrac: number;
}

/** Batch-level part of the stats, counted by the estimator while it normalizes. */
export type SetCounts = Pick<AdvantageStats, 'sets' | 'singletonFrac' | 'zeroAdvFrac'>;

/** An agent with no rows in the batch: 0 calls, NaN elsewhere. */
const NO_ROWS = {
  ...Object.fromEntries(Object.keys(ADVANTAGE_DIAGNOSTICS).map((f) => [f, NaN])),
  calls: 0,
} as AgentStats;

type Baseline = 'traj' | 'rows';

/**
 * Agent k's term (σ_{k,q}² + (μ_{k,q} − μ_q)²)/σ_q² in one group q whose baseline values are `base`;
 * null if σ_q = 0. σ_{k,q}² is the population variance and μ_{k,q} the mean of agent k's row
 * rewards in q; μ_q and σ_q the mean and the UNBIASED std of `base`. Unbiased because that is the σ
 * vanilla GRPO divides by: with `base` the trajectory scores, the term is exactly the E[A²] agent
 * k's rows get under `grpo` with ε = 0 when every row carries its trajectory's reward (with `base`
 * all rows pooled, under `global-step`), and it is comparable with Dr. MAS's (n_k − 1)/n_k. A
 * synchronous agent (one row per trajectory, shared reward) scores (G − 1)/G, not 1.
 */
function amplificationTerm(rewardsOfK: readonly number[], base: readonly number[]): number | null {
  if (base.length < 2) return null;
  const sigma = unbiasedStd(base);
  if (!(sigma > 0)) return null;
  return (populationVariance(rewardsOfK) + (mean(rewardsOfK) - mean(base)) ** 2) / sigma ** 2;
}

/**
 * Each agent's amplification terms per baseline, one per prompt group with σ_q > 0 in which it
 * acts: `traj` against the group's trajectory scores (GRPO's statistics), `rows` against all of
 * its rows pooled (global-step's).
 */
function amplificationTerms(rows: readonly AdvantageRow[]): Map<string, Record<Baseline, number[]>> {
  const terms = new Map<string, Record<Baseline, number[]>>();
  for (const idx of groupIndices(rows, (r) => idKey([r.group])).values()) {
    const groupRows = idx.map((i) => rows[i]);
    const trajectories = groupIndices(groupRows, (r) => idKey([r.traj]));
    const base: Record<Baseline, number[]> = {
      traj: [...trajectories.values()].map((t) => mean(t.map((j) => groupRows[j].reward))),
      rows: groupRows.map((r) => r.reward),
    };
    for (const [agent, rowsOfK] of groupIndices(groupRows, (r) => String(r.agent))) {
      const values = rowsOfK.map((j) => groupRows[j].reward);
      let list = terms.get(agent);
      if (!list) terms.set(agent, (list = { traj: [], rows: [] }));
      for (const b of ['traj', 'rows'] as const) {
        const term = amplificationTerm(values, base[b]);
        if (term !== null) list[b].push(term);
      }
    }
  }
  return terms;
}

/**
 * Per row, whether its reward is its trajectory's score (the mean of the trajectory's rows'
 * rewards), up to the rounding of that mean: where it is for every row of an agent, its
 * amplification is its E[A²] under GRPO (amplificationTerm).
 */
function carriesScore(rows: readonly AdvantageRow[]): boolean[] {
  const carries: boolean[] = [];
  for (const idx of groupIndices(rows, (r) => idKey([r.group, r.traj])).values()) {
    const score = mean(idx.map((i) => rows[i].reward));
    for (const i of idx) carries[i] = Math.abs(rows[i].reward - score) <= 1e-9 * Math.max(1, Math.abs(score));
  }
  return carries;
}

/** Per-agent stats of a batch whose advantages are already computed (row order). */
export function computeStats(
  rows: readonly AdvantageRow[],
  advantages: Float64Array,
  counts: SetCounts,
): AdvantageStats {
  const terms = amplificationTerms(rows);
  const carries = carriesScore(rows);
  const agents: Record<string, AgentStats> = {};
  for (const [agent, idx] of groupIndices(rows, (r) => String(r.agent))) {
    const rewards = idx.map((i) => rows[i].reward);
    const adv = idx.map((i) => advantages[i]);
    const amp = terms.get(agent);
    agents[agent] = {
      calls: idx.length,
      rewardMean: mean(rewards),
      rewardStd: Math.sqrt(populationVariance(rewards)),
      advMean: mean(adv),
      advSqMean: mean(adv.map((a) => a * a)),
      advMin: adv.reduce((a, b) => Math.min(a, b)), // no spread: large batches overflow the stack
      advMax: adv.reduce((a, b) => Math.max(a, b)),
      amplification: amp?.traj.length ? mean(amp.traj) : NaN,
      amplificationRows: amp?.rows.length ? mean(amp.rows) : NaN,
      carried: idx.filter((i) => carries[i]).length / idx.length,
    };
  }
  return { agents, ...counts };
}

/**
 * Stats as metric key → number, named by docs/metrics.md#metrics. Pass `agents` (the run's configured
 * agent names) to get a fixed key set every step: an agent with no rows this batch emits calls 0
 * and NaN elsewhere (a gap in its charts, not a fake zero).
 */
export function statsToMetrics(stats: AdvantageStats, agents?: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of agents ?? Object.keys(stats.agents)) {
    const s = Object.hasOwn(stats.agents, name) ? stats.agents[name] : NO_ROWS;
    for (const [field, stat] of Object.entries(ADVANTAGE_DIAGNOSTICS))
      out[agentKey(name, stat)] = s[field as AdvantageDiagnostic];
  }
  out[M.singletonFrac] = stats.singletonFrac;
  out[M.zeroAdvFrac] = stats.zeroAdvFrac;
  return out;
}
