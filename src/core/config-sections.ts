/**
 * The schema of each section an experiment shares among its runs, in the experiment's order:
 * rollout, optim, advantage, reward, train. Every field's default, range and one-line doc is here
 * (the docs feed UI tooltips and the README table); config-run.ts gives a run its overrides of the
 * same fields, and config.ts composes the experiment from them. The names the fields choose among
 * are config-names.ts's. Pure: no tfjs, no DOM.
 */
import './zod-setup'; // no compiled parsers (the page's CSP refuses eval)
import { z } from 'zod';
import { ALGEBRA_FIELDS } from './advantage-sets';
import {
  BUFFER_MODE_NAMES,
  CREDIT_NAMES,
  GROUP_FILTER_NAMES,
  SAMPLING_NAMES,
  SINGLETON_MODES,
  type SingletonMode,
} from './config-names';
import { KL_TYPES, LOSS_AGG_MODES, POLICY_LOSS_NAMES } from './losses';

/** An agent's name, as the per-agent fields key it. */
export const agentName = z.string().regex(/^[a-z][a-z0-9-]{0,15}$/, 'an agent name (lower-case, ≤ 16 chars)');

/**
 * The same fields with no defaults, all optional: a run's overrides must stay absent unless set,
 * or they would shadow the experiment-wide value (`.partial()` keeps inner defaults in zod 4).
 */
export function overridesOf<T extends z.ZodRawShape>(schema: z.ZodObject<T>) {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const inner = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType);
    shape[key] = inner.optional();
  }
  return z.strictObject(shape) as unknown as z.ZodType<Partial<z.output<z.ZodObject<T>>>>;
}

/** How training rollouts are sampled. */
export const RolloutSchema = z.strictObject({
  groupSize: z.number().int().min(2).max(32).default(8).describe('G: rollouts per task instance'),
  batchSize: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(4)
    .describe('B: task instances per step (4 keeps a wasm step near 3 s)'),
  temperature: z.number().positive().max(4).default(1).describe('Sampling temperature'),
  topP: z.number().gt(0).max(1).default(1).describe('Nucleus sampling mass'),
  envTimeoutMs: z.number().int().min(10).max(60_000).default(2000).describe('Environment step time limit'),
  sampling: z
    .enum(SAMPLING_NAMES)
    .default('parallel')
    .describe(
      "parallel: G independent rollouts per instance; tree (AT-GRPO): G sibling candidates per turn from one shared state, the best copied forward; tree-random: the same, a uniformly drawn sibling copied forward (ablation); tree-outcome: the best copied forward, every candidate scored by a greedy completion's outcome (ablation); mcts (MARS2): one tree of rollout.nodes answers per instance, each a fresh answer or a refinement, the agents chosen as arms by Thompson sampling",
    ),
  // MARS2's tree search (rollout.sampling=mcts; src/tasks/mcts.ts, docs/tree-sampling.md#mcts-sampling-mars2).
  nodes: z
    .number()
    .int()
    .min(2)
    .max(32)
    .default(8)
    .describe(
      'rollout.sampling=mcts: nodes per tree (one tree per instance is the group; MARS2 trains with 8)',
    ),
  arms: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,15}(,[a-z][a-z0-9-]{0,15})*$/, 'a comma list of agent names')
    .optional()
    .describe(
      "rollout.sampling=mcts: the agents that are the search's arms, a comma list (default: every agent); one agent alone is the single-agent search at the same node budget",
    ),
  // MARS2 and DAPO train only on groups whose rewards differ (docs/estimators.md#magrpo-as-comlrl-runs-it).
  filter: z
    .enum(GROUP_FILTER_NAMES)
    .default('none')
    .describe('Which groups are trained on: all (none), or only those whose rewards differ (mixed)'),
});

/** rollout.arms as a list (absent: undefined, every agent is an arm). */
export const armsOf = (arms: string | undefined): string[] | undefined => arms?.split(',');

/** Optimizer and loss settings shared by the agents (OptimSchema adds their own). */
export const OptimFields = z.strictObject({
  lr: z.number().positive().max(1).default(3e-4).describe('AdamW learning rate, constant, no warm-up'),
  weightDecay: z.number().min(0).max(1).default(0.01).describe('Decoupled AdamW weight decay'),
  maxGradNorm: z
    .number()
    .positive()
    .max(1000)
    .default(1)
    .describe('Global-norm clip; the pre-clip norm is logged'),
  clipLow: z.number().min(0).max(1).default(0.2).describe('PPO ratio clip below 1 (ε_low)'),
  clipHigh: z.number().min(0).max(10).default(0.2).describe('PPO ratio clip above 1 (ε_high)'),
  dualClip: z.number().gt(1).max(100).default(3).describe('Dual-clip bound c for negative advantages (> 1)'),
  policyLoss: z.enum(POLICY_LOSS_NAMES).default('vanilla').describe('Per-token policy loss (core/losses.ts)'),
  lossAgg: z.enum(LOSS_AGG_MODES).default('token-mean').describe('How token losses become one scalar'),
  klCoef: z
    .number()
    .min(0)
    .max(10)
    .default(0)
    .describe('KL-to-reference coefficient (0 = no reference model)'),
  klType: z.enum(KL_TYPES).default('k3').describe('KL estimator (k3 = low-variance, clamped)'),
  entropyCoef: z.number().min(0).max(1).default(0).describe('Entropy bonus coefficient'),
  epochs: z.number().int().min(1).max(8).default(1).describe('PPO epochs over each batch'),
  miniBatches: z.number().int().min(1).max(16).default(1).describe('Optimizer steps per epoch'),
});

/**
 * The settings an agent may set for itself, as DrMAS's agent_specific_parameters.actor.*: its
 * model's optimizer (learning rate, grad clip) and its loss term's (clip ratios, entropy bonus).
 * An agent's value wins over the experiment's, live changes included. Agents sharing a model
 * (models.ids) must agree, and with models.assignment = shared there are none (src/train/models.ts).
 */
const PER_AGENT = {
  lr: true,
  maxGradNorm: true,
  clipLow: true,
  clipHigh: true,
  entropyCoef: true,
} as const;
export type PerAgentField = keyof typeof PER_AGENT;
export const PER_AGENT_FIELDS = Object.keys(PER_AGENT) as PerAgentField[];

/** Optimizer and loss settings; a run may override any of them, an agent the PER_AGENT ones. */
export const OptimSchema = OptimFields.extend({
  perAgent: z
    .record(agentName, overridesOf(OptimFields.pick(PER_AGENT)))
    .default({})
    .describe(
      `Per-agent overrides of ${PER_AGENT_FIELDS.join(', ')} (agents with their own models; DrMAS agent_specific_parameters)`,
    ),
});

/** Advantage-estimator options shared by every estimator (docs/estimators.md#group-statistics). */
export const AdvantageSchema = z.strictObject({
  normalizeStd: z
    .boolean()
    .default(true)
    .describe('Divide by the group std (false = Dr. GRPO centering only)'),
  eps: z.number().positive().max(1).default(1e-6).describe('Added to the std, not the variance (verl)'),
  singleton: z
    .enum(Object.keys(SINGLETON_MODES) as [SingletonMode, ...SingletonMode[]])
    .default('raw')
    .describe('Size-1 sets: raw score (verl, Dr. MAS) or 0 (PettingLLMs)'),
  ...ALGEBRA_FIELDS,
});

/**
 * Per-agent credit (SHARP, arXiv 2602.08335, built from its definition: src/rl/credit.ts,
 * src/tasks/replay.ts). Each row's reward becomes its shared reward + λ × its agent's credit.
 */
export const RewardSchema = z.strictObject({
  credit: z
    .enum(CREDIT_NAMES)
    .default('shared')
    .describe(
      "Per-agent credit added to each row's reward: none (shared), outcome minus outcome with the agent's outputs replaced by its neutral default (counterfactual), or its Shapley value (shapley)",
    ),
  creditReplay: z
    .enum(['turn', 'prompt'])
    .default('turn')
    .describe(
      "Replays: a kept agent's n-th recorded output answers its n-th call whatever the prompt (turn: the others' actions held fixed, as difference rewards and COMA), or only where it sees the same prompt again (prompt)",
    ),
  creditWeight: z
    .number()
    .min(0)
    .max(10)
    .default(1)
    .describe('λ: row reward = shared reward + λ × the agent’s credit'),
  creditSamples: z
    .number()
    .int()
    .min(2)
    .max(256)
    .default(32)
    .describe(
      'Shapley with more than 3 agents: seeded Monte-Carlo permutations per trajectory (≤ 3 agents is exact)',
    ),
  scale: z
    .record(agentName, z.number().gt(0).max(1000))
    .optional()
    .describe("Per agent, ρ > 0 multiplying its rows' rewards before advantages (after credit); absent = 1"),
  offset: z
    .record(agentName, z.number().min(-1000).max(1000))
    .optional()
    .describe("Per agent, b added to its rows' rewards before advantages (after the scale); absent = 0"),
  // MAGRPO's joint reward (docs/estimators.md#magrpo-as-comlrl-runs-it).
  joint: z
    .boolean()
    .optional()
    .describe(
      "true: every row carries its trajectory's outcome reward, one joint reward for all agents (MAGRPO), instead of its agent's own; absent = false",
    ),
});

/** train.*: when an agent's rows train its model (MARS2, CoMLRL; docs/estimators.md#magrpo-as-comlrl-runs-it). */
export const TrainSchema = z.strictObject({
  buffer: z
    .enum(BUFFER_MODE_NAMES)
    .default('step')
    .describe("When an agent's rows train it: every step (step), or once its own buffer is full (per-agent)"),
  bufferSize: z
    .number()
    .int()
    .min(1)
    .max(4096)
    .default(64)
    .describe('per-agent: rows an agent’s buffer holds before it updates on them'),
});

export type RolloutOptions = z.infer<typeof RolloutSchema>;
export type Optim = z.infer<typeof OptimSchema>;
export type AdvantageOptions = z.infer<typeof AdvantageSchema>;
export type RewardOptions = z.infer<typeof RewardSchema>;
export type TrainOptions = z.infer<typeof TrainSchema>;
