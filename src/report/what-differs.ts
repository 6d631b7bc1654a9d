/**
 * "What differs", per agent and in plain words, read from one run's own same-batch diagnostics
 * (rl/same-batch.ts, rl/diagnostics.ts): how far GRPO's one baseline mis-scales the agent's advantages,
 * how closely GRPO's and Dr. MAS's advantages agree on the same rows, and what that does to the
 * agent's share of the gradient. Works at seeds = 1: both estimators weigh the same batches, so no
 * spread between seeds is needed to see how they differ. Pure: metric rows in, sentences out.
 */
import type { Experiment } from '../core/config';
import { groupScores, resolveRun } from '../core/config-run';
import type { Run } from '../core/config-run';
import type { EstimatorChoice } from '../core/estimators';
import { agentKey, agentSameBatchKey, GRAD_NORM, M, SAME_BATCH_STATS } from '../core/metrics';

/** The two estimators the lab's question compares. */
const PAIR = ['grpo', 'drmas'] as const;

/** Batches the card summarizes by default: the run's last 20 steps. */
export const DIFFERS_WINDOW = 20;

export interface AgentDifference {
  agent: string;
  /** Mean over the batches of the agent's amplification (GRPO's E[A²] factor; NaN if never defined). */
  amplification: number;
  /** Mean over the batches of the share of its rows that carry their trajectory's score (NaN where not recorded). */
  carried: number;
  /** √(E[A²] under Dr. MAS / E[A²] under GRPO), pooled over the batches: Dr. MAS's advantage scale in GRPO's units. */
  scale: number;
  /** Each estimator's advantage scale, √E[A²] pooled over the batches: the card's paired bars. */
  rms: { grpo: number; drmas: number };
  /** Mean over the batches of the correlation of the two estimators' advantages on its rows (NaN when not measured). */
  corr: number;
  /** Dr. MAS's pre-clip gradient norm over GRPO's at the same weights (NaN without diagnostics.shadowGradNorm). */
  gradRatio: number;
  sentence: string;
}

/** What differs between the two estimators on one run's batches: the What differs card's content. */
export interface RunDifferences {
  /** First and last step summarized. */
  steps: [number, number];
  /** Every agent got exactly the same advantages from both estimators on every batch. */
  identical: boolean;
  /** The card's lead: which batches, and the identical case with why. */
  summary: string;
  /** What the agent's rewards are set against, in the batch's own nouns (trajectories, or a tree's nodes). */
  scores: string;
  agents: AgentDifference[];
}

const finite = (xs: number[]) => xs.filter(Number.isFinite);
const meanOf = (xs: number[]) => {
  const f = finite(xs);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
};
const f2 = (x: number) => x.toFixed(2);

/** The direction the correlation leaves the agent's gradient in, in words. */
function direction(corr: number): string {
  if (!Number.isFinite(corr)) return '';
  if (corr >= 0.99) return ', in the same direction';
  if (corr >= 0.9) return ', in nearly the same direction';
  if (corr >= 0.5) return ', in a partly different direction';
  return ', in a different direction';
}

/**
 * The card's nouns for the run's batches: a group of parallel or tree sampling holds trajectories
 * with their scores; under rollout.sampling=mcts a group is one search tree of nodes, and no row
 * belongs to a trajectory of G rollouts.
 */
const DIFFERS_WORDS = {
  trajectories: {
    scores: 'its groups’ trajectory scores',
    tied: 'its groups’ rollouts tied',
    carry: 'the trajectory scores',
    one: 'trajectory',
    its: 'its trajectory’s',
  },
  nodes: {
    scores: 'the node scores of its trees',
    tied: 'the nodes of its trees tied',
    carry: 'their nodes’ scores',
    one: 'node',
    its: 'its node’s',
  },
} as const;
type Words = (typeof DIFFERS_WORDS)[keyof typeof DIFFERS_WORDS];

/** Every row, up to the rounding of a mean over batches: below this, amplification does not apply. */
const CARRIED = 1 - 1e-9;

const AGREE = (corr: number) =>
  corr >= 0.99 ? 'almost exactly' : corr >= 0.9 ? 'closely' : corr >= 0.5 ? 'partly' : 'little';

/**
 * Amplification in words, after the measured scale. It predicts GRPO's E[A²] for the agent only
 * where every one of its rows carries its trajectory's reward (docs/estimators.md#the-amplification-factor):
 * there it is said with where the rewards sit; elsewhere (own rewards, a dial, a per-row penalty)
 * one clause says why it does not apply, and the number, which would contradict the measured
 * scale, is left to its chart. Rows that carry exactly the scores score (G − 1)/G, not 1 (the std
 * is the unbiased one), so the bands are around that level when the group's size G is known: 0.75
 * at G = 4 is "where the scores are", not "narrower".
 */
function amplificationWords(amp: number, carried: number, w: Words, groupSize?: number): string {
  if (!Number.isFinite(amp)) return 'Its amplification is undefined: none of its groups had spread rewards';
  if (carried < CARRIED)
    return `Amplification does not apply to it: ${carried === 0 ? 'none' : `only ${Math.round(carried * 100)} %`} of its rows carry their ${w.one}’s reward, while GRPO weighs every row by ${w.its} score`;
  const level = groupSize && groupSize > 1 ? (groupSize - 1) / groupSize : 1;
  const where =
    amp > 1.25 * level
      ? `its rewards sit off-centre from, or spread wider than, ${w.scores}`
      : amp < 0.8 * level
        ? `its rewards spread narrower than ${w.scores}`
        : `its rewards sit about where ${w.scores} do`;
  // Runs recorded before traj_reward_share existed (or imported) do not say whether rows carried it.
  const when = Number.isFinite(carried)
    ? `its rows carry their ${w.one}’s reward, so this is GRPO’s E[A²] for it`
    : `it predicts GRPO’s E[A²] for it only if its rows carry their ${w.one}’s reward, which this run did not record`;
  return `Its amplification is ${f2(amp)} (${when}): ${where}`;
}

function describeAgent(
  d: Omit<AgentDifference, 'sentence'> & { tied: boolean },
  own: EstimatorChoice,
  w: Words,
  groupSize?: number,
  /** The card's lead already says amplification applies to no agent: no clause per agent. */
  ampSaid = false,
): string {
  const amp = ampSaid ? '' : ` ${amplificationWords(d.amplification, d.carried, w, groupSize)}.`;
  if (!Number.isFinite(d.scale))
    return d.tied
      ? `Every advantage the ${d.agent} agent got on these batches is 0 under both estimators: ${w.tied}, so there is nothing to weigh.`
      : `The ${d.agent} agent has no rows on these batches.`;
  const agree = Number.isFinite(d.corr)
    ? `the two agree ${AGREE(d.corr)} on its rows (correlation ${f2(d.corr)})`
    : `their agreement is measured only against this run’s own estimator (${own})`;
  const grad = Number.isFinite(d.gradRatio)
    ? `Measured at the same weights, Dr. MAS’s gradient for it is ${f2(d.gradRatio)}× GRPO’s`
    : `Its rows pull on the gradient about ${f2(d.scale)}× as hard under Dr. MAS${direction(d.corr)}`;
  return `Dr. MAS gives the ${d.agent} agent ${f2(d.scale)}× GRPO’s advantage scale, and ${agree}. ${grad}.${amp}`;
}

/**
 * The card for one run: `history` holds its frames (oldest first) with at least `step` and the
 * agents' amplification and same-batch keys; the last `window` batches are summarized. `trajectories`
 * (B·G) lets the identical case say that every agent acted once per trajectory; `groupSize` (G, or
 * nodes per tree) sets the level amplification is worded against; `run` names the
 * run in the lead; `trees` (rollout.sampling=mcts) words it for trees of nodes. Null before the run's first batch.
 */
export function whatDiffers(
  history: readonly Record<string, number>[],
  agents: readonly string[],
  own: EstimatorChoice,
  o: { window?: number; trajectories?: number; groupSize?: number; run?: string; trees?: boolean } = {},
): RunDifferences | null {
  const w = o.trees ? DIFFERS_WORDS.nodes : DIFFERS_WORDS.trajectories;
  const rows = history.filter((h) => Number.isFinite(h[M.step])).slice(-(o.window ?? DIFFERS_WINDOW));
  if (rows.length === 0) return null;
  const steps: [number, number] = [rows[0][M.step], rows[rows.length - 1][M.step]];
  const col = (key: string) => rows.map((h) => h[key] ?? NaN);
  // The other estimator's correlation with the run's own is the pair's correlation.
  const other = own === 'grpo' ? 'drmas' : own === 'drmas' ? 'grpo' : null;

  let identical = true;
  // Where no agent's rows carry their trajectory's reward (every agent rewarded for its own part),
  // amplification applies to none: the lead says so once, not one clause per agent.
  const shares = agents.map((a) => meanOf(col(agentKey(a, 'traj_reward_share'))));
  const noneCarry = agents.length > 1 && shares.every((c) => Number.isFinite(c) && c < CARRIED);
  const out = agents.map((agent, i): AgentDifference => {
    const [g, d] = PAIR.map((e) => col(agentSameBatchKey(agent, e, 'sq_mean')));
    const [gMean, dMean] = PAIR.map((e) => col(agentSameBatchKey(agent, e, 'mean')));
    const corrs = other ? col(agentSameBatchKey(agent, other, 'corr')) : [];
    // Identical on a batch: the same mean and E[A²], and exactly correlated (pearson gives 1 on
    // equal inputs), or all zero (a group whose rollouts tied: no correlation is defined).
    const same = g.every(
      (x, i) => Number.isFinite(x) && x === d[i] && gMean[i] === dMean[i] && (x === 0 || corrs[i] === 1),
    );
    if (!same || !other) identical = false;
    const [gm, dm] = [meanOf(g), meanOf(d)];
    const [gg, dg] = PAIR.map((e) => meanOf(col(agentSameBatchKey(agent, e, GRAD_NORM))));
    const diff = {
      agent,
      amplification: meanOf(col(agentKey(agent, 'amplification'))),
      carried: shares[i],
      scale: gm > 0 ? Math.sqrt(dm / gm) : NaN,
      rms: { grpo: Math.sqrt(gm), drmas: Math.sqrt(dm) },
      corr: meanOf(corrs),
      gradRatio: gg > 0 ? dg / gg : NaN,
    };
    const tied = gm === 0 && dm === 0;
    return { ...diff, sentence: describeAgent({ ...diff, tied }, own, w, o.groupSize, noneCarry) };
  });

  const batches = `${rows.length === 1 ? 'batch' : `${rows.length} batches`} (step${rows.length === 1 ? '' : 's'} ${steps[0] === steps[1] ? steps[0] : `${steps[0]}–${steps[1]}`})`;
  const whose = o.run === undefined ? 'this run’s' : `the ${o.run} run’s`;
  const once =
    o.trajectories !== undefined &&
    agents.every((a) => col(agentKey(a, 'calls')).every((n) => n === o.trajectories));
  // The shared-reward reading needs the rows to have carried it (traj_reward_share 1 on every
  // batch): with own rewards (a workflow's mix above 0) the two can also agree because every group
  // tied, which says nothing of sharing.
  const shared = agents.every((a) => col(agentKey(a, 'traj_reward_share')).every((v) => v >= CARRIED));
  const tied = out.every((a) => a.rms.grpo === 0 && a.rms.drmas === 0);
  const same = `On ${whose} last ${batches}, GRPO and Dr. MAS give every row exactly the same advantage`;
  const most = Math.round(100 * Math.max(...shares));
  const noAmp = noneCarry
    ? `; amplification applies to none of its agents, since ${most === 0 ? 'none' : `at most ${most} %`} of any agent’s rows carry their ${w.one}’s reward while GRPO weighs every row by ${w.its} score`
    : '';
  const summary = !identical
    ? `On ${whose} last ${batches}, both estimators weighed the same rows${noAmp}:`
    : tied
      ? `${same}: 0, since ${w.tied.replace('its ', 'all ')}. Neither estimator had a spread to normalize, so this says nothing of how they differ once rewards spread.`
      : `${same}. ` +
        (once && shared
          ? 'Every agent acted once in every trajectory, on the trajectory’s shared reward, so '
          : 'Here ') +
        `each agent’s rows carry exactly ${w.carry}: both estimators normalize the same numbers by the same mean and standard deviation.`;
  return { steps, identical, summary, scores: w.scores, agents: out };
}

/** The keys the card reads of a run with these agents (a reader may decode only these). */
export const differsKeys = (agents: readonly string[]): string[] => [
  M.step,
  ...agents.flatMap((a) => [
    agentKey(a, 'amplification'),
    agentKey(a, 'traj_reward_share'),
    agentKey(a, 'calls'),
    ...PAIR.flatMap((e) => SAME_BATCH_STATS.map((s) => agentSameBatchKey(a, e, s))),
  ]),
];

/**
 * The run the card reads among an experiment's repeats (each with its index into `config.runs`):
 * the first whose own estimator is GRPO or Dr. MAS, so the pair's correlation was measured, else
 * the first; with its estimator and what its batches hold (B·G trajectories, or an mcts tree's
 * nodes). Null without repeats. The page's card and a result file pick alike.
 */
export function differsPick<R extends { runIndex: number }>(config: Experiment, repeats: readonly R[]) {
  const withRun = repeats.map((r) => ({ r, run: config.runs[r.runIndex] as Run | undefined }));
  const chosen =
    withRun.find((x) => x.run?.estimator === 'grpo' || x.run?.estimator === 'drmas') ??
    withRun.find((x) => x.run);
  if (!chosen?.run) return null;
  const { rollout } = resolveRun(config, chosen.run);
  // An mcts tree's rows are nodes, as many as the search grows: no B·G trajectories to count.
  const trees = rollout.sampling === 'mcts';
  return {
    r: chosen.r,
    estimator: chosen.run.estimator,
    trees,
    trajectories: trees ? undefined : rollout.batchSize * rollout.groupSize,
    groupSize: groupScores(config, chosen.run),
  };
}
