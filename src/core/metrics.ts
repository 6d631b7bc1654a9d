/**
 * Metric names: the one dictionary used by the trainer, the CLI's JSONL, CSV export and charts
 * (docs/metrics.md#metrics). Keys are flat paths; a chart is a prefix filter. Build every
 * per-agent or per-model key with the helpers below, never by hand. Pure: no tfjs, no DOM.
 */
import { ESTIMATOR_NAMES, type EstimatorChoice } from './estimators';

/** Run-level keys, one value per optimizer step. */
export const M = {
  step: 'step',
  timeS: 'time_s',
  rewardMean: 'reward/mean',
  rewardStd: 'reward/std',
  successRate: 'success/rate',
  singletonFrac: 'groups/singleton_frac',
  zeroAdvFrac: 'groups/zero_adv_frac',
  rolloutMs: 'perf/rollout_ms',
  updateMs: 'perf/update_ms',
  /** Time this step spent on its evaluation (eval.every): 0 on steps without one. */
  evalMs: 'perf/eval_ms',
  /**
   * Time the run spent saving during this step: the state after the step before read (between the
   * two steps), checked and written (driver-saves.ts); the wait for the page's answer left out, and
   * 0 where no state was saved.
   */
  saveMs: 'perf/save_ms',
  tokensPerS: 'perf/tokens_per_s',
  memTensors: 'mem/tensors',
  memGpuBytes: 'mem/gpu_bytes',
  /** Trajectories whose environment failed, hung or crashed this step: left out of every other statistic and of the update. */
  envErrors: 'env/errors',
  /** Models whose update was skipped for a non-finite loss or gradient, or rolled back for making a weight or moment non-finite. */
  updateSkipped: 'update/skipped',
  /** Batched decode forwards (= logits readbacks) this step's rollout made. */
  decodeForwards: 'perf/decode_forwards',
  /** Per-agent credit (reward.credit): time in coalition replays, replays run and env transitions they took (0 under `shared`). */
  creditMs: 'perf/credit_ms',
  creditReplays: 'perf/credit_replays',
  creditEnvSteps: 'perf/credit_env_steps',
  /** Replayed calls of kept agents that had no recorded output and took the neutral default (src/tasks/replay.ts). */
  creditUnrecorded: 'credit/unrecorded_calls',
  /** Trajectories whose credit is 0 because one of their replays' environment failed. */
  creditErrors: 'credit/replay_errors',
  /**
   * Policy calls this step's rollout spent on greedy completions that score tree candidates
   * (rollout.sampling 'tree' on a task without turnReward; src/tasks/tree.ts); 0 otherwise. Their
   * decode forwards are in perf/decode_forwards, their time in perf/rollout_ms.
   */
  completionCalls: 'perf/completion_calls',
} as const;

/**
 * Only with rollout.filter ≠ none (src/rl/group-filter.ts): the share of the step's groups kept, and
 * 1 on a step the filter left with nothing to train on (no model updated), else 0.
 */
export const FILTER_METRICS = { keptFrac: 'groups/kept_frac', emptyStep: 'groups/empty_step' } as const;

/** Per-token quantities of one loss term, each (B, T) and 0 off the term's response tokens. */
export interface TokenTerms<T> {
  /** L, the policy loss (core/losses.ts POLICY_LOSSES). */
  pgLoss: T;
  entropy: T;
  /** 1 where the ratio clip binds (L2 > L1), 1 where the dual clip binds. */
  clipped: T;
  dualClipped: T;
  /** −d = log π_old − log π. */
  negD: T;
  /** 1 on the term's response tokens. */
  mask: T;
}

/** One per-agent update diagnostic: its doc, the per-token value it reduces and how. */
interface UpdateDiagnostic {
  doc: string;
  /** The per-token value: picked from the same terms on the device (tensors) and in the float64 reference. */
  of: <T>(t: TokenTerms<T>) => T;
  /**
   * 'weights': Σ w·x / Σ w with the loss's aggregation weights (the agent's own aggregated value);
   * 'tokens': Σ m·x / Σ m, a plain token mean; 'rows': Σ m·x per row, averaged over the agent's rows.
   */
  over: 'weights' | 'tokens' | 'rows';
}

/**
 * The per-agent diagnostics of the PPO update, each under `agent/<name>/<key>`, averaged over the
 * optimizer steps of a batch. The update step computes, reads back and averages every entry, so
 * an entry here is emitted with no other edit (see AGENT_STATS for what that gives it; a chart
 * is not among it).
 */
export const UPDATE_DIAGNOSTICS = {
  pg_loss: {
    doc: "the agent's own aggregated policy loss, Σ w·L / Σ w over its tokens",
    of: (t) => t.pgLoss,
    over: 'weights',
  },
  clipfrac: { doc: 'share of its tokens where the ratio clip binds', of: (t) => t.clipped, over: 'tokens' },
  kl: {
    doc: "verl's ppo_kl: mean of log π_old − log π over its tokens (the policy's drift within the update)",
    of: (t) => t.negD,
    over: 'tokens',
  },
  entropy: {
    doc: 'its aggregated entropy, Σ w·H / Σ w over its tokens',
    of: (t) => t.entropy,
    over: 'weights',
  },
  resp_len: { doc: 'mean response tokens per call (EOS included)', of: (t) => t.mask, over: 'rows' },
} as const satisfies Record<string, UpdateDiagnostic>;
export type UpdateStat = keyof typeof UPDATE_DIAGNOSTICS;
export const UPDATE_STATS = Object.keys(UPDATE_DIAGNOSTICS) as UpdateStat[];

/**
 * The advantage diagnostics of one batch (src/rl/diagnostics.ts computes them; docs/estimators.md#per-agent-diagnostics):
 * each field of rl's `AgentStats` and the stat it is emitted under, `agent/<name>/<stat>`. NaN
 * where undefined (no rows, no group with σ > 0). Adding one is one entry here and its formula.
 */
export const ADVANTAGE_DIAGNOSTICS = {
  /** n_k: rows of this agent in the batch. */
  calls: 'calls',
  /** μ_k: mean reward over all of this agent's rows in the batch (pooled across groups). */
  rewardMean: 'reward/mean',
  /** σ_k: population std (÷n_k) of the same rows, the σ_k of Lemma 4.2. */
  rewardStd: 'reward/std',
  /** Mean advantage over this agent's rows. */
  advMean: 'adv/mean',
  /** E[A²] over this agent's rows. */
  advSqMean: 'adv/sq_mean',
  advMin: 'adv/min',
  advMax: 'adv/max',
  /**
   * Mean over prompt groups q with σ_q > 0 in which the agent acts of (σ_{k,q}² + (μ_{k,q} − μ_q)²) / σ_q²,
   * μ_q and σ_q (unbiased) over q's trajectory scores: GRPO's baseline (Dr. MAS Lemma 4.2).
   */
  amplification: 'amplification',
  /** The same with global-step's baseline: μ_q and σ_q (unbiased) over all of q's rows pooled (docs/estimators.md#the-amplification-factor). */
  amplificationRows: 'amplification_rows',
  /**
   * Share of this agent's rows whose reward is their trajectory's score (the mean of its rows'
   * rewards): at 1 every row carries its trajectory's reward, the case where `amplification` is
   * the agent's E[A²] under GRPO; below 1 (own rewards, dials, penalties) it predicts nothing.
   */
  carried: 'traj_reward_share',
} as const;
export type AdvantageDiagnostic = keyof typeof ADVANTAGE_DIAGNOSTICS;
type AdvantageStat = (typeof ADVANTAGE_DIAGNOSTICS)[AdvantageDiagnostic];

/**
 * The pre-clip gradient norm, one statistic under three prefixes: `agent/<name>/` (the agent's
 * loss term), `agent/<name>/shadow/<estimator>/` (that term with another estimator's advantages)
 * and `model/<id>/` (the update applied to the model). Every use names it by this constant, so a
 * rename is this one edit; the key string itself is a contract (stored runs, JSONL, imports).
 */
export const GRAD_NORM = 'grad_norm';

/**
 * Per-agent credit (reward.credit ≠ shared; src/train/credit.ts), over the agent's rows: each row
 * carries its trajectory's credit for the agent, so `reward/mean` = shared row mean + λ·credit/mean.
 * `se` is the mean Monte-Carlo standard error of the Shapley estimate (0 when exact).
 */
const CREDIT_STATS = ['credit/mean', 'credit/std', 'credit/se'] as const;

/**
 * The reward dials in force (reward.scale / reward.offset; 1 and 0 where none is set): the
 * agent's `reward/mean` is of its rewards after them (docs/estimator-algebra.md#reward-dials).
 */
const DIAL_STATS = ['reward/scale', 'reward/offset'] as const;

/**
 * Per-agent outcomes, only on tasks that tell each agent's own part (a task's `ownSuccess`):
 * `own_success` is the share of the judged trajectories it acted in where it did its part ("this
 * agent's own accuracy"), so whose learning slowed is read per agent, not from the team's success;
 * `eval_own_success` the same on held-out questions, at each evaluation (NaN between them).
 */
const OUTCOME_STATS = ['own_success', 'eval_own_success'] as const;

/**
 * The MARS2 search (rollout.sampling=mcts; src/tasks/mcts.ts), per step, means over the step's
 * trees: `rollout/tree_nodes`, the nodes of a tree; per agent, `nodes`, the nodes of a tree it
 * generated (they sum to tree_nodes), and `arm_mean`, the mean of its arm's Beta posterior at the
 * end of the search, (1 + Σ scores)/(2 + its nodes). `rollout/tree_best` is the best node's score
 * and `rollout/tree_solved` the share of trees with a node of score 1: what a search is judged by
 * (MARS2 keeps its best node), where success rate counts every node. Only runs that sample by mcts
 * emit them.
 */
export const MCTS_KEYS = {
  treeNodes: 'rollout/tree_nodes',
  treeBest: 'rollout/tree_best',
  treeSolved: 'rollout/tree_solved',
} as const;
const MCTS_STATS = ['nodes', 'arm_mean'] as const;

/**
 * Only with train.buffer=per-agent (src/train/buffers.ts): `updated` is 1 on a step the agent's
 * full buffer trained its model, else 0; `buffer` is the rows its buffer held at that decision
 * (this step's included).
 */
const BUFFER_STATS = ['updated', 'buffer'] as const;

/**
 * Per-agent statistics, each under `agent/<name>/`: the advantage diagnostics, the dials, outcomes,
 * the search's, the update's, credit, then buffers. A stat listed here is, with no other edit, in
 * every run's frame key table (metricKeys), hence in each JSONL line, the CSV and JSON exports
 * and the TensorBoard export, which all take every recorded key; and parseAgentKey knows it. A
 * chart is not automatic: it is one entry of src/core/charts.ts, and
 * test/core/registry-coverage.test.ts fails until a key has one or a stated reason for none.
 */
export const AGENT_STATS = [
  ...(Object.values(ADVANTAGE_DIAGNOSTICS) as AdvantageStat[]),
  ...DIAL_STATS,
  ...OUTCOME_STATS,
  ...MCTS_STATS,
  GRAD_NORM,
  ...UPDATE_STATS,
  ...CREDIT_STATS,
  ...BUFFER_STATS,
] as const;
export type AgentStat = (typeof AGENT_STATS)[number];

/**
 * Same-batch statistics, each under `agent/<name>/shadow/<estimator>/` (the metric keys keep the
 * older word "shadow": they are a contract): the run's own batch weighed by every estimator
 * (src/rl/same-batch.ts). `mean` and `sq_mean` are the mean A and
 * E[A²] over the agent's rows; `corr` is their correlation with the run's own advantages;
 * `grad_norm` (only with diagnostics.shadowGradNorm) the pre-clip gradient norm of the agent's loss
 * term at the step's starting weights with that estimator's advantages.
 */
export const SAME_BATCH_STATS = ['mean', 'sq_mean', 'corr', GRAD_NORM] as const;
/**
 * The estimators a run's same-batch statistics weigh its batch by: every named one, and the run's
 * own when it is `custom` (its definition is the run's, so `shadow/custom/` means that run's).
 */
export const sameBatchEstimators = (own: EstimatorChoice): EstimatorChoice[] =>
  own === 'custom' ? [...ESTIMATOR_NAMES, 'custom'] : [...ESTIMATOR_NAMES];
export type SameBatchStat = (typeof SAME_BATCH_STATS)[number];

/** Per-model statistics, each under `model/<id>/`. */
export const MODEL_STATS = [GRAD_NORM] as const;
export type ModelStat = (typeof MODEL_STATS)[number];

/**
 * Run-level statistics only imported cluster runs have: verl logs them over every agent's rows
 * at once (`response_length/mean`, `critic/advantages/*`); a lab run has them per agent.
 */
export const CLUSTER = {
  respLen: 'resp_len',
  advMean: 'adv/mean',
  advMin: 'adv/min',
  advMax: 'adv/max',
} as const;

/** Series of an imported run that map to no lab metric, kept under their own names. */
const OTHER_PREFIX = 'other/';
export const otherKey = (name: string): string => `${OTHER_PREFIX}${name}`;

export const agentKey = (agent: string, stat: AgentStat): string => `agent/${agent}/${stat}`;
export const agentSameBatchKey = (agent: string, estimator: EstimatorChoice, stat: SameBatchStat): string =>
  `agent/${agent}/shadow/${estimator}/${stat}`;
export const modelKey = (model: string, stat: ModelStat): string => `model/${model}/${stat}`;
export const evalAvgKey = (k: number): string => `eval/avg@${k}`;
export const evalPassKey = (k: number): string => `eval/pass@${k}`;

/** The K of every `eval/avg@K` or `eval/pass@K` among these keys, ascending (an imported run's own K). */
export function evalKsOf(keys: Iterable<string>): number[] {
  const ks = new Set<number>();
  for (const key of keys) {
    const m = /^eval\/(?:avg|pass)@(\d+)$/.exec(key);
    if (m) ks.add(Number(m[1]));
  }
  return [...ks].sort((a, b) => a - b);
}

/** Splits `agent/<name>/<stat>` into its parts, or null for other keys. */
export function parseAgentKey(key: string): { agent: string; stat: AgentStat } | null {
  const m = /^agent\/([^/]+)\/(.+)$/.exec(key);
  if (!m || !(AGENT_STATS as readonly string[]).includes(m[2])) return null;
  return { agent: m[1], stat: m[2] as AgentStat };
}

/** Every key a run with these agents, models and eval k can emit, in a stable order. */
export function metricKeys(
  agents: readonly string[],
  models: readonly string[],
  evalK: number,
  o: {
    shadowGradNorm?: boolean;
    credit?: boolean;
    estimator?: EstimatorChoice;
    ownSuccess?: boolean;
    mcts?: boolean;
    /** rollout.filter ≠ none. */
    filter?: boolean;
    /** train.buffer = per-agent. */
    buffers?: boolean;
  } = {},
): string[] {
  const sameBatch = SAME_BATCH_STATS.filter((s) => s !== GRAD_NORM || o.shadowGradNorm);
  const stats = AGENT_STATS.filter(
    (s) =>
      (o.credit || !(CREDIT_STATS as readonly string[]).includes(s)) &&
      (o.ownSuccess || !(OUTCOME_STATS as readonly string[]).includes(s)) &&
      (o.mcts || !(MCTS_STATS as readonly string[]).includes(s)) &&
      (o.buffers || !(BUFFER_STATS as readonly string[]).includes(s)),
  );
  return [
    ...Object.values(M),
    ...(o.mcts ? Object.values(MCTS_KEYS) : []),
    ...(o.filter ? Object.values(FILTER_METRICS) : []),
    evalAvgKey(evalK),
    evalPassKey(evalK),
    ...agents.flatMap((a) => stats.map((s) => agentKey(a, s))),
    ...agents.flatMap((a) =>
      sameBatchEstimators(o.estimator ?? 'grpo').flatMap((e) =>
        sameBatch.map((s) => agentSameBatchKey(a, e, s)),
      ),
    ),
    ...models.flatMap((m) => MODEL_STATS.map((s) => modelKey(m, s))),
  ];
}
