/**
 * The presets that test other explanations of Dr. MAS's gain and other methods: the reviewers'
 * ablations (Dr. MAS without σ_k, loss balancing by 1/n_k, a tighter gradient clip, LitePPO's
 * group mean with a batch std) and MAGRPO and MARS2 as their authors run them. presets.ts lists
 * them after the settings. Pure: no tfjs, no DOM.
 */
import { presetConfig as make, type Preset } from './preset';

/** Dr. MAS, and Dr. MAS without σ_k: the mean-only per-agent baseline (custom: rows; group,agent; none). */
const MEAN_ONLY = [
  { label: 'Dr. MAS', estimator: 'drmas' },
  {
    label: 'Dr. MAS mean-only',
    estimator: 'custom',
    advantage: { meanOver: 'group,agent', stdOver: 'none' },
  },
];

/** Agent-wise grouping × loss balancing by 1/n_k (optim.lossAgg agent-token-mean), 2 × 2. */
const LOSS_BALANCE = [
  { label: 'GRPO', estimator: 'grpo' },
  { label: 'GRPO + balance', estimator: 'grpo', optim: { lossAgg: 'agent-token-mean' } },
  { label: 'Dr. MAS', estimator: 'drmas' },
  { label: 'Dr. MAS + balance', estimator: 'drmas', optim: { lossAgg: 'agent-token-mean' } },
];

/** A tighter gradient clip as the other stabilizer: GRPO at 0.1, 0.2, 0.5 against Dr. MAS at the default 1. */
const GRAD_CLIP = [
  { label: 'Dr. MAS', estimator: 'drmas' },
  ...[0.1, 0.2, 0.5].map((c) => ({ label: `GRPO clip ${c}`, estimator: 'grpo', optim: { maxGradNorm: c } })),
];

/** LitePPO's group mean with a batch std, on GRPO's trajectory scores (custom: trajectories; group; batch). */
const LITE_PPO = [
  { label: 'GRPO', estimator: 'grpo' },
  { label: 'Dr. MAS', estimator: 'drmas' },
  {
    label: 'LitePPO',
    estimator: 'custom',
    advantage: { unit: 'trajectories', meanOver: 'group', stdOver: 'batch' },
  },
];

/**
 * MAGRPO as CoMLRL runs it (docs/estimators.md#magrpo-as-comlrl-runs-it): its mean-baseline estimator,
 * REINFORCE on the summed response log-probs, one joint reward, per-agent buffers; against GRPO and
 * Dr. MAS as the lab runs them. A buffer of B·G = 32 rows is one step of an agent that acts once per
 * trajectory, as coder-tester's two agents do.
 */
const MAGRPO_COMLRL = [
  {
    label: 'MAGRPO (CoMLRL)',
    estimator: 'magrpo',
    optim: { policyLoss: 'reinforce', lossAgg: 'seq-mean-token-sum' },
    reward: { joint: true },
    train: { buffer: 'per-agent', bufferSize: 32 },
  },
  { label: 'GRPO', estimator: 'grpo' },
  { label: 'Dr. MAS', estimator: 'drmas' },
];

/** MARS2's claim: a team of two different coders against the stronger one searching alone, same nodes per tree. */
const MARS2_TEAM = [
  { label: 'Team (small + nano coder)', estimator: 'mars2' },
  { label: 'Small coder alone', estimator: 'mars2', rollout: { arms: 'coder' } },
];

export const ALTERNATIVE_PRESETS: readonly Preset[] = [
  {
    id: 'mean-only',
    title: 'Dr. MAS without σ_k: mean-only per agent (math)',
    blurb:
      'The reviewers’ no-std ablation on the solver ⇄ verifier loop: each agent’s rows centred by its own group ' +
      'mean and never divided by σ_k, which can go to 0 when an agent’s rows agree (custom estimator: rows; ' +
      'group,agent; none). Does Dr. MAS’s gain, or its spikes, come from the division?',
    lookFor:
      "Tests: is it the division by σ_k? Look for: mean-only per agent against Dr. MAS in success and in the verifier's gradient spikes.",
    config: make({ task: 'math', runs: MEAN_ONLY }),
  },
  {
    id: 'loss-balance',
    title: 'Agent-wise grouping × loss balancing by 1/n_k (math, shared model)',
    blurb:
      'The reviewers’ 2 × 2: GRPO and Dr. MAS, each with token-mean aggregation and with agent-token-mean ' +
      '(each agent’s token mean, averaged over agents, so the solver’s extra calls weigh no more). On one shared ' +
      'model, where the agents’ terms meet in one loss. Is Dr. MAS’s gain just implicit rebalancing?',
    lookFor:
      'Tests: is Dr. MAS just rebalancing the loss? Look for: whether 1/n_k balancing alone moves GRPO towards Dr. MAS.',
    config: make({ task: 'math', models: { assignment: 'shared' }, runs: LOSS_BALANCE }),
  },
  {
    id: 'grad-clip',
    title: 'Gradient clipping 0.1 / 0.2 / 0.5 vs Dr. MAS (math)',
    blurb:
      'The reviewers’ alternative stabilizer: GRPO with the global-norm clip at 0.1, 0.2 and 0.5 against ' +
      'Dr. MAS at the default 1. Does a tighter clip remove what agent-wise normalization removes?',
    lookFor:
      'Tests: a tighter clip as the alternative stabilizer. Look for: gradient-norm spikes and success at clip 0.1, 0.2, 0.5 against Dr. MAS.',
    config: make({ task: 'math', runs: GRAD_CLIP }),
  },
  {
    id: 'liteppo',
    title: 'LitePPO: group mean, batch std (math)',
    blurb:
      'LitePPO’s (arXiv 2508.08221) most robust combination as a custom estimator: GRPO’s trajectory scores ' +
      'centred by their group mean and divided by the std of the whole batch (trajectories; group; batch), ' +
      'against GRPO and Dr. MAS.',
    lookFor:
      "Tests: LitePPO's group mean with batch std. Look for: its E[A²] and success against GRPO and Dr. MAS.",
    config: make({ task: 'math', runs: LITE_PPO }),
  },
  {
    id: 'magrpo-comlrl',
    title: 'MAGRPO as CoMLRL runs it (coder and tester)',
    blurb:
      'MAGRPO the way CoMLRL trains it: one joint reward for both agents (the coder’s pass share), the ' +
      'advantage return minus the group mean with no std (magrpo), REINFORCE on the summed response ' +
      'log-probs with no ratio and no clip (optim.policyLoss=reinforce, seq-mean-token-sum), and each agent ' +
      'updating from its own buffer (train.buffer=per-agent, 32 rows: one step of coder-tester’s rows). ' +
      'Against GRPO and Dr. MAS with the PPO loss and coder-tester’s own rewards.',
    lookFor:
      'Tests: MAGRPO as its authors run it against GRPO and Dr. MAS. Look for: success and eval pass@k per run, and clipfrac 0 on the MAGRPO run.',
    config: make({ task: 'coder-tester', runs: MAGRPO_COMLRL }),
  },
  {
    id: 'mars2-team',
    title: 'MARS2: a team of two coders against the stronger one alone (coder and tester)',
    blurb:
      'MARS2 the way MARTI trains it: one search tree of 8 answers per problem (rollout.sampling=mcts), the ' +
      'agents as arms chosen by Thompson sampling, advantages normalized over the tree (mars2), trees whose ' +
      'answers all score alike dropped (rollout.filter=mixed), and each agent updating from its own buffer. ' +
      'The team is two coders of different sizes: a small one (models.perAgent.coder=small) and a nano one ' +
      'in the tester’s seat (models.from.tester=coder). The other run searches with the small coder alone ' +
      '(runs.1.rollout.arms=coder), at the same nodes per tree.',
    lookFor:
      'Tests: MARS2’s claim that a team of different agents beats its strongest member at the same budget. Look for: Search trees: best node, and each arm’s nodes per tree.',
    config: make({
      task: 'coder-tester',
      models: { perAgent: { coder: 'small' }, from: { tester: 'coder' } },
      rollout: { sampling: 'mcts', nodes: 8, filter: 'mixed' },
      train: { buffer: 'per-agent', bufferSize: 32 },
      runs: MARS2_TEAM,
    }),
  },
];
