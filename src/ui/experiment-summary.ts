/**
 * The Experiment panel's summary of every setting, row by row, in words a newcomer can read: the
 * config keys and values are spelled out ("learning rate 0.001", "a set with one member keeps its
 * raw score") rather than abbreviated ("lr", "singletons raw"). Kept apart from the panel's React
 * so its wording can be tested. The memory row is the panel's: it needs the backend's limit.
 */
import { SINGLETON_MODES } from '../core/config-names';
import type { Experiment } from '../core/config';
import { optionLabel } from './config-edit';
import { labelOf } from './field-labels';
import { needsPreparedBase } from './session/workflow-library';

/** How each set's values become advantages: centred, scaled by the set's spread unless that is off. */
function advantageWords(c: Experiment): string {
  const a = c.advantage;
  const scaled = a.normalizeStd
    ? `each set’s mean subtracted, then divided by its standard deviation + ε (${a.eps})`
    : 'each set’s mean subtracted, not divided by its standard deviation';
  return `${scaled}; ${SINGLETON_MODES[a.singleton].summary}`;
}

/** One agent's own optimizer settings, each by its field label where it has one ("Learning rate 0.002"). */
const perAgentWords = (own: Record<string, unknown>): string =>
  Object.entries(own)
    .map(([k, v]) => `${labelOf(`optim.${k}`) ?? k} ${String(v)}`)
    .join(', ');

/** Where the runs' models start: shipped checkpoints, a workflow's own prepared in the page, or scratch. */
function baseWords(c: Experiment): string {
  if (c.models.base !== 'shipped') return 'from scratch';
  return needsPreparedBase(c)
    ? 'base models prepared in this browser from the workflow’s demonstrations (Prepare base models)'
    : 'shipped base checkpoints';
}

/** The summary's rows, [name, words], in the panel's order (Memory is added by the panel). */
export function summaryRows(c: Experiment): [string, string][] {
  const perAgentModels = Object.entries(c.models.perAgent);
  const perAgentOptim = Object.entries(c.optim.perAgent);
  return [
    ['Task', c.task],
    [
      'Models',
      `${c.models.assignment === 'shared' ? 'one shared model (role tokens)' : 'one model per agent'}, ${c.models.preset}${
        perAgentModels.length ? ` (${perAgentModels.map(([a, p]) => `${a}: ${p}`).join(', ')})` : ''
      }${Object.entries(c.models.from)
        .map(([a, from]) => `, ${a} starts from ${from}'s base`)
        .join('')}, ${baseWords(c)}`,
    ],
    [
      'Rollout',
      `B = ${c.rollout.batchSize} instances × ${c.rollout.sampling === 'mcts' ? `one search tree of N = ${c.rollout.nodes} nodes` : `G = ${c.rollout.groupSize} rollouts`}, temperature ${c.rollout.temperature}, top-p ${c.rollout.topP}`,
    ],
    [
      'Optimizer',
      `AdamW, learning rate ${c.optim.lr}, weight decay ${c.optim.weightDecay}, probability ratio clipped ${c.optim.clipLow} below / ${c.optim.clipHigh} above 1 (dual clip ${c.optim.dualClip}), loss aggregation ${c.optim.lossAgg}`,
    ],
    ...(perAgentOptim.length
      ? [
          [
            'Per agent',
            perAgentOptim.map(([agent, own]) => `${agent}: ${perAgentWords(own)}`).join('; '),
          ] as [string, string],
        ]
      : []),
    [
      'Updates',
      `${optionLabel('optim.policyLoss', c.optim.policyLoss)} loss, ${c.train.buffer === 'per-agent' ? `per-agent buffers of ${c.train.bufferSize} rows` : 'every agent every step'}, ${c.rollout.filter === 'mixed' ? 'groups whose rewards all tie are dropped' : 'every group trained on'}${c.reward.joint ? ', one joint reward' : ''}`,
    ],
    ['Advantage', advantageWords(c)],
    [
      'Credit',
      c.reward.credit === 'shared'
        ? 'shared (no per-agent credit)'
        : `${c.reward.credit}, row reward = shared + ${c.reward.creditWeight} × credit${c.reward.credit === 'shapley' ? ` (> 3 agents: ${c.reward.creditSamples} permutations)` : ''}`,
    ],
    [
      'Evaluation',
      c.eval.every
        ? `every ${c.eval.every} steps on ${c.eval.questions} held-out questions, ${c.eval.k} samples each: avg@${c.eval.k} (share of samples that solve) and pass@${c.eval.k} (share of questions any sample solves)`
        : 'off',
    ],
    ['Steps · seed', `${c.steps} steps · seed ${c.seed}${c.seeds > 1 ? ` × ${c.seeds} seeds` : ''}`],
  ];
}
