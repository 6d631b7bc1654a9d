/**
 * A lab experiment as Dr. MAS launch scripts (langfengQ/DrMAS, verl fork on Ray with SGLang): one
 * bash script per run in the shape of its examples/drmas_trainer/run_math.sh and run_search.sh —
 * a train/eval mode switch, an algorithm block, an agent block, one `python3 -m
 * verl.trainer.main_ppo` call with Hydra overrides — and the wg_id → agents map `lab import`
 * reads the cluster's event files with. Every override key exists in Dr. MAS's
 * verl/trainer/config/ppo_trainer.yaml or carries Hydra's `+` (test/interop/drmas.test.ts holds the
 * list and the commit it was checked against). What Dr. MAS cannot run is refused naming the
 * field. Pure: no Node, no DOM.
 */
import { resolveRun } from '../core/config-run';
import { PER_AGENT_FIELDS } from '../core/config-sections';
import type { Experiment } from '../core/config';
import type { TaskName } from '../core/config-names';
import type { PerAgentField } from '../core/config-sections';
import type { KlType, LossAggMode } from '../core/losses';
import { MATH_MAX_LOOPS } from '../tasks/math';
import { getTask } from '../tasks/registry';
import { SEARCH_MAX_STEPS } from '../tasks/search';
import type { WgMap } from './metric-map';

/** Dr. MAS's own default model (its run_math.sh). */
export const DEFAULT_DRMAS_MODEL = 'Qwen/Qwen3-4B';

/** The lab tasks Dr. MAS has a counterpart of, with its agent ids (in the lab's agent order). */
interface DrmasTask {
  env: string;
  agents: Record<string, string>;
  /** The loop or turn limit, from the lab task's own constant. */
  limit: [string, number][];
  data: string;
  /** Settings with no lab counterpart (lengths, batching per GPU, SGLang), as Dr. MAS's script has them. */
  cluster: [string, string | number][];
}
const TASKS: Partial<Record<TaskName, DrmasTask>> = {
  math: {
    env: 'math',
    agents: { solver: 'Solver Agent', verifier: 'Verifier Agent' },
    limit: [['agent.orchestra.math.max_loop_num', MATH_MAX_LOOPS]],
    data: 'drmas_math',
    cluster: [
      ['data.max_prompt_length', 8192],
      ['data.max_response_length', 4096],
      ['data.filter_overlong_prompts', 'True'],
      ['+data.apply_chat_template_kwargs.enable_thinking', 'False'],
      ['data.truncation', "'middle'"],
      ['actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu', 8],
      ['actor_rollout_ref.rollout.gpu_memory_utilization', 0.5],
    ],
  },
  search: {
    env: 'search',
    agents: { verifier: 'Verifier Agent', search: 'Search Agent', answer: 'Answer Agent' },
    limit: [
      ['env.max_steps', SEARCH_MAX_STEPS],
      ['env.history_length', SEARCH_MAX_STEPS],
    ],
    data: 'drmas_search',
    cluster: [
      ['data.max_prompt_length', 4096],
      ['data.max_response_length', 800],
      ['data.filter_overlong_prompts', 'False'],
      ['data.truncation', "'left'"],
      ['actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu', 32],
      ['actor_rollout_ref.rollout.gpu_memory_utilization', 0.4],
      ['env.search.search_url', "'http://127.0.0.1:8000/retrieve'"],
    ],
  },
};

/** Settings of both Dr. MAS scripts with no lab counterpart. */
const CLUSTER_COMMON: [string, string | number][] = [
  ['actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu', 'null'],
  [
    '+agent.agent_specific_parameters.actor.ppo_micro_batch_size_per_gpu',
    '$actor_ppo_micro_batch_size_per_gpu',
  ],
  ['actor_rollout_ref.model.use_remove_padding', 'True'],
  ['actor_rollout_ref.model.enable_gradient_checkpointing', 'True'],
  ['actor_rollout_ref.actor.fsdp_config.param_offload', 'False'],
  ['actor_rollout_ref.actor.fsdp_config.optimizer_offload', 'True'],
  ['actor_rollout_ref.rollout.tensor_model_parallel_size', 1],
  ['actor_rollout_ref.rollout.enable_chunked_prefill', 'False'],
  ['actor_rollout_ref.rollout.enforce_eager', 'False'],
  ['actor_rollout_ref.rollout.free_cache_engine', 'False'],
  ['trainer.n_gpus_per_node', '$n_gpus_per_node'],
  ['trainer.nnodes', '$nnodes'],
  ['trainer.save_freq', 100],
];

/** Dr. MAS's estimator switch: verl's grpo, grouped by (uid) or by (uid, agent_id). */
const ESTIMATORS: Partial<Record<string, boolean>> = { grpo: false, drmas: true };
/** verl's kl_loss_type for each lab KL estimator (core_algos.kl_penalty). */
const KL_TYPES: Record<KlType, string> = { k1: 'kl', abs: 'abs', k2: 'mse', k3: 'low_var_kl' };
/** verl's agg_loss modes (core_algos.agg_loss). */
const LOSS_AGG: Partial<Record<LossAggMode, string>> = {
  'token-mean': 'token-mean',
  'seq-mean-token-sum': 'seq-mean-token-sum',
  'seq-mean-token-mean': 'seq-mean-token-mean',
  'seq-mean-token-sum-norm': 'seq-mean-token-sum-norm',
};

/** Something Dr. MAS cannot run, named by the lab field (as in a link: `runs.1.estimator`). */
export class ExportRefused extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

export interface DrmasExport {
  /** File name → contents: run_<task>_<run>.sh per run, wg_ids.json. */
  files: Record<string, string>;
  /** The scripts' names, in run order. */
  scripts: string[];
  wgMap: WgMap;
  /** Lab settings with no Dr. MAS counterpart that differ from what Dr. MAS does (not carried). */
  dropped: string[];
}

const py = (x: boolean) => (x ? 'True' : 'False');
const list = (xs: readonly (string | number)[]) =>
  `[${xs.map((x) => (typeof x === 'string' ? `"${x}"` : String(x))).join(',')}]`;
const slug = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '') || 'run';
/** Dr. MAS's wg_id parts (agent_system/agent/utils.py): the model's last path part, the agent id without spaces. */
const normModel = (id: string) => id.split('/').pop() ?? id;
const normAgent = (id: string) => id.trim().replace(/ /g, '');

/** Worker-group ids as Dr. MAS builds them, mapped to lab agent names. */
function wgIds(agents: string[], drmasIds: string[], models: string[], sharing: boolean): WgMap {
  const map: WgMap = {};
  if (!sharing) agents.forEach((a, i) => (map[`${normModel(models[i])}_${normAgent(drmasIds[i])}`] = [a]));
  else
    for (const model of [...new Set(models)]) {
      const idx = models.flatMap((m, i) => (m === model ? [i] : []));
      map[[normModel(model), ...idx.map((i) => normAgent(drmasIds[i]))].join('_')] = idx.map(
        (i) => agents[i],
      );
    }
  return map;
}

/**
 * The per-agent settings (config PER_AGENT) as Dr. MAS's actor keys: agent_specific_parameters
 * paths under actor_rollout_ref (agent_system/agent/utils.py `_set_specific_parameter`), each a
 * list with one value per agent, in a shell variable named as its scripts name them.
 */
const ACTOR_KEYS: Record<PerAgentField, string> = {
  lr: 'optim.lr',
  maxGradNorm: 'grad_clip',
  clipLow: 'clip_ratio_low',
  clipHigh: 'clip_ratio_high',
  entropyCoef: 'entropy_coeff',
};
const shellVar = (key: string) => `actor_${key.replace(/\./g, '_')}`;

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

/**
 * The launch scripts of every run of `exp`; `models` are the Hugging Face ids standing in for the
 * nano policies (one for all agents, or one per agent). Throws ExportRefused naming the field.
 */
export function exportDrmas(exp: Experiment, models: readonly string[] = [DEFAULT_DRMAS_MODEL]): DrmasExport {
  const task = TASKS[exp.task];
  if (!task)
    throw new ExportRefused(
      'task',
      `'${exp.task}' has no Dr. MAS counterpart (Dr. MAS trains ${Object.keys(TASKS).join(' and ')})`,
    );
  const agents = getTask(exp.task).agents.map((a) => a.role);
  const drmasIds = agents.map((a) => task.agents[a]);
  if (models.length !== 1 && models.length !== agents.length) {
    throw new ExportRefused(
      '--models',
      `give one model for all agents or one per agent (${agents.join(', ')}), got ${models.length}`,
    );
  }
  const modelIds = agents.map((_, i) => models[models.length === 1 ? 0 : i]);
  const sharing = exp.models.assignment === 'shared';
  const ids = Object.values(exp.models.ids ?? {});
  if (!sharing && new Set(ids).size < ids.length) {
    // Dr. MAS shares models all or nothing (model_sharing groups agents by equal model_ids).
    throw new ExportRefused(
      'models.ids',
      'a model shared by some agents only has no Dr. MAS counterpart: use models.assignment=shared, or one model per agent',
    );
  }
  // vanilla_multi_turn_loop samples env.rollout.n independent trajectories per prompt.
  exp.runs.forEach((run, i) => {
    const sampling = run.rollout.sampling ?? exp.rollout.sampling;
    if (sampling === 'parallel') return;
    const field = run.rollout.sampling ? `runs.${i}.rollout.sampling` : 'rollout.sampling';
    throw new ExportRefused(
      field,
      `'${sampling}' has no Dr. MAS counterpart: its rollout loop samples G independent trajectories per prompt (parallel)`,
    );
  });
  const dropped: string[] = [];
  if (exp.models.preset !== 'nano' || Object.keys(exp.models.perAgent).length)
    dropped.push('models.preset / models.perAgent (the --models checkpoints stand in for every size)');
  if (Object.keys(exp.models.from).length)
    dropped.push('models.from (the --models checkpoints are where every model starts)');

  const scripts: string[] = [];
  const files: Record<string, string> = {};
  exp.runs.forEach((run, i) => {
    const groupByAgent = ESTIMATORS[run.estimator];
    if (groupByAgent === undefined) {
      throw new ExportRefused(
        `runs.${i}.estimator`,
        `'${run.estimator}' has no Dr. MAS counterpart: its grpo estimator normalizes per group (grpo) or per group and agent (algorithm.group_by_agent_id, drmas) only`,
      );
    }
    const { optim, advantage, reward, rollout, train } = resolveRun(exp, run);
    if (reward.credit !== 'shared')
      throw new ExportRefused(
        `runs.${i}.reward.credit`,
        `Dr. MAS broadcasts the episode reward to every agent's rows; it has no per-agent credit ('${reward.credit}')`,
      );
    for (const dial of ['scale', 'offset'] as const) {
      const agents = Object.keys(reward[dial] ?? {});
      if (agents.length)
        throw new ExportRefused(
          `${run.reward[dial] ? `runs.${i}.` : ''}reward.${dial}.${agents[0]}`,
          `Dr. MAS has no per-agent reward ${dial}: its rows carry the episode reward as it is`,
        );
    }
    if (rollout.filter !== 'none')
      throw new ExportRefused(
        run.rollout.filter ? `runs.${i}.rollout.filter` : 'rollout.filter',
        `Dr. MAS trains on every group of a step; it has no group filter ('${rollout.filter}')`,
      );
    if (train.buffer !== 'step')
      throw new ExportRefused(
        run.train?.buffer ? `runs.${i}.train.buffer` : 'train.buffer',
        `Dr. MAS updates every agent on each step's batch; it has no per-agent buffers ('${train.buffer}')`,
      );
    if (optim.policyLoss !== 'vanilla')
      throw new ExportRefused(
        `runs.${i}.optim.policyLoss`,
        `Dr. MAS's actor computes verl's vanilla PPO loss only`,
      );
    const lossAgg = LOSS_AGG[optim.lossAgg];
    if (!lossAgg)
      throw new ExportRefused(
        `runs.${i}.optim.lossAgg`,
        `verl has no '${optim.lossAgg}' aggregation (it has ${Object.keys(LOSS_AGG).join(', ')})`,
      );
    if (advantage.singleton === 'zero')
      dropped.push(`runs.${i}.advantage.singleton=zero (verl scores a size-1 set by its raw reward)`);
    if (advantage.eps !== 1e-6) dropped.push(`runs.${i}.advantage.eps=${advantage.eps} (verl adds 1e-6)`);
    // Per-agent settings: the learning rate always (as Dr. MAS's scripts), the others where an agent sets its own.
    const own = PER_AGENT_FIELDS.filter(
      (f) => f === 'lr' || agents.some((a) => optim.perAgent[a]?.[f] !== undefined),
    );
    const perAgent = own.map((f) => ({
      key: ACTOR_KEYS[f],
      values: agents.map((a) => optim.perAgent[a]?.[f] ?? optim[f]),
    }));
    const invalidPenalty = getTask(exp.task).invalidPenalty;
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
      ['actor_rollout_ref.actor.kl_loss_type', KL_TYPES[optim.klType]],
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
    const name = `run_${task.env}_${slug(run.label)}.sh`;
    scripts.push(name);
    files[name] = [
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
      `experiment_name="${slug(run.label)}_share\${model_sharing}_\${model_name_tag}_seed\${seed}"`,
      '# Event files per run, so npm run lab -- import shows each as its own run.',
      `export TENSORBOARD_DIR="tensorboard_log/DrMAS_${task.env}/$experiment_name"`,
      '',
      'python3 -m verl.trainer.main_ppo \\',
      overrides.map(([k, v]) => `    ${k}=${v}`).join(' \\\n'),
      '',
    ].join('\n');
  });
  const wgMap = wgIds(agents, drmasIds, modelIds, sharing);
  files['wg_ids.json'] = JSON.stringify(wgMap, null, 2) + '\n';
  return { files, scripts, wgMap, dropped };
}

/** Dr. MAS's README "Compute Requirements" (non-sharing rows; sharing needs the same GPUs). */
const COMPUTE: Record<string, string[]> = {
  math: [
    '2 × Qwen3-4B: 4 × H100, about 38 h (one shared: about 35 h)',
    '2 × Qwen3-8B: 8 × H100, about 42 h (one shared: about 37 h)',
  ],
  search: [
    '3 × Qwen2.5-3B: 4 × H100, about 13 h (one shared: about 12 h)',
    '3 × Qwen2.5-7B: 8 × H100, about 26 h (one shared: about 25 h)',
  ],
};

/** DIR/README.md: what maps, what does not, and how to prepare, run and read back the runs. */
export function drmasReadme(
  exp: Experiment,
  out: DrmasExport,
  models: readonly string[],
  link: string,
): string {
  const task = TASKS[exp.task]!;
  const agents = getTask(exp.task).agents.map((a) => a.role);
  const script = out.scripts[0];
  return `# ${exp.runs.map((r) => r.label).join(' vs ')} on Dr. MAS's ${task.env} task

Written by \`npm run lab -- export drmas\` from the lab experiment \`${link}\`.
One launch script per run, in the shape of Dr. MAS's \`examples/drmas_trainer/run_${task.env}.sh\`:

${out.scripts.map((s, i) => `- \`${s}\`: ${exp.runs[i].label} (${exp.runs[i].estimator}: \`algorithm.group_by_agent_id=${exp.runs[i].estimator === 'drmas' ? 'True' : 'False'}\`)`).join('\n')}
- \`wg_ids.json\`: Dr. MAS's worker-group ids → the lab's agents, for \`lab import --wg-map\`.

The scripts of one experiment differ only where the runs do; GRPO and Dr. MAS differ in
\`group_by_agent_id\` and the experiment name, as in Dr. MAS's own pair.

## What maps

| lab | Dr. MAS override |
|---|---|
| estimator grpo / drmas | \`algorithm.adv_estimator=grpo\`, \`algorithm.group_by_agent_id=False / True\` |
| advantage.normalizeStd | \`algorithm.norm_adv_by_std_in_grpo\` |
| rollout.groupSize (G) | \`env.rollout.n\` |
| rollout.batchSize (B) | \`data.train_batch_size\` |
| rollout.temperature, topP | \`actor_rollout_ref.rollout.temperature\`, \`top_p\` |
| optim.lr, perAgent.<agent>.lr | \`+agent.agent_specific_parameters.actor.optim.lr\` (one per agent) |
| optim.perAgent.<agent>.maxGradNorm, clipLow, clipHigh, entropyCoef | \`+agent.agent_specific_parameters.actor.grad_clip\`, \`clip_ratio_low\`, \`clip_ratio_high\`, \`entropy_coeff\` (one per agent, where an agent sets its own) |
| optim.weightDecay, maxGradNorm | \`actor_rollout_ref.actor.optim.weight_decay\`, \`grad_clip\` |
| optim.clipLow, clipHigh, dualClip | \`actor_rollout_ref.actor.clip_ratio_low\`, \`clip_ratio_high\`, \`clip_ratio_c\` |
| optim.lossAgg | \`actor_rollout_ref.actor.loss_agg_mode\` |
| optim.klCoef, klType (k1/abs/k2/k3) | \`use_kl_loss\`, \`kl_loss_coef\`, \`kl_loss_type\` (kl/abs/mse/low_var_kl) |
| optim.entropyCoef | \`actor_rollout_ref.actor.entropy_coeff\` |
| optim.epochs, miniBatches | \`ppo_epochs\`, \`ppo_mini_update_num\` (adaptive mini-batch size) |
| the task's invalid-output penalty | \`actor_rollout_ref.actor.invalid_action_penalty_coef\` |
| the task's loop / turn limit | ${task.limit.map(([k]) => `\`${k}\``).join(', ')} |
| models.assignment | \`agent.model_sharing\` |
| eval.k | \`val_group_size\` → \`env.rollout.val_n\` (avg@k and pass@k) |
| eval.temperature, topP, every | \`val_kwargs.temperature\`, \`val_kwargs.top_p\`, \`trainer.test_freq\` |
| steps, seed | \`trainer.total_training_steps\`, \`env.seed\` (the script's second argument) |
| the lab's charts | \`trainer.logger=['console','tensorboard']\`, one \`TENSORBOARD_DIR\` per run |

## What does not

- The lab's \`${exp.task}\` task is a toy stand-in for Dr. MAS's ${task.env} datasets; the agents
  (${agents.join(', ')}) are Dr. MAS's ${Object.values(task.agents).join(', ')}.
- The lab's nano policies (0.1M parameters) stand in for the Hugging Face models given with
  \`--models\`: here ${[...new Set(models)].join(', ')}. The learning rates above are the lab's, tuned for
  0.1M-parameter policies; Dr. MAS uses 1e-6 for its 4-8B models: edit \`actor_optim_lr\` before a real run.
- Sequence lengths, per-GPU micro-batches and SGLang settings have no lab counterpart: they are
  Dr. MAS's own values from its script.
${out.dropped.map((d) => `- Not carried over: ${d}.`).join('\n')}

## Prepare the data (in the Dr. MAS checkout, see its README for the environment)

\`\`\`sh
python examples/data_preprocess/drmas_${task.env}.py    # writes ~/data/${task.data}/{train,test,test_sampled}.parquet
\`\`\`
${task.env === 'search' ? "\nThe search task also needs Dr. MAS's local retrieval server (`examples/search/retriever/retrieval_launch.sh`, about 6 GB of GPU memory per GPU; see its README).\n" : ''}
## Run

On a Ray cluster, from this folder:

\`\`\`sh
cp ${out.scripts.join(' ')} <DrMAS checkout>/
ray job submit --working-dir <DrMAS checkout> -- bash ${script}          # train
ray job submit --working-dir <DrMAS checkout> -- bash ${script} eval     # evaluate on the full test set
\`\`\`

Under Slurm, start Ray with Dr. MAS's \`examples/slurm/ray_on_slurm.slurm\` and replace its
\`python3 -m verl.trainer.main_ppo …\` call with \`bash ${script}\`. Set \`N_GPUS_PER_NODE\` and
\`NNODES\` to the allocation (default 4 GPUs, 1 node). The scripts need \`jq\`, as Dr. MAS's do.

## Compute (Dr. MAS's README)

${COMPUTE[task.env].map((c) => `- ${c}`).join('\n')}

## Read the runs back into the lab

Each run writes its TensorBoard event files to \`tensorboard_log/DrMAS_${task.env}/<experiment name>/\`:

\`\`\`sh
npm run lab -- import <DrMAS checkout>/tensorboard_log/DrMAS_${task.env} --wg-map wg_ids.json --out runs/cluster
\`\`\`

or drop the folder's event files onto the lab's page.
`;
}
