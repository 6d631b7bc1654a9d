// What an entry of the metric dictionary (src/core/metrics.ts) gets, checked rather than claimed:
// every key a run can emit is charted by some entry of the chart registry (src/core/charts.ts) or
// listed below, with the reason it has no chart; and every key reaches the exports. Adding a
// statistic therefore fails here until it has a chart or a reason.
import { describe, expect, it } from 'vitest';
import { CHARTS, sameBatchCharts, type ChartEntry } from '../../src/core/charts';
import { ESTIMATOR_NAMES, type EstimatorChoice } from '../../src/core/estimators';
import {
  AGENT_STATS,
  agentKey,
  agentSameBatchKey,
  FILTER_METRICS,
  M,
  MCTS_KEYS,
  metricKeys,
  MODEL_STATS,
  modelKey,
  SAME_BATCH_STATS,
  type AgentStat,
  type ModelStat,
  type SameBatchStat,
} from '../../src/core/metrics';
import { readEventFile, writeEventFile } from '../../src/interop/tensorboard';

const AGENT = 'alice';
const MODEL = 'm0';
const K = 4;
/** `custom` as well: a custom run's same-batch set includes its own estimator. */
const ESTIMATORS: EstimatorChoice[] = [...ESTIMATOR_NAMES, 'custom'];

/** Every key a run can emit: every feature that adds keys switched on. */
const EMITTED = metricKeys([AGENT], [MODEL], K, {
  shadowGradNorm: true,
  credit: true,
  estimator: 'custom',
  ownSuccess: true,
  mcts: true,
  filter: true,
  buffers: true,
});

/** Every chart the board can show: the fixed ones and every estimator's same-batch set. */
const ALL_CHARTS: ChartEntry[] = [
  ...CHARTS,
  ...ESTIMATORS.flatMap((name) => sameBatchCharts({ name, label: name, doc: '' })),
];

/** The keys a chart draws for one agent and one eval K. */
const drawn = (c: ChartEntry): string[] =>
  c.series.per === 'agent' ? [c.series.key(AGENT)] : c.series.keys([K]).map((s) => s.key);

// The keys without a chart, each with why. A reason says where the figure is read instead, or why a
// line over steps would not tell anything.
const UNCHARTED_RUN: Partial<Record<string, string>> = {
  [M.step]: 'the x axis of every chart',
  [M.timeS]: 'wall-clock time: the TensorBoard export’s wall time, not a learning figure',
  [M.rewardStd]: 'the spread of trajectory rewards; per agent, σk is charted',
  [M.singletonFrac]: 'batch composition (groups of one rollout): a property of the task and sampling',
  [M.zeroAdvFrac]: 'batch composition (groups whose rollouts tied); per agent, E[A²] shows the lost signal',
  [M.rolloutMs]: 'this computer’s cost, not learning: the CLI prints it per step',
  [M.updateMs]: 'this computer’s cost, not learning: the CLI prints it per step',
  [M.evalMs]: 'this computer’s cost, 0 on steps without an evaluation',
  [M.saveMs]: 'this computer’s cost of saving, 0 where no state is saved: bench:experiment reads it',
  [M.memTensors]: 'memory bookkeeping of this computer: leak checks read it',
  [M.memGpuBytes]: 'memory bookkeeping of this computer: leak checks read it',
  [M.envErrors]: 'failures: the findings card and lab report count them',
  [M.updateSkipped]: 'failures: the findings card and lab report count them',
  [M.decodeForwards]: 'a cost count of the rollout, in the export',
  [M.creditMs]: 'the cost of credit replays, in the export',
  [M.creditReplays]: 'the cost of credit replays, in the export',
  [M.creditEnvSteps]: 'the cost of credit replays, in the export',
  [M.creditUnrecorded]: 'a check on credit replays (calls that took the neutral default), in the export',
  [M.creditErrors]: 'a check on credit replays (failed environments), in the export',
  [M.completionCalls]: 'a cost count of tree sampling, in the export',
  [MCTS_KEYS.treeNodes]: 'set by rollout.nodes; how the nodes split among agents is charted (nodes per tree)',
  [FILTER_METRICS.keptFrac]: 'the group filter’s bookkeeping, in the export',
  [FILTER_METRICS.emptyStep]: 'the group filter’s bookkeeping (a 0/1 per step), in the export',
};
const UNCHARTED_AGENT: Partial<Record<AgentStat, string>> = {
  calls: 'a row count set by the task’s turns: the What differs card weighs agents by it',
  'adv/min':
    'one batch’s extreme: the spread is charted as E[A²]; the import target of verl’s advantages/min',
  'adv/max':
    'one batch’s extreme: the spread is charted as E[A²]; the import target of verl’s advantages/max',
  amplification_rows:
    'the amplification under global-step’s baseline: a check on that estimator, the amplification chart is GRPO’s',
  traj_reward_share:
    'whether the amplification chart predicts GRPO’s E[A²] for the agent (at 1 only): What differs says it in words',
  'reward/scale': 'a setting in force, not a measurement: the charts mark a live change of it',
  'reward/offset': 'a setting in force, not a measurement: the charts mark a live change of it',
  'credit/se':
    'the Monte-Carlo precision of credit/mean (0 when exact), a check rather than a learning figure',
  updated: 'per-agent buffers’ schedule, a 0/1 per step, in the export',
  buffer: 'per-agent buffers’ fill level, in the export',
};
const UNCHARTED_SAME_BATCH: Partial<Record<SameBatchStat, string>> = {
  mean: 'the mean advantage under each estimator, near 0 for the centred ones: the What differs card reads it',
};
const UNCHARTED_MODEL: Partial<Record<ModelStat, string>> = {
  grad_norm:
    'the board draws a line per run and agent, not per model; one agent’s model has its agent’s grad norm, and a shared model’s per-agent terms are charted',
};

/** The exclusions as keys, for the one agent and model above. */
const UNCHARTED = new Map<string, string>([
  ...Object.entries(UNCHARTED_RUN),
  ...Object.entries(UNCHARTED_AGENT).map(([s, why]) => [agentKey(AGENT, s as AgentStat), why]),
  ...Object.entries(UNCHARTED_SAME_BATCH).flatMap(([s, why]) =>
    ESTIMATORS.map((e) => [agentSameBatchKey(AGENT, e, s as SameBatchStat), why]),
  ),
  ...Object.entries(UNCHARTED_MODEL).map(([s, why]) => [modelKey(MODEL, s as ModelStat), why]),
] as [string, string][]);

describe('the metric dictionary and the chart registry', () => {
  const charted = new Set(ALL_CHARTS.flatMap(drawn));

  it('charts every key a run emits, or says why not', () => {
    const neither = EMITTED.filter((k) => !charted.has(k) && !UNCHARTED.has(k));
    expect(neither).toEqual([]);
  });

  it('lists no charted key as uncharted, and no key a run cannot emit', () => {
    expect([...UNCHARTED.keys()].filter((k) => charted.has(k))).toEqual([]);
    expect([...UNCHARTED.keys()].filter((k) => !EMITTED.includes(k))).toEqual([]);
  });

  it('every statistic of the dictionary is among the keys a run emits', () => {
    // The eval keys are per K; the others are listed in metrics.ts.
    const expected = [
      ...Object.values(M),
      ...Object.values(MCTS_KEYS),
      ...Object.values(FILTER_METRICS),
      ...AGENT_STATS.map((s) => agentKey(AGENT, s)),
      ...ESTIMATORS.flatMap((e) => SAME_BATCH_STATS.map((s) => agentSameBatchKey(AGENT, e, s))),
      ...MODEL_STATS.map((s) => modelKey(MODEL, s)),
    ];
    expect(expected.filter((k) => !EMITTED.includes(k))).toEqual([]);
  });
});

describe('the exports carry every key', () => {
  // The CSV export's columns are each run's frame key table (src/ui/export.ts reads
  // runData(id).codec.keys), which is the trainer's metricKeys(), i.e. EMITTED for these features;
  // the JSON export writes each recorded row whole. Neither picks keys, so what guarantees them is
  // the key table, checked above. The TensorBoard writer filters rows, so it is run here.
  it('TensorBoard: a row with every key reads back with every key', () => {
    const row = Object.fromEntries(EMITTED.map((k, i) => [k, k === M.step ? 3 : (i % 7) / 8]));
    const [back] = readEventFile(writeEventFile([row], 1_700_000_000)).rows;
    expect(Object.keys(back).sort()).toEqual([...EMITTED].sort());
  });
});
