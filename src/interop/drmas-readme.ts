/**
 * The README.md written beside a Dr. MAS export: which lab field became which override, what did
 * not carry over, and how to prepare the data, run the scripts on a Ray cluster and read the runs
 * back into the lab. Pure: no Node, no DOM.
 */
import type { Experiment } from '../core/config';
import { taskOf, type TaskName } from '../tasks/registry';
import { DRMAS_TASKS } from './drmas-counterparts';
import type { DrmasExport } from './drmas';

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
  const task = DRMAS_TASKS[exp.task as TaskName]!; // exportDrmas refused a workflow
  const agents = taskOf(exp).agents.map((a) => a.role);
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
