/**
 * One run's Dr. MAS launch script, in the shape of its examples/drmas_trainer/run_math.sh and
 * run_search.sh: a train/eval mode switch, an algorithm block, an agent block with the per-agent
 * lists, and one `python3 -m verl.trainer.main_ppo` call whose Hydra overrides carry the run's
 * settings under Dr. MAS's names (drmas-counterparts.ts). drmas.ts has already refused what Dr.
 * MAS cannot run. Pure: no Node, no DOM.
 */
import type { Experiment } from '../core/config';
import type { AdvantageOptions, Optim, PerAgentField } from '../core/config-sections';
import { PER_AGENT_FIELDS } from '../core/config-sections';
import { taskOf } from '../tasks/registry';
import { ACTOR_KEYS, CLUSTER_COMMON, VERL_KL_TYPES, shellVar, type DrmasTask } from './drmas-counterparts';

const py = (x: boolean) => (x ? 'True' : 'False');
const list = (xs: readonly (string | number)[]) =>
  `[${xs.map((x) => (typeof x === 'string' ? `"${x}"` : String(x))).join(',')}]`;
const slug = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '') || 'run';

/** A run's script's file name. */
export const scriptName = (task: DrmasTask, label: string) => `run_${task.env}_${slug(label)}.sh`;

/** The override of one PER_AGENT field: the shared value, or null there and the per-agent list. */
function perAgentOverride(
  own: readonly PerAgentField[],
  field: PerAgentField,
  shared: number,
): [string, string | number][] {
  const key = ACTOR_KEYS[field];
  return own.includes(field)
    ? [
        [`actor_rollout_ref.actor.${key}`, 'null'],
        [`+agent.agent_specific_parameters.actor.${key}`, `$${shellVar(key)}`],
      ]
    : [[`actor_rollout_ref.actor.${key}`, shared]];
}

/** The experiment's agents as Dr. MAS runs them, in the lab's agent order: the same for every run. */
interface Team {
  agents: string[];
  drmasIds: string[];
  modelIds: string[];
  sharing: boolean;
}

/** What one run sets in its script: its label, its resolved settings and their verl names. */
interface ScriptRun {
  label: string;
  optim: Optim;
  advantage: AdvantageOptions;
  /** Dr. MAS's estimator switch: algorithm.group_by_agent_id. */
  groupByAgent: boolean;
  /** verl's name of the run's loss aggregation. */
  lossAgg: string;
}

/** The bash script of one run. */
export function launchScript(exp: Experiment, task: DrmasTask, team: Team, run: ScriptRun): string {
  const { agents, drmasIds, modelIds, sharing } = team;
  const { label, optim, advantage, groupByAgent, lossAgg } = run;
  // Per-agent settings: the learning rate always (as Dr. MAS's scripts), the others where an agent sets its own.
  const own = PER_AGENT_FIELDS.filter(
    (f) => f === 'lr' || agents.some((a) => optim.perAgent[a]?.[f] !== undefined),
  );
  const perAgent = own.map((f) => ({
    key: ACTOR_KEYS[f],
    values: agents.map((a) => optim.perAgent[a]?.[f] ?? optim[f]),
  }));
  const invalidPenalty = taskOf(exp).invalidPenalty;
  const overrides: [string, string | number][] = [
    ['algorithm.adv_estimator', '$algorithm'],
    ['algorithm.norm_adv_by_std_in_grpo', py(advantage.normalizeStd)],
    ['data.train_files', '$TRAIN_DATA'],
    ['data.val_files', '$VAL_DATA'],
    ['data.train_batch_size', '$train_data_size'],
    ['data.return_raw_chat', 'True'],
    ['actor_rollout_ref.model.path', 'null'],
    ...perAgentOverride(own, 'lr', optim.lr),
    ['actor_rollout_ref.actor.optim.weight_decay', optim.weightDecay],
    ...perAgentOverride(own, 'maxGradNorm', optim.maxGradNorm),
    ...perAgentOverride(own, 'clipLow', optim.clipLow),
    ...perAgentOverride(own, 'clipHigh', optim.clipHigh),
    ['actor_rollout_ref.actor.clip_ratio_c', optim.dualClip],
    ['actor_rollout_ref.actor.loss_agg_mode', lossAgg],
    ['actor_rollout_ref.actor.use_kl_loss', py(optim.klCoef > 0)],
    ['actor_rollout_ref.actor.kl_loss_coef', optim.klCoef],
    ['actor_rollout_ref.actor.kl_loss_type', VERL_KL_TYPES[optim.klType]],
    ...perAgentOverride(own, 'entropyCoef', optim.entropyCoef),
    ['actor_rollout_ref.actor.ppo_epochs', optim.epochs],
    ['actor_rollout_ref.actor.use_adaptive_ppo_mini_batch_size', 'True'],
    ['actor_rollout_ref.actor.ppo_mini_update_num', optim.miniBatches],
    ['actor_rollout_ref.actor.use_invalid_action_penalty', py(invalidPenalty > 0)],
    ['actor_rollout_ref.actor.invalid_action_penalty_coef', invalidPenalty],
    ['actor_rollout_ref.rollout.name', 'sglang'],
    ['actor_rollout_ref.rollout.temperature', exp.rollout.temperature],
    ['actor_rollout_ref.rollout.top_p', exp.rollout.topP],
    ['actor_rollout_ref.rollout.val_kwargs.do_sample', 'True'],
    ['actor_rollout_ref.rollout.val_kwargs.temperature', exp.eval.temperature],
    ['actor_rollout_ref.rollout.val_kwargs.top_p', exp.eval.topP],
    ['algorithm.group_by_agent_id', '$group_by_agent_id'],
    ['env.env_name', task.env],
    ['env.seed', '$seed'],
    ['env.rollout.n', '$group_size'],
    ['env.rollout.val_n', '$val_group_size'],
    ['agent.agent_ids', '"$agent_ids"'],
    ['agent.model_ids', '"$model_ids"'],
    ['agent.model_sharing', '$model_sharing'],
    ['agent.orchestra_type', '$orchestra_type'],
    ...task.limit,
    ['trainer.critic_warmup', 0],
    ['trainer.logger', "['console','tensorboard']"],
    ['trainer.project_name', `'DrMAS_${task.env}'`],
    ['trainer.experiment_name', '"$experiment_name"'],
    ['trainer.total_training_steps', exp.steps],
    ['trainer.test_freq', exp.eval.every > 0 ? exp.eval.every : -1],
    ['trainer.val_only', '$VAL_ONLY'],
    ['trainer.val_before_train', 'True'],
    ...task.cluster,
    ...CLUSTER_COMMON,
  ];
  return [
    '#!/usr/bin/env bash',
    `# One run of a lab experiment as a Dr. MAS launch script (written by npm run lab -- export drmas).`,
    '# Run from a Dr. MAS checkout: bash <this script> [train|eval] [seed]. See README.md beside it.',
    'set -x',
    '',
    'MODE=${1:-train}',
    `seed=\${2:-${exp.seed}}`,
    'if [ "$MODE" == "eval" ] || [ "$MODE" == "evaluation" ]; then',
    '    echo "Running in evaluation mode"',
    '    VAL_ONLY=True',
    `    TRAIN_DATA="$HOME/data/${task.data}/train.parquet"`,
    `    VAL_DATA="$HOME/data/${task.data}/test.parquet" # Full test dataset`,
    'else',
    '    echo "Running in training mode"',
    '    VAL_ONLY=False',
    `    TRAIN_DATA="$HOME/data/${task.data}/train.parquet"`,
    `    VAL_DATA="$HOME/data/${task.data}/test_sampled.parquet" # For fast validation during training`,
    'fi',
    `train_data_size=${exp.rollout.batchSize}`,
    `val_group_size=${exp.eval.k} # avg@${exp.eval.k} and pass@${exp.eval.k}, as the lab's eval.k`,
    '',
    '###################### Algorithm Configurations #################',
    'algorithm=grpo',
    `group_size=${exp.rollout.groupSize}`,
    `group_by_agent_id=${py(groupByAgent)}`,
    '',
    '##################### Agent Configurations #####################',
    `agent_ids='${list(drmasIds)}'`,
    `model_ids='${list(modelIds)}'`,
    `model_sharing=${py(sharing)}`,
    '',
    `orchestra_type=${task.env}`,
    '',
    '# Agent-specific parameter override (only support actor_rollout_ref)',
    ...perAgent.map((p) => `${shellVar(p.key)}='${list(p.values)}'`),
    `actor_ppo_micro_batch_size_per_gpu='${list(agents.map(() => 4))}'`,
    '',
    '# The cluster (Dr. MAS asks for 4 H100 for 3-4B models, 8 for 7-8B: see README.md)',
    'n_gpus_per_node=${N_GPUS_PER_NODE:-4}',
    'nnodes=${NNODES:-1}',
    '',
    `model_name_tag=$(jq -r '.[]' <<< "$model_ids" | awk -F/ '{print $NF}' | tr '[:upper:]' '[:lower:]' | tr '-' '_' | paste -sd_)`,
    '',
    `experiment_name="${slug(label)}_share\${model_sharing}_\${model_name_tag}_seed\${seed}"`,
    '# Event files per run, so npm run lab -- import shows each as its own run.',
    `export TENSORBOARD_DIR="tensorboard_log/DrMAS_${task.env}/$experiment_name"`,
    '',
    'python3 -m verl.trainer.main_ppo \\',
    overrides.map(([k, v]) => `    ${k}=${v}`).join(' \\\n'),
    '',
  ].join('\n');
}
