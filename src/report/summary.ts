/**
 * One run's summary, computed from its recorded metric history (one record per step), so that the
 * CLI (`lab train`, `lab report`) and the page's Findings view report the same numbers: the last
 * evaluation, the training reward over the last N steps, per agent the median and maximum
 * pre-clip gradient norm and the spike fraction (steps above 3× the running median,
 * src/rl/stats.ts) and, where the task tells it, the agent's own success over the last N steps,
 * and the skipped updates; under mcts, the search's best node and each agent's nodes per tree. Pure: no tfjs, no DOM, no Node APIs.
 */
import { agentKey, evalAvgKey, evalPassKey, GRAD_NORM, M, MCTS_KEYS } from '../core/metrics';
import { gradSpikes } from '../rl/stats';

/** Steps whose training reward is averaged for the `reward (last N)` figure, unless told otherwise. */
export const REWARD_TAIL = 10;

interface AgentSummary {
  gradNormMedian: number;
  gradNormMax: number;
  /** Steps above 3× the running median of the agent's earlier finite grad norms. */
  spikes: number;
  /** spikes / steps recorded. */
  spikeFrac: number;
  /**
   * Mean of agent/<a>/own_success over the last `rewardTail` steps that recorded it: "did this
   * agent do its own part", so the sweep map can say whose learning slowed. NaN where the task
   * does not tell an agent's part.
   */
  ownSuccess: number;
  /** The last recorded agent/<a>/eval_own_success: its own success on held-out questions (NaN if none). */
  evalOwnSuccess: number;
  /** Mean of agent/<a>/nodes over the last `rewardTail` steps: its share of a search tree (NaN off mcts). */
  nodes: number;
}

export interface RunSummary {
  run: string;
  seed: number;
  steps: number;
  /** The k of avg@k / pass@k. */
  evalK: number;
  /** Last recorded eval/avg@k and eval/pass@k (NaN if never evaluated). */
  evalAvg: number;
  evalPass: number;
  /** Mean of reward/mean over the last `rewardTail` steps. */
  finalReward: number;
  /**
   * Under mcts, means over the last `rewardTail` steps of rollout/tree_best and rollout/tree_solved:
   * what a search found, its best node (NaN for a run that does not search).
   */
  treeBest: number;
  treeSolved: number;
  rewardTail: number;
  /** Model updates skipped for a non-finite loss, gradient or weights, summed over steps. */
  skippedUpdates: number;
  envErrors: number;
  agents: Record<string, AgentSummary>;
}

/** Median of the finite values; NaN if there are none. */
export function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/** How a figure reads its metric's column: its last finite value, the mean of the last `rewardTail` finite values, or the sum of them all. */
type Reduce = 'last' | 'tail' | 'sum';

/**
 * The run's figures: each one metric key and how it is read. The one list of them: `summarize`
 * computes these and `summaryKeys` names their keys, so a figure is added in one place.
 */
const runFigures = (evalK: number) =>
  ({
    evalAvg: [evalAvgKey(evalK), 'last'],
    evalPass: [evalPassKey(evalK), 'last'],
    finalReward: [M.rewardMean, 'tail'],
    treeBest: [MCTS_KEYS.treeBest, 'tail'],
    treeSolved: [MCTS_KEYS.treeSolved, 'tail'],
    skippedUpdates: [M.updateSkipped, 'sum'],
    envErrors: [M.envErrors, 'sum'],
  }) satisfies Record<string, [string, Reduce]>;

/** Each agent's keys: its pre-clip gradient norm (median, max, spikes) and, over the tail, its own success and nodes. */
const agentKeys = (agent: string) => ({
  gradNorm: agentKey(agent, GRAD_NORM),
  ownSuccess: agentKey(agent, 'own_success'),
  evalOwnSuccess: agentKey(agent, 'eval_own_success'),
  nodes: agentKey(agent, 'nodes'),
});

/** The metric keys a summary reads, so a caller holding whole frames reads only these (the page's Findings and Map). */
export const summaryKeys = (agents: readonly string[], evalK: number): string[] => [
  ...Object.values(runFigures(evalK)).map(([key]) => key),
  ...agents.flatMap((a) => Object.values(agentKeys(a))),
];

export function summarize(
  run: string,
  seed: number,
  history: readonly Record<string, number>[],
  agents: readonly string[],
  evalK: number,
  rewardTail = REWARD_TAIL,
): RunSummary {
  const col = (key: string) => history.map((m) => m[key] ?? NaN);
  const finite = (key: string) => col(key).filter(Number.isFinite);
  const tailMean = (key: string) => {
    const xs = col(key).slice(-rewardTail).filter(Number.isFinite);
    return xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : NaN;
  };
  const read: Record<Reduce, (key: string) => number> = {
    last: (key) => finite(key).at(-1) ?? NaN,
    tail: tailMean,
    sum: (key) => finite(key).reduce((a, x) => a + x, 0),
  };
  const figures = Object.fromEntries(
    Object.entries(runFigures(evalK)).map(([name, [key, reduce]]) => [name, read[reduce](key)]),
  ) as Record<keyof ReturnType<typeof runFigures>, number>;
  return {
    run,
    seed,
    steps: history.length,
    evalK,
    ...figures,
    rewardTail,
    agents: Object.fromEntries(
      agents.map((a) => {
        const keys = agentKeys(a);
        const g = col(keys.gradNorm);
        const gFinite = g.filter(Number.isFinite);
        const spikes = gradSpikes(g).length;
        return [
          a,
          {
            gradNormMedian: median(g),
            gradNormMax: gFinite.length ? gFinite.reduce((x, y) => Math.max(x, y)) : NaN,
            spikes,
            spikeFrac: history.length ? spikes / history.length : NaN,
            ownSuccess: tailMean(keys.ownSuccess),
            evalOwnSuccess: finite(keys.evalOwnSuccess).at(-1) ?? NaN,
            nodes: tailMean(keys.nodes),
          },
        ];
      }),
    ),
  };
}

/** The runs' recorded step counts in words: "3" when alike, "2–3" when not (the page's Findings and `lab report`). */
export function stepSpan(summaries: readonly { steps: number }[]): string {
  const steps = summaries.map((s) => s.steps);
  const [fewest, most] = [Math.min(...steps), Math.max(...steps)];
  return fewest === most ? String(fewest) : `${fewest}–${most}`;
}

/** The eval K all these runs share, or 'K' when they differ (imported runs carry their own). */
export function sharedEvalK(summaries: readonly RunSummary[]): number | 'K' {
  const ks = new Set(summaries.map((s) => s.evalK).filter(Number.isFinite));
  return ks.size === 1 ? [...ks][0] : 'K';
}

/**
 * True when every model update of the run was skipped (non-finite loss, gradient or weights): the
 * run recorded lines but never trained. `models` is the number of models each step updates.
 */
export function trainedNothing(s: RunSummary, models: number): boolean {
  return s.steps > 0 && s.skippedUpdates >= s.steps * models;
}
