/**
 * The experiment config: one versioned zod schema for a whole experiment, with every field's
 * default, range and one-line doc in one place (the docs feed UI tooltips and the README table).
 * Name lists (tasks, estimators, backends, singleton modes) live here because the schema, the URL codec and the
 * UI dropdowns read them; the registries in src/rl and src/tasks are typed against them, so a name
 * added here without an implementation is a compile error. The loss names (policy losses, KL
 * types, aggregation modes) are the keys of core/losses.ts's registries, the model sizes core/model-sizes.ts's. Pure: no tfjs, no DOM.
 */
import { z } from 'zod';
import { ALGEBRA_FIELDS, defOf, defProblems } from './advantage-sets';
import { KL_TYPES, LOSS_AGG_MODES, POLICY_LOSS_NAMES } from './losses';
import { MODEL_PRESETS } from './model-sizes';
import { namesOf } from './registry';
import { isRecord, renameRolesInConfig } from './renamed-roles';
import { ESTIMATOR_LABELS, labelRunsByEstimator } from './run-labels';

// No compiled parsers: the page's CSP refuses eval, and zod's probe for it would be reported as a
// violation on every load (src/host/headers.ts).
z.config({ jitless: true });

/** Bump when a field changes meaning; add a migration in url.ts for the old version. */
export const CONFIG_VERSION = 1;
/** The most optimizer steps a run may take: the page keeps every one of them in memory (ui/run-data.ts). */
export const MAX_STEPS = 100_000;

export const TASK_NAMES = [
  'search',
  'math',
  'sync',
  'coder-tester',
  'search-roles',
  'plan',
  'search-routing',
  'sync-own',
] as const;
/** The named estimators: instances of the estimator algebra (src/core/advantage-sets.ts). */
export const ESTIMATOR_NAMES = ['grpo', 'drmas', 'atgrpo', 'global-step', 'magrpo', 'mars2'] as const;
/** What a run may choose: a named estimator, or `custom`, defined by its advantage.unit, .meanOver and .stdOver. */
export const ESTIMATOR_CHOICES = [...ESTIMATOR_NAMES, 'custom'] as const;
export const BACKEND_NAMES = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'] as const;
/** How a step's G rollouts per instance are sampled (src/tasks/sampling.ts holds each one's doc). */
export const SAMPLING_NAMES = ['parallel', 'tree', 'tree-random', 'tree-outcome', 'mcts'] as const;
/** The samplings whose rows are one tree's branches or nodes, not trajectories (nothing to replay for credit). */
export const TREE_SAMPLINGS: readonly SamplingName[] = ['tree', 'tree-random', 'tree-outcome', 'mcts'];

export type TaskName = (typeof TASK_NAMES)[number];
export type EstimatorName = (typeof ESTIMATOR_NAMES)[number];
export type EstimatorChoice = (typeof ESTIMATOR_CHOICES)[number];
export type BackendName = (typeof BACKEND_NAMES)[number];

/**
 * How a normalization set of one value is treated (docs/estimators.md#group-statistics; rl/stats.ts setStats). The
 * docs label the dropdown's options; `summary` says the mode in plain words (the Experiment panel's summary).
 */
export const SINGLETON_MODES = {
  raw: {
    doc: 'The raw score: μ = 0, σ = 1, so A = s/(1 + ε), not centred (verl, Dr. MAS).',
    summary: 'a set with one member keeps its raw score',
  },
  zero: {
    doc: 'A = 0, no signal from a set of one (PettingLLMs), when some set of the batch has ≥ 2 members; else raw.',
    summary: 'a set with one member gets advantage 0',
  },
} as const;
export type SingletonMode = keyof typeof SINGLETON_MODES;
export type SamplingName = (typeof SAMPLING_NAMES)[number];

/**
 * Per-agent credit modes (SHARP, arXiv 2602.08335; src/rl/credit.ts computes them). The docs label
 * the dropdown's options.
 */
export const CREDIT_MODES = {
  shared: {
    doc: 'No per-agent credit: every row keeps its shared (or role) reward, as in Dr. MAS and GRPO.',
  },
  counterfactual: {
    doc: "c_k = v(all) − v(all without k): the outcome minus the outcome of a replay with agent k's outputs replaced by its neutral default (K replays per trajectory).",
  },
  shapley: {
    doc: 'φ_k = Shapley-weighted mean marginal contribution v(S ∪ k) − v(S) over coalitions: exact for ≤ 3 agents (2^K − 1 replays), seeded Monte-Carlo permutations beyond.',
  },
} as const;
export type CreditName = keyof typeof CREDIT_MODES;
export const CREDIT_NAMES = namesOf(CREDIT_MODES);

// ---- MAGRPO and MARS2 as their authors run them: group filter, joint reward, per-agent
// buffers. Kept in one block; RolloutSchema, RewardSchema, RunSchema and the experiment take these
// fields by name (docs/estimators.md#magrpo-as-comlrl-runs-it).

/** Which groups a step trains on (src/rl/group-filter.ts applies them). The docs label the dropdown's options. */
export const GROUP_FILTERS = {
  none: { doc: 'Every group is trained on.' },
  mixed: {
    doc:
      'Groups (a prompt’s G rollouts, or one tree) whose rewards are all equal are dropped before the ' +
      'advantages and the update, as MARS2 and DAPO do: they carry no signal. groups/kept_frac is the share ' +
      'kept; a step left with none updates nothing and says so in groups/empty_step.',
  },
} as const;
export type GroupFilterName = keyof typeof GROUP_FILTERS;
export const GROUP_FILTER_NAMES = namesOf(GROUP_FILTERS);

/** rollout.filter: which groups a step trains on. */
const FILTER_FIELD = {
  filter: z
    .enum(GROUP_FILTER_NAMES)
    .default('none')
    .describe('Which groups are trained on: all (none), or only those whose rewards differ (mixed)'),
};

/** reward.joint: one reward for every agent (MAGRPO's joint reward). */
const JOINT_FIELD = {
  joint: z
    .boolean()
    .optional()
    .describe(
      "true: every row carries its trajectory's outcome reward, one joint reward for all agents (MAGRPO), instead of its agent's own; absent = false",
    ),
};

/** When an agent's rows train its model (src/train/buffers.ts). The docs label the dropdown's options. */
export const BUFFER_MODES = {
  step: { doc: 'Every agent updates on its rows of each step, every step (the lab’s default).' },
  'per-agent': {
    doc:
      'Each agent keeps its own buffer of rows across steps and updates only once it holds train.bufferSize ' +
      'rows, then on all of them; an agent not ready skips the step (MARS2, CoMLRL).',
  },
} as const;
export type BufferMode = keyof typeof BUFFER_MODES;
export const BUFFER_MODE_NAMES = namesOf(BUFFER_MODES);

/** train.*: when rows train. */
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

// ---- end of the MAGRPO and MARS2 block ----------------------------------------------------------

const label = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[\w .+()-]+$/, 'letters, digits, spaces and _ . + ( ) - only');
const agentName = z.string().regex(/^[a-z][a-z0-9-]{0,15}$/, 'an agent name (lower-case, ≤ 16 chars)');

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
  ...JOINT_FIELD,
});

/** Optimizer and loss settings shared by the agents (OptimSchema adds their own). */
const OptimFields = z.strictObject({
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
export const PER_AGENT = {
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

// ---- MARS2 tree search (rollout.sampling=mcts; src/tasks/mcts.ts, docs/tree-sampling.md#mcts-sampling-mars2) ----

/** The tasks whose answers can be scored and refined node by node (src/tasks/mcts-nodes.ts holds each one's nodes). */
export const MCTS_TASKS = ['coder-tester', 'math'] as const;
export type MctsTask = (typeof MCTS_TASKS)[number];

/** The rollout fields of the MARS2 search, spread into RolloutSchema. */
const MCTS_ROLLOUT_FIELDS = {
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
};

/** rollout.arms as a list (absent: undefined, every agent is an arm). */
export const armsOf = (arms: string | undefined): string[] | undefined => arms?.split(',');

/** rollout.arms given to a run that does not sample by mcts: refused, it would be ignored. */
function armsIssues(exp: { rollout: { sampling: SamplingName; arms?: string }; runs: Run[] }) {
  const message = 'only rollout.sampling=mcts has arms';
  const own = exp.runs.flatMap((r, i) =>
    r.rollout.arms !== undefined && (r.rollout.sampling ?? exp.rollout.sampling) !== 'mcts'
      ? [{ path: ['runs', i, 'rollout', 'arms'], message }]
      : [],
  );
  const shared =
    exp.rollout.arms !== undefined &&
    exp.runs.some(
      (r) => r.rollout.arms === undefined && (r.rollout.sampling ?? exp.rollout.sampling) !== 'mcts',
    );
  return [...own, ...(shared ? [{ path: ['rollout', 'arms'], message }] : [])];
}

/** Runs that sample by mcts on a task without nodes: refused with the tasks that have them. */
function mctsIssues(exp: { task: TaskName; rollout: { sampling: SamplingName }; runs: Run[] }) {
  if ((MCTS_TASKS as readonly string[]).includes(exp.task)) return [];
  const message = `mcts needs a task whose answers are scored and refined node by node: ${MCTS_TASKS.join(', ')} (this one is ${exp.task})`;
  const own = exp.runs.flatMap((r, i) =>
    r.rollout.sampling === 'mcts' ? [{ path: ['runs', i, 'rollout', 'sampling'], message }] : [],
  );
  const shared = exp.rollout.sampling === 'mcts' && exp.runs.some((r) => r.rollout.sampling === undefined);
  return [...own, ...(shared ? [{ path: ['rollout', 'sampling'], message }] : [])];
}

// ---- end of the MARS2 block ----

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
  ...MCTS_ROLLOUT_FIELDS,
  ...FILTER_FIELD,
});

/**
 * The live hyper-parameters, one entry each: what a user may change while a run trains, without
 * a reset (recorded with the step it took effect at). The key is the field's name in `section`;
 * its doc and range are that schema field's; `label` and `step` are the live panel's. The URL's
 * structure check, the JSON editor, the live panel, the run state and the trainer all read this
 * table (like TensorFlow Playground's state.ts).
 */
export const LIVE = {
  lr: { section: 'optim', label: 'learning rate', step: 1e-4 },
  maxGradNorm: { section: 'optim', label: 'max grad norm', step: 0.1 },
  clipLow: { section: 'optim', label: 'clip ε low', step: 0.05 },
  clipHigh: { section: 'optim', label: 'clip ε high', step: 0.05 },
  entropyCoef: { section: 'optim', label: 'entropy coef', step: 0.001 },
  temperature: { section: 'rollout', label: 'temperature', step: 0.1 },
} as const satisfies Record<string, { section: 'optim' | 'rollout'; label: string; step: number }>;

export type LiveParam = keyof typeof LIVE;
export const LIVE_PARAMS = Object.keys(LIVE) as LiveParam[];
const SECTIONS = { optim: OptimSchema, rollout: RolloutSchema };

/** Where live parameters live: an experiment, or a trainer's resolved settings. */
export interface LiveHolder {
  optim: z.infer<typeof OptimSchema>;
  rollout: z.infer<typeof RolloutSchema>;
}

/** The schema field of a live parameter: its doc (`.description`) and its range. */
export const liveField = (p: LiveParam): z.ZodType =>
  (SECTIONS[LIVE[p].section].shape as Record<string, z.ZodType>)[p];

export const liveValue = (c: LiveHolder, p: LiveParam): number =>
  (c[LIVE[p].section] as Record<string, unknown>)[p] as number;

/** `c` with live parameter `p` set to `v` (a copy; `c` is left alone). */
export function withLive<C extends LiveHolder>(c: C, p: LiveParam, v: number): C {
  const section = LIVE[p].section;
  return { ...c, [section]: { ...c[section], [p]: v } };
}

/**
 * The same fields with no defaults, all optional: a run's overrides must stay absent unless set,
 * or they would shadow the experiment-wide value (`.partial()` keeps inner defaults in zod 4).
 */
function overridesOf<T extends z.ZodRawShape>(schema: z.ZodObject<T>) {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const inner = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType);
    shape[key] = inner.optional();
  }
  return z.strictObject(shape) as unknown as z.ZodType<Partial<z.output<z.ZodObject<T>>>>;
}

/** The live parameters of one section, as a mask for zod's `pick`. */
const liveMask = (section: 'optim' | 'rollout') =>
  Object.fromEntries(LIVE_PARAMS.filter((p) => LIVE[p].section === section).map((p) => [p, true])) as Record<
    string,
    true
  >;

/**
 * What a run took at one step: live values by section, as in the experiment (`optim.lr`). An
 * entry, and each section in it, names at least one value: an empty one would not survive a link.
 */
export const LiveChangeSchema = z
  .strictObject({
    optim: overridesOf(OptimFields.pick(liveMask('optim') as never)).optional(),
    rollout: overridesOf(RolloutSchema.pick(liveMask('rollout') as never)).optional(),
  })
  .superRefine((change, ctx) => {
    const sections = Object.entries(change).filter(([, v]) => v !== undefined);
    if (sections.length === 0) ctx.addIssue({ code: 'custom', message: 'names no live parameter' });
    for (const [section, values] of sections)
      if (Object.keys(values as object).length === 0)
        ctx.addIssue({ code: 'custom', path: [section], message: 'names no live parameter' });
  });
export type LiveChange = { [S in 'optim' | 'rollout']?: Partial<Record<LiveParam, number>> };
/** A run's live changes by the step it took them at (docs/links.md#live-change-schedule). */
export type LiveSchedule = Record<string, LiveChange>;

/** A schedule's key: a step index, written without sign, point or leading zeros. */
const stepKey = z
  .string()
  .regex(/^(0|[1-9]\d*)$/, 'a step is a whole number ≥ 0')
  .refine((k) => Number(k) < MAX_STEPS, `a step is below ${MAX_STEPS}`);

/** The rollout settings a run may override: how it samples and which groups it keeps, over the same task stream as the others. */
export const RunRolloutSchema = RolloutSchema.pick({ sampling: true, filter: true, arms: true });

/** Fields one run may change relative to the experiment (e.g. the estimator's options). */
export const RunSchema = z.strictObject({
  label: label.describe("Legend name of the run; absent: its estimator's label (docs/links.md#run-labels)"),
  estimator: z
    .enum(ESTIMATOR_CHOICES)
    .describe('Advantage estimator: a named one, or custom (advantage.unit, .meanOver, .stdOver)'),
  advantage: overridesOf(AdvantageSchema).default({}).describe('Overrides of the advantage options'),
  optim: overridesOf(OptimSchema).default({}).describe('Overrides of the optimizer settings'),
  reward: overridesOf(RewardSchema)
    .default({})
    .describe('Overrides of the per-agent credit settings and reward dials'),
  rollout: overridesOf(RunRolloutSchema)
    .default({})
    .describe(
      'Overrides of rollout.sampling (tree vs parallel on one task stream), rollout.filter and rollout.arms',
    ),
  train: overridesOf(TrainSchema).optional().describe('Overrides of train.buffer and train.bufferSize'),
  live: (z.record(stepKey, LiveChangeSchema) as unknown as z.ZodType<LiveSchedule>)
    .default({})
    .describe('Live changes this run took, by step: replayed at that step (runs.0.live.179.optim.lr=0.003)'),
});

export const ExperimentSchema = z
  .strictObject({
    task: z.enum(TASK_NAMES).default('search').describe('Multi-agent task'),
    models: z
      .strictObject({
        assignment: z
          .enum(['per-agent', 'shared'])
          .default('per-agent')
          .describe('One model per agent, or one shared model with role tokens'),
        preset: z
          .enum(MODEL_PRESETS)
          .default('nano')
          .describe('Model size for every agent (shipped base models are nano)'),
        perAgent: z
          .record(agentName, z.enum(MODEL_PRESETS))
          .default({})
          .describe('Per-agent model size (heterogeneous; per-agent assignment only)'),
        ids: z
          .record(agentName, agentName)
          .default({})
          .describe(
            'Per-agent model id (DrMAS model_ids): agents given the same id share one model (per-agent assignment only)',
          ),
        from: z
          .record(agentName, agentName)
          .default({})
          .describe(
            "Per-agent: start this agent's model from another agent's shipped base (a MARS2 team of two coders: models.from.tester=coder; per-agent assignment only)",
          ),
        base: z
          .enum(['shipped', 'scratch'])
          .default('shipped')
          .describe('Start from the shipped base checkpoints'),
      })
      .prefault({}),
    runs: z
      .array(RunSchema)
      .min(1)
      .max(6)
      .superRefine((runs, ctx) => {
        // A label names a run's lines, its state file and its stored state: two alike would mix them.
        runs.forEach((r, i) => {
          const first = runs.findIndex((o) => o.label === r.label);
          if (first < i)
            ctx.addIssue({
              code: 'custom',
              path: [i, 'label'],
              message: `"${r.label}" is run ${first}'s label too; labels must differ`,
            });
        });
      })
      .prefault([
        { label: ESTIMATOR_LABELS.grpo, estimator: 'grpo' },
        { label: ESTIMATOR_LABELS.drmas, estimator: 'drmas' },
      ])
      .describe('The runs compared side by side; they share seed, base models and task stream'),
    rollout: RolloutSchema.prefault({}),
    optim: OptimSchema.prefault({}),
    advantage: AdvantageSchema.prefault({}),
    reward: RewardSchema.prefault({}),
    train: TrainSchema.prefault({}),
    eval: z
      .strictObject({
        every: z.number().int().min(0).default(10).describe('Evaluate every N steps (0 = never)'),
        k: z
          .number()
          .int()
          .min(1)
          .max(64)
          .default(8)
          .describe('Samples per validation question (avg@k, pass@k)'),
        questions: z
          .number()
          .int()
          .min(1)
          .max(512)
          .default(32)
          .describe('Validation questions per evaluation'),
        temperature: z.number().positive().max(4).default(0.6).describe('Validation sampling temperature'),
        topP: z.number().gt(0).max(1).default(0.95).describe('Validation nucleus mass'),
      })
      .prefault({}),
    diagnostics: z
      .strictObject({
        shadowGradNorm: z
          .boolean()
          .default(false)
          .describe(
            "Per agent, the gradient norm under every estimator on the run's own batch (one extra backward per agent and estimator)",
          ),
      })
      .prefault({}),
    steps: z.number().int().min(1).max(MAX_STEPS).default(200).describe('Optimizer iterations per run'),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0)
      .describe('Seeds task stream, init and sampling'),
    seeds: z.number().int().min(1).max(8).default(1).describe('Repeat every run over this many seeds'),
    backend: z
      .enum(BACKEND_NAMES)
      .default('auto')
      .describe('Compute backend (auto = fastest that passes a check)'),
  })
  .superRefine((exp, ctx) => {
    // Credit replays a trajectory with an agent's outputs masked; a tree's branch k is no trajectory
    // (each level continues from the chosen sibling, src/tasks/tree.ts), so there is nothing to replay.
    const bad = new Map<string, { path: (string | number)[]; credit: string }>();
    exp.runs.forEach((r, i) => {
      if (!TREE_SAMPLINGS.includes(r.rollout.sampling ?? exp.rollout.sampling)) return;
      const own = r.reward.credit !== undefined;
      const credit = r.reward.credit ?? exp.reward.credit;
      const path = own ? ['runs', i, 'reward', 'credit'] : ['reward', 'credit'];
      if (credit !== 'shared') bad.set(path.join('.'), { path, credit });
    });
    for (const { path, credit } of bad.values()) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `'${credit}' credit replays trajectories, and tree sampling's branches are not trajectories: use rollout.sampling=parallel or credit shared`,
      });
    }
    algebraIssues(exp).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
    mctsIssues(exp).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
    armsIssues(exp).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
  });

/**
 * A run's own advantage.unit/.meanOver/.stdOver define its estimator only under `custom`: under a
 * named one they would be ignored, so they are refused. A custom definition must make sense.
 */
function algebraIssues(exp: {
  runs: Run[];
  advantage: AdvantageOptions;
}): { path: (string | number)[]; message: string }[] {
  const unread = exp.runs.some((r) => r.estimator === 'custom')
    ? []
    : (['unit', 'meanOver', 'stdOver'] as const)
        .filter((f) => exp.advantage[f] !== undefined)
        .map((f) => ({
          path: ['advantage', f],
          message: 'only estimator custom reads it, and no run is custom',
        }));
  return [
    ...unread,
    ...exp.runs.flatMap((r, i) => {
      if (r.estimator !== 'custom') {
        const own = (['unit', 'meanOver', 'stdOver'] as const).filter((f) => r.advantage[f] !== undefined);
        return own.map((f) => ({
          path: ['runs', i, 'advantage', f],
          message: `only estimator custom reads it (this run's estimator is ${r.estimator})`,
        }));
      }
      let def;
      try {
        def = defOf({ ...exp.advantage, ...r.advantage });
      } catch {
        return []; // a set list the field's own check already refused
      }
      return defProblems(def).map(({ field, message }) => ({
        path: r.advantage[field] !== undefined ? ['runs', i, 'advantage', field] : ['advantage', field],
        message,
      }));
    }),
  ];
}

export type Experiment = z.infer<typeof ExperimentSchema>;
export type Run = z.infer<typeof RunSchema>;
export type Optim = z.infer<typeof OptimSchema>;
export type AdvantageOptions = z.infer<typeof AdvantageSchema>;
export type RewardOptions = z.infer<typeof RewardSchema>;
export type TrainOptions = z.infer<typeof TrainSchema>;

/** The default experiment: GRPO vs Dr. MAS on `search`, one model per agent. */
export const DEFAULT_EXPERIMENT: Experiment = Object.freeze(ExperimentSchema.parse({})) as Experiment;

/** One problem with an input, named by its dotted path (e.g. `runs.1.estimator`). */
export interface FieldError {
  path: string;
  message: string;
  /** The link's own text for this key, where a link gave one (what the alert quotes back). */
  got?: string;
  /**
   * The legend label of the run the path lies in (`runs.1.…`), as the refused input itself gives
   * it: the page names the run by it ("Dr. MAS run: Estimator"), not by the runs on screen.
   */
  run?: string;
}

/** Field errors on one line, `path: message; …` (how a sweep, a sweep map and a run state say them). */
export const fieldErrorsText = (errors: readonly FieldError[]): string =>
  errors.map((e) => `${e.path}: ${e.message}`).join('; ');

/**
 * Field names of earlier builds, read as today's: `optim.lrPerAgent.<agent>` (of the experiment or
 * a run) is `optim.perAgent.<agent>.lr`, so links, stored sessions and session folders written before
 * keep working. Everything else is left for the schema to judge.
 */
function renameLegacy(input: unknown): unknown {
  const optimOf = (optim: unknown): unknown => {
    if (!isRecord(optim) || !isRecord(optim.lrPerAgent)) return optim;
    const { lrPerAgent, ...rest } = optim;
    const perAgent: Record<string, unknown> = isRecord(rest.perAgent) ? { ...rest.perAgent } : {};
    for (const [agent, lr] of Object.entries(lrPerAgent))
      perAgent[agent] = { lr, ...(isRecord(perAgent[agent]) ? perAgent[agent] : {}) };
    return { ...rest, perAgent };
  };
  if (!isRecord(input)) return input;
  const out = { ...input };
  if ('optim' in out) out.optim = optimOf(out.optim);
  if (Array.isArray(out.runs))
    out.runs = out.runs.map((r: unknown) =>
      isRecord(r) && 'optim' in r ? { ...r, optim: optimOf(r.optim) } : r,
    );
  return out;
}

/**
 * Validates a plain object; unknown keys and type mismatches are errors, never ignored. A task's
 * old role names (renamed-roles.ts) are read as today's, and `note` says so.
 */
export function validateExperiment(
  input: unknown,
): { ok: true; config: Experiment; note?: string } | { ok: false; errors: FieldError[] } {
  const roles = renameRolesInConfig(input); // plan's solver/coder are its planner/executor
  if (roles.conflicts.length) return { ok: false, errors: roles.conflicts };
  // A run given an estimator and no label is named by its estimator (run-labels.ts).
  const labelled = labelRunsByEstimator(roles.input);
  const r = ExperimentSchema.safeParse(renameLegacy(labelled.input));
  const note = [roles.note, labelled.note].filter(Boolean).join('; ');
  if (r.success) return { ok: true, config: r.data, ...(note ? { note } : {}) };
  const errors = r.error.issues.flatMap((issue): FieldError[] => {
    const at = issue.path.map(String);
    const run = runLabelAt(labelled.input, at);
    const ofRun = run === undefined ? {} : { run };
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({
        path: [...at, k].join('.'),
        message: scheduleMessage([...at, k], issue.code, 'unknown field'),
        ...ofRun,
      }));
    }
    // zod says "expected int, received number" for 2.5: a reader sees two numbers.
    const notWhole = issue.code === 'invalid_type' && issue.expected === 'int';
    const message = notWhole ? 'expected a whole number' : issue.message;
    return [{ path: at.join('.') || '(root)', message: scheduleMessage(at, issue.code, message), ...ofRun }];
  });
  return { ok: false, errors };
}

/** The label the input gives the run at `runs.N.…`, where it is a valid one (else the run is named by N). */
function runLabelAt(input: unknown, at: string[]): string | undefined {
  if (at[0] !== 'runs' || at.length < 3 || !isRecord(input) || !Array.isArray(input.runs)) return undefined;
  const run: unknown = input.runs[Number(at[1])];
  const valid = isRecord(run) ? label.safeParse(run.label) : undefined;
  return valid?.success ? valid.data : undefined;
}

/**
 * A schedule entry's problem in a reader's words: the live field by its label and the step
 * (`learning rate at step 179: …`); a key that is no step says so. Other paths keep `message`.
 */
function scheduleMessage(at: string[], code: string, message: string): string {
  const [runs, , live, step, section, param] = at;
  if (runs !== 'runs' || live !== 'live' || step === undefined) return message;
  if (code === 'invalid_key')
    return `live change at step ${JSON.stringify(step)}: a step is a whole number from 0 to ${MAX_STEPS - 1}`;
  const p = param as LiveParam | undefined;
  const named = p !== undefined && p in LIVE && LIVE[p].section === section;
  return `${named ? LIVE[p].label : 'live change'} at step ${step}: ${message}`;
}

/** The config with every live field and schedule blanked: two configs with equal keys need no reset. */
export function structuralKey(c: Experiment): string {
  let blank: Experiment = { ...c, runs: c.runs.map((r) => ({ ...r, live: {} })) };
  for (const p of LIVE_PARAMS) blank = withLive(blank, p, 0);
  return JSON.stringify(blank);
}

/**
 * Every run × seed of an experiment, in the one order the CLI, the workers and the stored
 * sessions use: legend label (`label #s` for the s-th repeat when there are several seeds), seed,
 * and index into exp.runs.
 */
export function runRepeats(exp: Experiment): { label: string; seed: number; runIndex: number }[] {
  return exp.runs.flatMap((run, runIndex) =>
    Array.from({ length: exp.seeds }, (_, s) => ({
      label: exp.seeds > 1 ? `${run.label} #${s}` : run.label,
      seed: exp.seed + s,
      runIndex,
    })),
  );
}

/** The effective optimizer, advantage, credit, rollout and train settings of one run (experiment values + run overrides). */
export function resolveRun(
  exp: Experiment,
  run: Run,
): {
  optim: Optim;
  advantage: AdvantageOptions;
  reward: RewardOptions;
  rollout: Experiment['rollout'];
  train: TrainOptions;
} {
  return {
    optim: { ...exp.optim, ...run.optim },
    advantage: { ...exp.advantage, ...run.advantage },
    // The dials merge per agent: a run's reward.scale.answer leaves the experiment's other agents' scales.
    reward: {
      ...exp.reward,
      ...run.reward,
      scale: { ...exp.reward.scale, ...run.reward.scale },
      offset: { ...exp.reward.offset, ...run.reward.offset },
    },
    rollout: { ...exp.rollout, ...run.rollout },
    train: { ...exp.train, ...run.train },
  };
}
