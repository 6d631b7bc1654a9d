/**
 * The chart registry: every chart of the board, in order, with its section, its series (metric
 * keys from metrics.ts), a one-sentence explanation and its formula (the chart's help popover),
 * whether heavy tails make a log scale worth offering, and why it may be flat for a given config.
 * The board, its help popovers and its "more charts" reasons all read this list: adding a chart
 * is one entry here. Pure: no tfjs, no DOM (docs/charts.md#the-chart-registry).
 */
import type { EstimatorChoice } from './estimators';
import type { Optim } from './config-sections';
import { agentKey, agentSameBatchKey, evalAvgKey, evalPassKey, GRAD_NORM, M, MCTS_KEYS } from './metrics';

type ChartSection = 'Run' | 'Per agent' | 'Update diagnostics' | 'Same batch, every estimator';
export const CHART_SECTIONS: ChartSection[] = [
  'Run',
  'Per agent',
  'Update diagnostics',
  'Same batch, every estimator',
];

/** What a chart may need of an experiment to be shown. */
type Need = 'eval' | 'credit' | 'shadowGradNorm' | 'mcts' | 'ownSuccess';

/** A chart's lines: one per run and key, or one per run and agent. */
type ChartSeries =
  | { per: 'run'; keys: (evalKs: number[]) => { key: string; name: string }[] }
  | { per: 'agent'; key: (agent: string) => string };

export interface ChartEntry {
  /** Stable id (the log-scale choice is kept under it). */
  id: string;
  title: string;
  section: ChartSection;
  series: ChartSeries;
  /** What the chart shows, in one plain sentence. */
  doc: string;
  formula: string;
  /** Heavy tails occur (one spike can flatten the rest): the chart offers a log scale. */
  log?: boolean;
  /**
   * A horizontal reference line: at a number, or at the level a function reads from the group
   * size n (groupScores) of every run shown, none where it gives undefined.
   */
  refY?: number | ((groupSizes: readonly number[]) => number | undefined);
  /** A same-batch chart's estimator. */
  estimator?: EstimatorChoice;
  /**
   * Shown only when the experiment has this (`shadowGradNorm` is the config switch
   * diagnostics.shadowGradNorm; `ownSuccess`, a task that tells each agent's own part).
   */
  needs?: Need | readonly Need[];
  /** Why this chart is flat for runs with these optimizer settings, if the settings explain it. */
  flatBecause?: (optims: Optim[]) => string | undefined;
}

/** PPO's within-update statistics are exactly at rest when the policy is updated once per batch. */
const oneStepPerBatch = (optims: Optim[]) =>
  optims.length > 0 && optims.every((o) => o.epochs * o.miniBatches === 1)
    ? 'one optimizer step per batch (PPO epochs 1, optimizer steps per epoch 1), so the policy is still π_old when this is measured'
    : undefined;

const run = (key: string, name: string): ChartSeries => ({ per: 'run', keys: () => [{ key, name }] });
const perAgent = (stat: Parameters<typeof agentKey>[1]): ChartSeries => ({
  per: 'agent',
  key: (a) => agentKey(a, stat),
});

/**
 * Where amplification reads "not at all", its reference line: an agent whose rows carry exactly
 * the trajectory scores of groups of n scores (n − 1)/n, not 1, as σk² is the population variance
 * and σ² the unbiased one (docs/estimators.md#the-amplification-factor); 0.875 at G = 8. None where
 * the runs shown hold groups of different sizes: one line would be wrong for some of them.
 */
export function neutralAmplification(groupSizes: readonly number[]): number | undefined {
  const [n] = groupSizes;
  return n > 1 && groupSizes.every((m) => m === n) ? (n - 1) / n : undefined;
}

/** The board's fixed charts; the same-batch ones follow per estimator (sameBatchCharts). */
export const CHARTS: ChartEntry[] = [
  {
    id: 'reward',
    title: 'Reward',
    section: 'Run',
    series: run(M.rewardMean, 'reward'),
    doc: 'The mean reward of the training batch’s trajectories: what training pushes up.',
    formula: 'mean over the batch’s trajectories τ of R(τ)',
  },
  {
    id: 'success',
    title: 'Success rate',
    section: 'Run',
    series: run(M.successRate, 'success'),
    doc: 'The share of the training batch’s trajectories that solved the task.',
    formula: '#{τ : solved(τ)} / #τ',
  },
  {
    id: 'mcts-tree',
    title: 'Search trees: best node',
    section: 'Run',
    needs: 'mcts',
    series: {
      per: 'run',
      keys: () => [
        { key: MCTS_KEYS.treeBest, name: 'best score' },
        { key: MCTS_KEYS.treeSolved, name: 'solved' },
      ],
    },
    doc: 'What each search found: the score of its best node, and the share of trees where some node passes every test.',
    formula:
      'mean over the step’s trees of max over nodes of score; #{trees with a node of score 1} / #trees',
  },
  {
    id: 'eval-avg',
    title: 'Eval avg@{k}',
    section: 'Run',
    needs: 'eval',
    series: { per: 'run', keys: (ks) => ks.map((k) => ({ key: evalAvgKey(k), name: `avg@${k}` })) },
    doc: 'On held-out questions, K samples each: the share of samples that solve their question.',
    formula: 'mean over questions q of (#solved samples of q) / K',
  },
  {
    id: 'eval-pass',
    title: 'Eval pass@{k}',
    section: 'Run',
    needs: 'eval',
    series: { per: 'run', keys: (ks) => ks.map((k) => ({ key: evalPassKey(k), name: `pass@${k}` })) },
    doc: 'On held-out questions, K samples each: the share of questions that at least one sample solves.',
    formula: 'mean over questions q of [any of q’s K samples solved]',
  },
  {
    id: 'throughput',
    title: 'Throughput',
    section: 'Run',
    series: run(M.tokensPerS, 'tokens/s'),
    doc: 'How fast this computer samples: tokens generated per second of rollout.',
    formula: 'sampled tokens / rollout seconds',
  },
  {
    id: 'own-success',
    title: 'Own success',
    section: 'Per agent',
    needs: 'ownSuccess',
    series: perAgent('own_success'),
    doc: 'The share of the trajectories agent k acted in where it did its own part: whose learning slowed, beside the team’s success rate.',
    formula: '#{τ where k acted and did its part} / #{τ where k acted}',
  },
  {
    id: 'eval-own-success',
    title: 'Held-out own success',
    section: 'Per agent',
    needs: ['eval', 'ownSuccess'],
    series: perAgent('eval_own_success'),
    doc: 'On held-out questions, K samples each: the share of the trajectories agent k acted in where it did its own part.',
    formula: '#{held-out τ where k acted and did its part} / #{held-out τ where k acted}',
  },
  {
    id: 'mu',
    title: 'μk · reward mean',
    section: 'Per agent',
    series: perAgent('reward/mean'),
    doc: 'The mean reward over agent k’s rows (its calls) in the batch.',
    formula: 'μk = (1/nk) Σ over k’s rows r',
  },
  {
    id: 'sigma',
    title: 'σk · reward std',
    section: 'Per agent',
    series: perAgent('reward/std'),
    doc: 'How spread out agent k’s rewards are in the batch.',
    formula: 'σk = √((1/nk) Σ over k’s rows (r − μk)²)',
  },
  {
    id: 'adv-mean',
    title: 'Advantage mean',
    section: 'Per agent',
    series: perAgent('adv/mean'),
    doc: 'The mean advantage of agent k’s rows: near 0 when its baseline is centred on it.',
    formula: '(1/nk) Σ over k’s rows A',
  },
  {
    id: 'adv-sq',
    title: 'E[A²]',
    section: 'Per agent',
    series: perAgent('adv/sq_mean'),
    // A second moment: one batch whose rewards sit far off its baseline squares into a spike.
    log: true,
    doc: 'The advantage’s second moment over agent k’s rows: it scales agent k’s gradient.',
    formula: '(1/nk) Σ over k’s rows A²',
  },
  {
    id: 'amplification',
    title: 'Amplification',
    section: 'Per agent',
    series: perAgent('amplification'),
    log: true,
    refY: neutralAmplification,
    doc: 'How far agent k’s rewards sit from, and spread beyond, its group’s trajectory scores: (G − 1)/G, 0.88 at G = 8 (the dashed line; with mcts, (N − 1)/N for N nodes), is no amplification at all (σ is the unbiased spread). Only where k’s rows carry their trajectory’s reward is it k’s E[A²] under one shared baseline (GRPO); with rewards of its own (own rewards, a dial, a per-row penalty) it describes them but predicts nothing, and What differs says amplification does not apply.',
    formula: '(σk² + (μk − μ)²) / σ², mean over groups with σ > 0',
  },
  {
    id: 'grad-norm',
    title: 'Pre-clip grad norm',
    section: 'Per agent',
    series: perAgent(GRAD_NORM),
    log: true,
    doc: 'The size of the gradient of each agent’s loss term, before clipping.',
    formula: '‖∇θ Lk‖₂',
  },
  {
    id: 'credit-mean',
    title: 'Credit (mean)',
    section: 'Per agent',
    needs: 'credit',
    series: perAgent('credit/mean'),
    doc: 'The agent’s counterfactual or Shapley credit over its rows; each row’s reward adds λ × it.',
    formula: '(1/nk) Σ over k’s rows credit',
  },
  {
    id: 'credit-std',
    title: 'Credit (std)',
    section: 'Per agent',
    needs: 'credit',
    series: perAgent('credit/std'),
    doc: 'How spread out the agent’s credit is over its rows.',
    formula: '√((1/nk) Σ over k’s rows (credit − mean)²)',
  },
  {
    id: 'mcts-nodes',
    title: 'Nodes per tree',
    section: 'Per agent',
    needs: 'mcts',
    series: perAgent('nodes'),
    doc: 'How many of a search tree’s nodes the agent generated, as Thompson sampling chose it (they sum to rollout.nodes).',
    formula: 'mean over the step’s trees of #{nodes generated by k}',
  },
  {
    id: 'mcts-arm',
    title: 'Arm posterior mean',
    section: 'Per agent',
    needs: 'mcts',
    series: perAgent('arm_mean'),
    doc: 'The mean of the agent’s Beta posterior on node scores at the end of each search: what the search expects of its next node.',
    formula: 'mean over trees of (1 + Σ scores of k’s nodes)/(2 + #k’s nodes)',
  },
  {
    id: 'pg-loss',
    title: 'Policy loss',
    section: 'Update diagnostics',
    series: perAgent('pg_loss'),
    doc: 'Agent k’s own part of the policy loss the update lowers, averaged over its optimizer steps (verl’s pg_loss).',
    formula: 'Σ w·L / Σ w over k’s tokens, L the policy loss per token (PPO clip by default)',
  },
  {
    id: 'kl',
    title: 'KL (π_old ‖ π)',
    section: 'Update diagnostics',
    series: perAgent('kl'),
    doc: 'How far the policy moved during this batch’s update (verl’s ppo_kl).',
    formula: 'mean over k’s tokens of log π_old − log π',
    flatBecause: oneStepPerBatch,
  },
  {
    id: 'entropy',
    title: 'Entropy',
    section: 'Update diagnostics',
    series: perAgent('entropy'),
    doc: 'How uncertain the policy is when it picks each token.',
    formula: 'Σ w·H / Σ w over k’s tokens, H = −Σ π log π',
  },
  {
    id: 'clipfrac',
    title: 'Clip fraction',
    section: 'Update diagnostics',
    series: perAgent('clipfrac'),
    doc: 'The share of agent k’s tokens whose probability ratio hit the PPO clip.',
    formula: '#{tokens : ratio outside [1 − ε_low, 1 + ε_high] and clipped} / #tokens',
    flatBecause: oneStepPerBatch,
  },
  {
    id: 'resp-len',
    title: 'Response length',
    section: 'Update diagnostics',
    series: perAgent('resp_len'),
    doc: 'How many tokens agent k writes per call, end-of-sequence included.',
    formula: 'mean over k’s calls of #response tokens',
  },
];

/** One estimator of the same-batch section, as the board names it (core/estimators.ts ESTIMATORS). */
interface SameBatchEstimator {
  name: EstimatorChoice;
  label: string;
  doc: string;
}

/** The same-batch charts of one estimator: the run's own batch weighed again by it. */
export function sameBatchCharts({ name: e, label }: SameBatchEstimator): ChartEntry[] {
  const section = 'Same batch, every estimator';
  return [
    {
      id: `same-batch-${e}-sq`,
      estimator: e,
      title: `E[A²] weighed by ${label}`,
      section,
      series: { per: 'agent', key: (a) => agentSameBatchKey(a, e, 'sq_mean') },
      log: true,
      doc: `Each run’s own batch, advantages recomputed with ${label}: agent k’s E[A²].`,
      formula: `(1/nk) Σ over k’s rows A_${e}²`,
    },
    {
      id: `same-batch-${e}-corr`,
      estimator: e,
      title: `Correlation of ${label} with the run’s own`,
      section,
      series: { per: 'agent', key: (a) => agentSameBatchKey(a, e, 'corr') },
      refY: 1,
      doc: `On each run’s own batch: how closely ${label}’s advantages follow the ones the run trained on.`,
      formula: `corr(A_${e}, A_run) over k’s rows`,
    },
    {
      id: `same-batch-${e}-grad`,
      estimator: e,
      title: `Grad norm weighed by ${label}`,
      section,
      needs: 'shadowGradNorm',
      series: { per: 'agent', key: (a) => agentSameBatchKey(a, e, GRAD_NORM) },
      log: true,
      doc: `Each run’s own batch at the step’s starting weights, advantages from ${label}: agent k’s gradient size.`,
      formula: `‖∇θ Lk(A_${e})‖₂, before clipping`,
    },
  ];
}

/** The title of a chart whose K is given (`Eval avg@{k}` → `Eval avg@4`). */
export const chartTitle = (c: ChartEntry, k: string): string => c.title.replace('{k}', k);

/** Every chart the board shows for an experiment with these features, in order. */
export function boardCharts(
  has: { eval: boolean; credit: boolean; shadowGradNorm: boolean; mcts?: boolean; ownSuccess?: boolean },
  estimators: SameBatchEstimator[],
): ChartEntry[] {
  return [...CHARTS, ...estimators.flatMap(sameBatchCharts)].filter((c) =>
    [c.needs ?? []].flat().every((n) => has[n] === true),
  );
}
