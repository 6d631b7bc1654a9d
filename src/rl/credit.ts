/**
 * Per-agent credit from coalition outcomes: the counterfactual marginal contribution and the
 * Shapley value, after SHARP (arXiv 2602.08335). SHARP publishes no code; this is built from the
 * definitions, every choice said where it is made. Pure math over a value function v:
 *
 *   a coalition S ⊆ {0 … K−1} is a bitmask over the task's agents (task.agents order); v(S) is
 *   the trajectory's outcome when the agents in S act with their recorded outputs and every
 *   other agent gives its neutral default (src/tasks/replay.ts computes it). v(all) is the
 *   trajectory's own outcome; v(∅) the outcome of an all-neutral workflow.
 *
 *   counterfactual  c_k = v(all) − v(all ∖ {k})                          K replays
 *   shapley         φ_k = Σ_{S ⊆ N∖{k}} |S|!(K−|S|−1)!/K! · (v(S ∪ {k}) − v(S))
 *                   exact for K ≤ 3 (2^K − 1 replays); for K > 3 the mean marginal contribution
 *                   over M seeded uniform permutations, with its standard error sd/√M.
 *
 * Shapley values are efficient (Σ_k φ_k = v(all) − v(∅)) and symmetric (interchangeable agents get
 * equal values); the counterfactual credit is neither, but costs K replays at any K.
 * Pure: no tfjs, no DOM.
 */
import type { CreditName } from '../core/config-names';
import type { Prng } from '../core/prng';
import { mean, unbiasedStd } from './stats';

/** A set of agents as a bitmask over task.agents: bit k set = agent k keeps its recorded outputs. */
export type Coalition = number;

/** Largest K for which `shapley` enumerates every coalition (2^K − 1 replays per trajectory). */
const SHAPLEY_EXACT_MAX_AGENTS = 3;

/** One trajectory's credit per agent (task.agents order) and its Monte-Carlo standard error (0 when exact). */
interface Credit {
  credit: number[];
  se: number[];
}

export const fullCoalition = (K: number): Coalition => (1 << K) - 1;

/** What a mode needs to know: the coalitions to replay, and how their outcomes become credit. */
interface CreditPlan {
  /** Every coalition whose outcome `credit` reads, the full one included (its outcome is the trajectory's own). */
  coalitions: Coalition[];
  credit(v: (s: Coalition) => number): Credit;
}

/** c_k = v(all) − v(all ∖ {k}). */
export function counterfactualPlan(K: number): CreditPlan {
  const all = fullCoalition(K);
  const without = Array.from({ length: K }, (_, k) => all & ~(1 << k));
  return {
    coalitions: [all, ...without],
    credit: (v) => ({ credit: without.map((s) => v(all) - v(s)), se: new Array<number>(K).fill(0) }),
  };
}

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));
const popcount = (s: number): number => (s === 0 ? 0 : (s & 1) + popcount(s >>> 1));

/** The exact Shapley value from all 2^K coalitions. */
export function shapleyExactPlan(K: number): CreditPlan {
  const coalitions = Array.from({ length: 1 << K }, (_, s) => s);
  return {
    coalitions,
    credit: (v) => {
      const credit = Array.from({ length: K }, (_, k) => {
        let phi = 0;
        for (const s of coalitions) {
          if (s & (1 << k)) continue;
          const n = popcount(s);
          phi += ((factorial(n) * factorial(K - n - 1)) / factorial(K)) * (v(s | (1 << k)) - v(s));
        }
        return phi;
      });
      return { credit, se: new Array<number>(K).fill(0) };
    },
  };
}

/**
 * The Monte-Carlo permutation estimate (Castro et al. 2009): for each of `samples` uniform
 * permutations drawn from `rng`, agent k's marginal contribution v(P ∪ {k}) − v(P), P = the agents
 * before k; φ_k = their mean, se_k = their unbiased std / √M. Each permutation costs at most K new
 * coalitions; coalitions two permutations share are replayed once.
 */
export function shapleyPermutationPlan(K: number, samples: number, rng: Prng): CreditPlan {
  const agents = Array.from({ length: K }, (_, k) => k);
  const perms = Array.from({ length: samples }, () => rng.shuffle(agents));
  const coalitions = new Set<Coalition>();
  for (const p of perms) {
    let s = 0;
    coalitions.add(s);
    for (const k of p) coalitions.add((s |= 1 << k));
  }
  return {
    coalitions: [...coalitions],
    credit: (v) => {
      const marginals = agents.map(() => [] as number[]);
      for (const p of perms) {
        let s = 0;
        for (const k of p) {
          const before = v(s);
          s |= 1 << k;
          marginals[k].push(v(s) - before);
        }
      }
      return {
        credit: marginals.map((m) => mean(m)),
        se: marginals.map((m) => (m.length < 2 ? 0 : unbiasedStd(m) / Math.sqrt(m.length))),
      };
    },
  };
}

/** The plan of a credit mode for a K-agent task; null for `shared` (no replays, no credit). */
export function creditPlan(
  mode: CreditName,
  K: number,
  o: { samples: number; rng: Prng },
): CreditPlan | null {
  if (mode === 'shared') return null;
  if (mode === 'counterfactual') return counterfactualPlan(K);
  return K <= SHAPLEY_EXACT_MAX_AGENTS ? shapleyExactPlan(K) : shapleyPermutationPlan(K, o.samples, o.rng);
}
