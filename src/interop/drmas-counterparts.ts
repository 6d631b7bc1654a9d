/**
 * What each lab setting is called in Dr. MAS (langfengQ/DrMAS, verl fork): its counterpart of a lab
 * task (environment, agent ids, turn limit, data set, the cluster settings its script sets), its
 * estimator switch, verl's names of the KL estimators, loss aggregations and per-agent actor keys,
 * and the worker-group ids its event files are tagged with. drmas.ts refuses what has no entry
 * here; drmas-script.ts writes the entries into a launch script. Pure: no Node, no DOM.
 */
import type { TaskName } from '../core/config-names';
import type { PerAgentField } from '../core/config-sections';
import type { KlType, LossAggMode } from '../core/losses';
import { MATH_MAX_LOOPS } from '../tasks/math';
import { SEARCH_MAX_STEPS } from '../tasks/search';
import type { WgMap } from './metric-map';

/** Dr. MAS's own default model (its run_math.sh). */
export const DEFAULT_DRMAS_MODEL = 'Qwen/Qwen3-4B';

/** The lab tasks Dr. MAS has a counterpart of, with its agent ids (in the lab's agent order). */
export interface DrmasTask {
  env: string;
  agents: Record<string, string>;
  /** The loop or turn limit, from the lab task's own constant. */
  limit: [string, number][];
  data: string;
  /** Settings with no lab counterpart (lengths, batching per GPU, SGLang), as Dr. MAS's script has them. */
  cluster: [string, string | number][];
}
export const DRMAS_TASKS: Partial<Record<TaskName, DrmasTask>> = {
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

export /** Settings of both Dr. MAS scripts with no lab counterpart. */
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
export const DRMAS_ESTIMATORS: Partial<Record<string, boolean>> = { grpo: false, drmas: true };
/** verl's kl_loss_type for each lab KL estimator (core_algos.kl_penalty). */
export const VERL_KL_TYPES: Record<KlType, string> = { k1: 'kl', abs: 'abs', k2: 'mse', k3: 'low_var_kl' };
/** verl's agg_loss modes (core_algos.agg_loss). */
export const VERL_LOSS_AGG: Partial<Record<LossAggMode, string>> = {
  'token-mean': 'token-mean',
  'seq-mean-token-sum': 'seq-mean-token-sum',
  'seq-mean-token-mean': 'seq-mean-token-mean',
  'seq-mean-token-sum-norm': 'seq-mean-token-sum-norm',
};

/**
 * The per-agent settings (config-sections.ts PER_AGENT) as Dr. MAS's actor keys: agent_specific_parameters
 * paths under actor_rollout_ref (agent_system/agent/utils.py `_set_specific_parameter`), each a
 * list with one value per agent, in a shell variable named as its scripts name them.
 */
export const ACTOR_KEYS: Record<PerAgentField, string> = {
  lr: 'optim.lr',
  maxGradNorm: 'grad_clip',
  clipLow: 'clip_ratio_low',
  clipHigh: 'clip_ratio_high',
  entropyCoef: 'entropy_coeff',
};
/** The shell variable a Dr. MAS script holds an actor key's per-agent list in. */
export const shellVar = (key: string) => `actor_${key.replace(/\./g, '_')}`;

/** Dr. MAS's wg_id parts (agent_system/agent/utils.py): the model's last path part, the agent id without spaces. */
const normModel = (id: string) => id.split('/').pop() ?? id;
const normAgent = (id: string) => id.trim().replace(/ /g, '');

/** Worker-group ids as Dr. MAS builds them, mapped to lab agent names. */
export function wgIds(agents: string[], drmasIds: string[], models: string[], sharing: boolean): WgMap {
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
