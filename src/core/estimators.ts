/**
 * The estimators, one entry each (docs/estimators.md#the-estimator-api): the config's name (the
 * key), the name people know it by, its place in the estimator algebra
 * (docs/estimator-algebra.md#estimator-algebra), its doc, where it applies, and its normalization
 * set in plain words. Everything else reads this table: the schema's names (config-run.ts), a run's
 * default label (run-labels.ts), the same-batch statistics (metrics.ts), the page's estimator menu,
 * chart titles, rollout inspector and run colours, and the computation (rl/advantage.ts), which
 * holds no words.
 * Adding an estimator is one entry here. Pure: no tfjs, no DOM.
 */
import { defOf, setsText, type AlgebraFields, type EstimatorDef } from './advantage-sets';
import { lookup, namesOf } from './registry';

/** One estimator: its place in the algebra, and what the page says about it. */
interface EstimatorSpec extends EstimatorDef {
  /** The name people know it by, for chart titles, legends and a run's default label. */
  label: string;
  /** Normalization set, formula in the paper's notation, and the reference it follows. */
  doc: string;
  /** Where it applies: what it means under tree sampling (docs/tree-sampling.md), or the setting it names. */
  applies: string;
  /** The values of a row's normalization set, in plain words (turn: the agent's call index, 0-based). */
  within: (agent: string, turn: number) => string;
  /**
   * Its colour wherever a run of it is drawn or named (charts, legends, the status bar, Findings,
   * the Map, imports, exported images): Okabe–Ito's, told apart in colour-blind palettes.
   */
  color: string;
  /** Other names a run of it goes by (a preset's run label, another tool's spelling), to know an imported run by. */
  aka?: readonly string[];
}

/** The named estimators, keyed by the config's names, in the order menus and tables list them. */
export const ESTIMATORS = {
  grpo: {
    label: 'GRPO',
    doc:
      'Vanilla GRPO as the Dr. MAS repo runs it (group_by_agent_id=False; ray_trainer.py::compute_advantage). ' +
      "Set: prompt group q over its G trajectories. s̄_i = mean of trajectory i's row rewards; " +
      'A_i = (s̄_i − μ_q)/(σ_q + ε) with μ_q, σ_q over {s̄_1..s̄_G}; every row of trajectory i gets A_i. (docs/estimators.md#grpo)',
    applies:
      "Tree sampling: runs, but not meaningful: branch i is no trajectory (each level continues from the chosen sibling, not from branch i's own), so s̄_i averages unrelated candidates.",
    unit: 'trajectories',
    meanOver: ['group'],
    stdOver: ['group'],
    within: () => 'the G trajectory scores of its question',
    color: '#d55e00',
  },
  drmas: {
    label: 'Dr. MAS',
    doc:
      'Dr. MAS agent-wise normalization (arXiv 2602.08847; group_by_agent_id=True, key uid_agentId). ' +
      'Set Y_k(q): every row of agent k over the G rollouts of prompt q, steps not trajectories. ' +
      'A_y = (r_y − μ_k)/(σ_k + ε) with μ_k, σ_k over Y_k(q). (docs/estimators.md#drmas)',
    applies:
      "Tree sampling: an agent-wise baseline over all of the agent's candidates in the tree, pooled across its turns: sound where its turn rewards share one scale, but no per-state baseline.",
    unit: 'rows',
    meanOver: ['group', 'agent'],
    stdOver: ['group', 'agent'],
    within: (agent) => `agent ${agent}’s rows over the G rollouts of its question`,
    color: '#0072b2',
  },
  atgrpo: {
    label: 'AT-GRPO',
    doc:
      'AT-GRPO (PettingLLMs, arXiv 2510.11062), its documented intent: set = (prompt q, agent k, turn t), ' +
      'the candidates of one agent at one turn. A_y = (r_y − μ_{q,k,t})/(σ_{q,k,t} + ε). (docs/estimators.md#atgrpo)',
    applies:
      'Tree sampling is what it is built for: each set is the G siblings sampled from one state, never a singleton; under parallel sampling the sets mix states from turn 1 on.',
    unit: 'rows',
    meanOver: ['group', 'agent', 'turn'],
    stdOver: ['group', 'agent', 'turn'],
    within: (agent, turn) => `agent ${agent}’s call-${turn + 1} rows over the G rollouts of its question`,
    color: '#cc79a7',
  },
  'global-step': {
    label: 'Step-level',
    doc:
      'Step-level ablation (Dr. MAS issue #81, "Mechanism B" without the per-agent split): ' +
      'set = prompt q over all rows of all agents, no trajectory averaging. ' +
      'A_y = (r_y − mean(rows_q))/(std(rows_q) + ε). (docs/estimators.md#global-step)',
    applies:
      'Tree sampling: one baseline over every candidate of every level and agent: runs, but mixes states and agents.',
    unit: 'rows',
    meanOver: ['group'],
    stdOver: ['group'],
    within: () => 'every row of the G rollouts of its question',
    color: '#009e73',
    // Its label before it became the preset runs' one (docs/vocabulary.md): an older import's run.
    aka: ['global step-level'],
  },
  magrpo: {
    label: 'MAGRPO',
    doc:
      'MAGRPO (CoMLRL, arXiv 2508.04652) mean baseline, REINFORCE-style: set = (prompt q, agent k, turn t); ' +
      'A_y = r_y − μ_{q,k,t}, never divided by a std. (docs/estimators.md#magrpo; comlrl magrpo.py _compute_advantages "mean")',
    applies:
      'Tree sampling: meaningful, its own setting: the G siblings of one node share the mean baseline.',
    unit: 'rows',
    meanOver: ['group', 'agent', 'turn'],
    stdOver: 'none',
    within: (agent, turn) => `agent ${agent}’s call-${turn + 1} rows over the G rollouts of its question`,
    color: '#e69f00',
  },
  mars2: {
    label: 'MARS2',
    doc:
      'MARS2 (MARTI, arXiv 2602.07848; experience_maker.py group_norm): set = one search tree, every node of every agent, one group across agents; ' +
      'A_y = (r_y − μ_tree)/(σ_tree + ε), then each agent trains on its own nodes. (docs/estimators.md#mars2)',
    applies:
      "The algebra's (rows; group; group), as global-step: the two differ in the setting they name, a tree of rollout.sampling=mcts, whose group is the tree's nodes.",
    unit: 'rows',
    meanOver: ['group'],
    stdOver: ['group'],
    within: () => 'every node of its tree, all agents together',
    color: '#56b4e9',
  },
} as const satisfies Record<string, EstimatorSpec>;

/** The `custom` choice: the run's own instance of the algebra, its sets named by its config. */
const CUSTOM = {
  label: 'custom',
  doc:
    "The run's own instance of the algebra: advantage.unit (rows, or trajectories = the mean of a trajectory's rows), " +
    'the set the mean is taken over (advantage.meanOver) and the set the std is taken over (advantage.stdOver, or none), ' +
    'each a comma list of batch, group, agent, turn. A = (s − μ_mean set)/(σ_std set + ε). (docs/estimator-algebra.md#estimator-algebra)',
};

export type EstimatorName = keyof typeof ESTIMATORS;
/** The named estimators, in entry order (the schema's enum, the same-batch statistics). */
export const ESTIMATOR_NAMES = namesOf(ESTIMATORS);
/** What a run may choose: a named estimator, or `custom`, defined by its advantage.unit, .meanOver and .stdOver. */
export const ESTIMATOR_CHOICES = [...ESTIMATOR_NAMES, 'custom'] as const;
export type EstimatorChoice = (typeof ESTIMATOR_CHOICES)[number];

/** Every choice a run's estimator field offers, with its label and doc (the doc says where it applies too). */
export const ESTIMATOR_OPTIONS = Object.fromEntries([
  ...ESTIMATOR_NAMES.map((name) => {
    const { label, doc, applies } = ESTIMATORS[name];
    return [name, { label, doc: `${doc} ${applies}` }];
  }),
  ['custom', CUSTOM],
]) as Record<EstimatorChoice, { label: string; doc: string }>;

/**
 * Colours for a run whose estimator's own colour an earlier run took (two GRPO runs), a `custom`
 * run and an imported run named after no estimator: none is an estimator's.
 */
const SPARE_COLORS = ['#000000', '#8c564b', '#999933', '#882255', '#7f7f7f'] as const;

/**
 * Each run's colour, in order: its estimator's own where no earlier run (nor `taken`, the colours
 * already drawn) has it, else the first spare no run has. So a colour never stands for two
 * estimators, and Dr. MAS is one blue in a two-run, a three-run and an imported session.
 * `undefined` is an estimator not known (an imported run's name says none).
 */
export function runColors(
  estimators: readonly (EstimatorChoice | undefined)[],
  taken: readonly string[] = [],
): string[] {
  const used = new Set(taken);
  return estimators.map((e) => {
    const own = e && e !== 'custom' ? ESTIMATORS[e].color : undefined;
    const color =
      own && !used.has(own)
        ? own
        : (SPARE_COLORS.find((c) => !used.has(c)) ?? SPARE_COLORS[used.size % SPARE_COLORS.length]);
    used.add(color);
    return color;
  });
}

const squashed = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The named estimator a run's name says (an imported run's: `grpo_seed2`, `Dr. MAS (imported)`),
 * by its id, label or another name it goes by, the longest that fits (`magrpo` is not `grpo`);
 * undefined where none does.
 */
export function estimatorNamed(name: string): EstimatorName | undefined {
  const text = squashed(name);
  let best: { e: EstimatorName; length: number } | undefined;
  for (const e of ESTIMATOR_NAMES) {
    const spec: EstimatorSpec = ESTIMATORS[e];
    for (const n of [e, spec.label, ...(spec.aka ?? [])].map(squashed))
      if (text.includes(n) && n.length > (best?.length ?? 0)) best = { e, length: n.length };
  }
  return best?.e;
}

/** Looks a named estimator up; an unknown name throws with the valid list. */
export const getEstimator = (name: string): EstimatorSpec => lookup(ESTIMATORS, 'advantage estimator', name);

/** A choice's own label where `v` is a choice (a raw config's estimator field), else undefined. */
export const ownLabel = (v: unknown): string | undefined =>
  typeof v === 'string' && Object.hasOwn(ESTIMATOR_OPTIONS, v)
    ? ESTIMATOR_OPTIONS[v as EstimatorChoice].label
    : undefined;

/** The definition of a run's estimator: a named one's entry, or `custom`'s from the advantage options. */
export function estimatorDef(estimator: EstimatorChoice, options: AlgebraFields = {}): EstimatorDef {
  if (estimator !== 'custom') return getEstimator(estimator);
  return defOf(options);
}

/** A definition as it reads in a chart: `rows; group,agent; none`. */
export const defText = (d: EstimatorDef): string =>
  `${d.unit}; ${setsText(d.meanOver)}; ${setsText(d.stdOver)}`;

/** What a chart calls a run's estimator: the name people know, or `custom (rows; group,agent; none)`. */
export function estimatorLabel(estimator: EstimatorChoice, options: AlgebraFields = {}): string {
  return estimator === 'custom'
    ? `custom (${defText(estimatorDef(estimator, options))})`
    : getEstimator(estimator).label;
}

/**
 * What one row's advantage was computed from, in plain words, from the estimator's entry: the
 * value (its trajectory's score or its own reward) and the set it is normalized within.
 */
export function advantageBasis(
  choice: EstimatorChoice,
  row: { agent: string; turn: number },
  normalizeStd = true,
  options: AlgebraFields = {},
): string {
  const def = estimatorDef(choice, options);
  const value =
    def.unit === 'trajectories' ? 'trajectory score = mean of its rows’ rewards' : 'this row’s reward';
  const how =
    def.stdOver !== 'none' && normalizeStd ? 'normalized by the mean and std of' : 'minus the mean of';
  // A custom run's sets are its own: said as the algebra writes them, not in a named one's words.
  if (choice === 'custom') return `${value}, ${how} its set (custom: ${defText(def)})`;
  const spec = getEstimator(choice);
  return `${value}, ${how} ${spec.within(row.agent, row.turn)} (${spec.label})`;
}
