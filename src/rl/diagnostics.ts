/**
 * Per-agent diagnostics of one advantage batch (algorithms.md §8; DESIGN.md metric table) and their
 * flattening into metric keys built by `src/core/metrics.ts`. The amplification factor is the
 * Dr. MAS Lemma 4.2 quantity (σ_k² + (μ_k − μ)²)/σ²: agent k's E[A²] under a shared baseline.
 * Pure: no tfjs, no DOM, no Node APIs.
 */
import { agentKey, M, type AgentStat } from '../core/metrics';
import { groupIndices, idKey, type AdvantageRow } from './rows';
import { mean, populationVariance, unbiasedStd } from './stats';

/** One agent's numbers for one batch. NaN where undefined (no rows, no group with σ > 0). */
export interface AgentStats {
  /** n_k: rows of this agent in the batch. */
  calls: number;
  /** μ_k: mean reward over all of this agent's rows in the batch (pooled across groups). */
  rewardMean: number;
  /** σ_k: population std (÷n_k) of the same rows, the σ_k of Lemma 4.2. */
  rewardStd: number;
  /** Mean advantage over this agent's rows. */
  advMean: number;
  /** E[A²] over this agent's rows. */
  advSqMean: number;
  advMin: number;
  advMax: number;
  /**
   * Mean over prompt groups q with σ_q > 0 in which the agent acts of
   *   (σ_{k,q}² + (μ_{k,q} − μ_q)²) / σ_q²,
   * σ_{k,q}² the population variance and μ_{k,q} the mean of agent k's row rewards in q;
   * μ_q and σ_q the mean and the UNBIASED std of q's trajectory scores (mean of each
   * trajectory's rows). Unbiased because that is the σ vanilla GRPO divides by: each group's term
   * is then exactly the E[A²] agent k's rows get under `grpo` with ε = 0 when every row carries
   * its trajectory's reward, and it is comparable with Dr. MAS's (n_k − 1)/n_k. A synchronous
   * agent (one row per trajectory, shared reward) scores (G − 1)/G, not 1.
   */
  amplification: number;
  /**
   * The same with global-step's baseline (issue 81): μ_q and σ_q the mean and unbiased std of
   * all of q's row rewards pooled, every agent's rows. Each group's term is exactly the E[A²]
   * agent k's rows get under `global-step` with ε = 0.
   */
  amplificationRows: number;
}

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

const NO_ROWS: AgentStats = {
  calls: 0,
  rewardMean: NaN,
  rewardStd: NaN,
  advMean: NaN,
  advSqMean: NaN,
  advMin: NaN,
  advMax: NaN,
  amplification: NaN,
  amplificationRows: NaN,
};

type Baseline = 'traj' | 'rows';

/** Agent k's term (σ_k² + (μ_k − μ)²)/σ² in one group whose baseline values are `base`; null if σ = 0. */
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

/** Per-agent stats of a batch whose advantages are already computed (row order). */
export function computeStats(
  rows: readonly AdvantageRow[],
  advantages: Float64Array,
  counts: SetCounts,
): AdvantageStats {
  const terms = amplificationTerms(rows);
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
    };
  }
  return { agents, ...counts };
}

/** Which metric name each field is emitted under (`agent/<name>/<stat>`). */
const METRIC_OF: Record<keyof AgentStats, AgentStat> = {
  calls: 'calls',
  rewardMean: 'reward/mean',
  rewardStd: 'reward/std',
  advMean: 'adv/mean',
  advSqMean: 'adv/sq_mean',
  advMin: 'adv/min',
  advMax: 'adv/max',
  amplification: 'amplification',
  amplificationRows: 'amplification_rows',
};

/**
 * Stats as metric key → number, named by DESIGN.md's table. Pass `agents` (the run's configured
 * agent names) to get a fixed key set every step: an agent with no rows this batch emits calls 0
 * and NaN elsewhere (a gap in its charts, not a fake zero).
 */
export function statsToMetrics(stats: AdvantageStats, agents?: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of agents ?? Object.keys(stats.agents)) {
    const s = Object.hasOwn(stats.agents, name) ? stats.agents[name] : NO_ROWS;
    for (const field of Object.keys(METRIC_OF) as (keyof AgentStats)[])
      out[agentKey(name, METRIC_OF[field])] = s[field];
  }
  out[M.singletonFrac] = stats.singletonFrac;
  out[M.zeroAdvFrac] = stats.zeroAdvFrac;
  return out;
}
