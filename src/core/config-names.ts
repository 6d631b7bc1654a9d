/**
 * The names an experiment's fields choose among, and the bound on its steps: tasks, backends,
 * samplings, and the mode tables (singleton sets, credit, group filters, buffers) whose
 * docs label the UI's dropdowns. They live apart from the schema because more than the schema
 * reads them: the URL codec, the UI, and the registries in src/rl and src/tasks, which are typed
 * against them, so a name added here without an implementation is a compile error. The loss names
 * (policy losses, KL types, aggregation modes) are the keys of core/losses.ts's registries, the
 * estimators core/estimators.ts's, the model sizes core/model-sizes.ts's. Pure: no zod, no tfjs, no DOM.
 */
import { namesOf } from './registry';

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
export const BACKEND_NAMES = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'] as const;
/** How a step's G rollouts per instance are sampled (src/tasks/sampling.ts holds each one's doc). */
export const SAMPLING_NAMES = ['parallel', 'tree', 'tree-random', 'tree-outcome', 'mcts'] as const;
/** The samplings whose rows are one tree's branches or nodes, not trajectories (nothing to replay for credit). */
export const TREE_SAMPLINGS: readonly SamplingName[] = ['tree', 'tree-random', 'tree-outcome', 'mcts'];

export type TaskName = (typeof TASK_NAMES)[number];
/** What an experiment's `task` may be: a built-in task, or `workflow`, the experiment's own file. */
export const TASK_CHOICES = [...TASK_NAMES, 'workflow'] as const;
export type TaskChoice = (typeof TASK_CHOICES)[number];
export type BackendName = (typeof BACKEND_NAMES)[number];
export type SamplingName = (typeof SAMPLING_NAMES)[number];

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

// ---- MAGRPO and MARS2 as their authors run them (docs/estimators.md#magrpo-as-comlrl-runs-it) ----

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

/** When an agent's rows train its model (src/train/buffers.ts). The docs label the dropdown's options. */
export const BUFFER_MODES = {
  step: { doc: 'Every agent updates on its rows of each step, every step (the lab’s default).' },
  'per-agent': {
    doc:
      'Each agent keeps its own buffer of rows across steps and updates only once it holds train.bufferSize ' +
      'rows, then on all of them; an agent not ready skips the step (MARS2, CoMLRL).',
  },
} as const;
export const BUFFER_MODE_NAMES = namesOf(BUFFER_MODES);

/**
 * The tasks MARS2's tree search (rollout.sampling=mcts, docs/tree-sampling.md#mcts-sampling-mars2) runs
 * on: their answers can be scored and refined node by node (src/tasks/mcts-nodes.ts holds each one's nodes).
 */
export const MCTS_TASKS = ['coder-tester', 'math'] as const;
export type MctsTask = (typeof MCTS_TASKS)[number];
