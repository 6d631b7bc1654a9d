/**
 * Metric names: the one dictionary used by the trainer, the CLI's JSONL, CSV export and charts
 * (DESIGN.md "Metric names"). Keys are flat paths; a chart is a prefix filter. Build every
 * per-agent or per-model key with the helpers below, never by hand. Pure: no tfjs, no DOM.
 */
import { ESTIMATOR_NAMES, type EstimatorName } from './config';

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
  tokensPerS: 'perf/tokens_per_s',
  memTensors: 'mem/tensors',
  memGpuBytes: 'mem/gpu_bytes',
  /** Trajectories whose environment failed, hung or crashed this step (reward 0, no gradient). */
  envErrors: 'env/errors',
  /** Models whose update was skipped for a non-finite loss or gradient. */
  updateSkipped: 'update/skipped',
  /** Batched decode forwards (= logits readbacks) this step's rollout made. */
  decodeForwards: 'perf/decode_forwards',
} as const;

/**
 * Per-agent statistics, each under `agent/<name>/`. `kl` is verl's ppo_kl, the mean of
 * log π_old − log π over the agent's tokens (the policy's drift within the update), and `pg_loss`,
 * `entropy` are the agent's own aggregated values (Σ w·x / Σ w over its tokens).
 */
export const AGENT_STATS = [
  'calls',
  'reward/mean',
  'reward/std',
  'adv/mean',
  'adv/sq_mean',
  'adv/min',
  'adv/max',
  'amplification',
  'amplification_rows',
  'grad_norm',
  'pg_loss',
  'clipfrac',
  'kl',
  'entropy',
  'resp_len',
] as const;
export type AgentStat = (typeof AGENT_STATS)[number];

/**
 * Same-batch ("shadow") statistics, each under `agent/<name>/shadow/<estimator>/`: the run's own
 * batch weighed by every estimator (src/rl/shadow.ts). `mean` and `sq_mean` are the mean A and
 * E[A²] over the agent's rows; `corr` is their correlation with the run's own advantages.
 */
export const SHADOW_STATS = ['mean', 'sq_mean', 'corr'] as const;
export type ShadowStat = (typeof SHADOW_STATS)[number];

/** Per-model statistics, each under `model/<id>/`. */
export const MODEL_STATS = ['grad_norm'] as const;
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
export const OTHER_PREFIX = 'other/';
export const otherKey = (name: string): string => `${OTHER_PREFIX}${name}`;

export const agentKey = (agent: string, stat: AgentStat): string => `agent/${agent}/${stat}`;
export const agentShadowKey = (agent: string, estimator: EstimatorName, stat: ShadowStat): string =>
  `agent/${agent}/shadow/${estimator}/${stat}`;
export const modelKey = (model: string, stat: ModelStat): string => `model/${model}/${stat}`;
export const evalAvgKey = (k: number): string => `eval/avg@${k}`;
export const evalPassKey = (k: number): string => `eval/pass@${k}`;

/** Splits `agent/<name>/<stat>` into its parts, or null for other keys. */
export function parseAgentKey(key: string): { agent: string; stat: AgentStat } | null {
  const m = /^agent\/([^/]+)\/(.+)$/.exec(key);
  if (!m || !(AGENT_STATS as readonly string[]).includes(m[2])) return null;
  return { agent: m[1], stat: m[2] as AgentStat };
}

/** Every key a run with these agents, models and eval k can emit, in a stable order. */
export function metricKeys(agents: readonly string[], models: readonly string[], evalK: number): string[] {
  return [
    ...Object.values(M),
    evalAvgKey(evalK),
    evalPassKey(evalK),
    ...agents.flatMap((a) => AGENT_STATS.map((s) => agentKey(a, s))),
    ...agents.flatMap((a) => ESTIMATOR_NAMES.flatMap((e) => SHADOW_STATS.map((s) => agentShadowKey(a, e, s)))),
    ...models.flatMap((m) => MODEL_STATS.map((s) => modelKey(m, s))),
  ];
}
