import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExperimentSchema } from '../../src/core/config';
import { ExportRefused, exportDrmas } from '../../src/interop/drmas';
import { presetById } from '../../src/core/presets';
import { inferAgents } from '../../src/interop/metric-map';

/**
 * Every Hydra override key the export may write. Each key without `+` exists in Dr. MAS's
 * verl/trainer/config/ppo_trainer.yaml at this commit (checked by flattening the YAML); `+` keys
 * add what the YAML leaves null or absent, as Dr. MAS's own run_math.sh / run_search.sh do. The
 * `+agent.agent_specific_parameters.actor.*` keys are paths under actor_rollout_ref that
 * agent_system/agent/utils.py `_set_specific_parameter` sets per agent from a list; each of
 * optim.lr, grad_clip, clip_ratio_low, clip_ratio_high and entropy_coeff is a key of the YAML's
 * actor_rollout_ref.actor at this commit.
 */
const DRMAS_COMMIT = '19c632bc0f75730b6db98d90b5035ee9bb7f66d1'; // langfengQ/DrMAS
const KNOWN_KEYS = new Set(
  `+agent.agent_specific_parameters.actor.optim.lr +agent.agent_specific_parameters.actor.ppo_micro_batch_size_per_gpu
  +agent.agent_specific_parameters.actor.grad_clip +agent.agent_specific_parameters.actor.clip_ratio_low
  +agent.agent_specific_parameters.actor.clip_ratio_high +agent.agent_specific_parameters.actor.entropy_coeff
  +data.apply_chat_template_kwargs.enable_thinking actor_rollout_ref.actor.clip_ratio_c actor_rollout_ref.actor.clip_ratio_high
  actor_rollout_ref.actor.clip_ratio_low actor_rollout_ref.actor.entropy_coeff actor_rollout_ref.actor.fsdp_config.optimizer_offload
  actor_rollout_ref.actor.fsdp_config.param_offload actor_rollout_ref.actor.grad_clip actor_rollout_ref.actor.invalid_action_penalty_coef
  actor_rollout_ref.actor.kl_loss_coef actor_rollout_ref.actor.kl_loss_type actor_rollout_ref.actor.loss_agg_mode
  actor_rollout_ref.actor.optim.lr actor_rollout_ref.actor.optim.weight_decay actor_rollout_ref.actor.ppo_epochs
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu actor_rollout_ref.actor.ppo_mini_update_num
  actor_rollout_ref.actor.use_adaptive_ppo_mini_batch_size actor_rollout_ref.actor.use_invalid_action_penalty
  actor_rollout_ref.actor.use_kl_loss actor_rollout_ref.model.enable_gradient_checkpointing actor_rollout_ref.model.path
  actor_rollout_ref.model.use_remove_padding actor_rollout_ref.rollout.enable_chunked_prefill actor_rollout_ref.rollout.enforce_eager
  actor_rollout_ref.rollout.free_cache_engine actor_rollout_ref.rollout.gpu_memory_utilization
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu actor_rollout_ref.rollout.name actor_rollout_ref.rollout.temperature
  actor_rollout_ref.rollout.tensor_model_parallel_size actor_rollout_ref.rollout.top_p actor_rollout_ref.rollout.val_kwargs.do_sample
  actor_rollout_ref.rollout.val_kwargs.temperature actor_rollout_ref.rollout.val_kwargs.top_p agent.agent_ids agent.model_ids
  agent.model_sharing agent.orchestra.math.max_loop_num agent.orchestra_type algorithm.adv_estimator algorithm.group_by_agent_id
  algorithm.norm_adv_by_std_in_grpo data.filter_overlong_prompts data.max_prompt_length data.max_response_length data.return_raw_chat
  data.train_batch_size data.train_files data.truncation data.val_files env.env_name env.history_length env.max_steps env.rollout.n
  env.rollout.val_n env.search.search_url env.seed trainer.critic_warmup trainer.experiment_name trainer.logger trainer.n_gpus_per_node
  trainer.nnodes trainer.project_name trainer.save_freq trainer.test_freq trainer.total_training_steps trainer.val_before_train
  trainer.val_only`.split(/\s+/),
);

const experiment = (over: object) => ExperimentSchema.parse(over);
/** The `key=value` overrides of the main_ppo call. */
const overrides = (script: string) =>
  new Map(
    [...script.split('verl.trainer.main_ppo')[1].matchAll(/^ {4}(\+?[\w.]+)=(.*?)(?: \\)?$/gm)].map((m) => [
      m[1],
      m[2],
    ]),
  );

describe(`lab export drmas (keys checked against langfengQ/DrMAS@${DRMAS_COMMIT.slice(0, 7)})`, () => {
  for (const task of ['math', 'search'] as const) {
    it(`${task}: scripts pass bash -n, use only known keys, and GRPO and Dr. MAS differ only in group_by_agent_id and the name`, () => {
      const out = exportDrmas(
        experiment({ task, optim: { klCoef: 0.01, klType: 'k2' }, models: { assignment: 'shared' } }),
      );
      expect(out.scripts).toEqual([`run_${task}_grpo.sh`, `run_${task}_dr_mas.sh`]);
      const dir = mkdtempSync(join(tmpdir(), 'agentwise-drmas-'));
      for (const name of out.scripts) {
        writeFileSync(join(dir, name), out.files[name]);
        const check = spawnSync('bash', ['-n', join(dir, name)], { encoding: 'utf8' });
        expect(check.status, check.stderr).toBe(0);
        const keys = [...overrides(out.files[name]).keys()];
        expect(keys.length).toBeGreaterThan(40);
        expect(keys.filter((k) => !KNOWN_KEYS.has(k))).toEqual([]);
      }
      const [grpo, drmas] = out.scripts.map((s) => out.files[s].split('\n'));
      const differing = grpo.flatMap((line, i) => (line === drmas[i] ? [] : [[line, drmas[i]]]));
      expect(grpo.length).toBe(drmas.length);
      expect(differing).toEqual([
        ['group_by_agent_id=False', 'group_by_agent_id=True'],
        [
          'experiment_name="grpo_share${model_sharing}_${model_name_tag}_seed${seed}"',
          'experiment_name="dr_mas_share${model_sharing}_${model_name_tag}_seed${seed}"',
        ],
      ]);
      const o = overrides(out.files[out.scripts[0]]);
      expect(o.get('trainer.logger')).toBe("['console','tensorboard']");
      expect(o.get('actor_rollout_ref.actor.kl_loss_type')).toBe('mse');
      expect(o.get('actor_rollout_ref.actor.use_kl_loss')).toBe('True');
      expect(o.get('env.rollout.n')).toBe('$group_size');
      expect(out.files[out.scripts[0]]).toContain('group_size=8\n');
      expect(out.files[out.scripts[0]]).toContain('model_sharing=True\n');
    });
  }

  it('maps per-agent settings, the group and eval sizes, the penalty and the loop limit', () => {
    const out = exportDrmas(
      experiment({
        task: 'math',
        rollout: { groupSize: 5, batchSize: 16 },
        eval: { k: 16, every: 0 },
        optim: {
          lr: 1e-6,
          maxGradNorm: 0.5,
          clipHigh: 0.2,
          perAgent: { verifier: { lr: 2e-6, clipHigh: 0.28 }, solver: { maxGradNorm: 0.2 } },
        },
      }),
      ['Qwen/Qwen3-8B', 'Qwen/Qwen3-4B'],
    );
    const script = out.files['run_math_grpo.sh'];
    expect(script).toContain(`actor_optim_lr='[0.000001,0.000002]'`);
    expect(script).toContain(`actor_grad_clip='[0.2,0.5]'`);
    expect(script).toContain(`actor_clip_ratio_high='[0.2,0.28]'`);
    expect(script).not.toContain('actor_clip_ratio_low=');
    expect(script).not.toContain('actor_entropy_coeff=');
    expect(script).toContain(`model_ids='["Qwen/Qwen3-8B","Qwen/Qwen3-4B"]'`);
    expect(script).toContain('group_size=5\n');
    expect(script).toContain('train_data_size=16\n');
    expect(script).toContain('val_group_size=16 ');
    const o = overrides(script);
    expect(o.get('actor_rollout_ref.actor.grad_clip')).toBe('null');
    expect(o.get('+agent.agent_specific_parameters.actor.grad_clip')).toBe('$actor_grad_clip');
    expect(o.get('+agent.agent_specific_parameters.actor.clip_ratio_high')).toBe('$actor_clip_ratio_high');
    expect(o.get('actor_rollout_ref.actor.clip_ratio_low')).toBe('0.2');
    expect(o.get('actor_rollout_ref.actor.entropy_coeff')).toBe('0');
    expect([...o.keys()].filter((k) => !KNOWN_KEYS.has(k))).toEqual([]);
    expect(o.get('trainer.test_freq')).toBe('-1');
    expect(o.get('actor_rollout_ref.actor.invalid_action_penalty_coef')).toBe('0.1');
    expect(o.get('agent.orchestra.math.max_loop_num')).toBe('2');
    expect(out.wgMap).toEqual({ 'Qwen3-8B_SolverAgent': ['solver'], 'Qwen3-4B_VerifierAgent': ['verifier'] });
  });

  it('writes wg ids that lab import infers the same agents from, per agent and shared', () => {
    for (const assignment of ['per-agent', 'shared'] as const) {
      const { wgMap } = exportDrmas(experiment({ task: 'search', models: { assignment } }));
      for (const [wg, agents] of Object.entries(wgMap)) expect(inferAgents(wg)).toEqual(agents);
    }
    expect(
      Object.keys(exportDrmas(experiment({ task: 'search', models: { assignment: 'shared' } })).wgMap),
    ).toEqual(['Qwen3-4B_VerifierAgent_SearchAgent_AnswerAgent']);
  });

  it('refuses what Dr. MAS cannot run, naming the field', () => {
    const refusal = (over: object) => {
      try {
        exportDrmas(experiment(over));
      } catch (e) {
        if (e instanceof ExportRefused) return [e.field, e.message];
        throw e;
      }
      return null;
    };
    for (const estimator of ['global-step', 'atgrpo', 'magrpo']) {
      const [field, message] = refusal({
        task: 'math',
        runs: [
          { label: 'GRPO', estimator: 'grpo' },
          { label: 'X', estimator },
        ],
      })!;
      expect(field).toBe('runs.1.estimator');
      expect(message).toContain(`'${estimator}' has no Dr. MAS counterpart`);
    }
    for (const task of ['sync', 'coder-tester'])
      expect(refusal({ task })).toEqual([
        'task',
        expect.stringContaining(`'${task}' has no Dr. MAS counterpart`),
      ]);
    expect(refusal({ task: 'math', optim: { lossAgg: 'seq-mean-token-sum-norm-oat' } })?.[0]).toBe(
      'runs.0.optim.lossAgg',
    );
    expect(refusal({ task: 'search', models: { ids: { search: 'm1', answer: 'm1' } } })?.[0]).toBe(
      'models.ids',
    );
    expect(
      refusal({
        task: 'search',
        runs: [{ label: 'GRPO', estimator: 'grpo', reward: { credit: 'shapley' } }],
      }),
    ).toEqual(['runs.0.reward.credit', expect.stringContaining("no per-agent credit ('shapley')")]);
    expect(refusal({ task: 'math', reward: { scale: { solver: 4 } } })).toEqual([
      'reward.scale.solver',
      expect.stringContaining('no per-agent reward scale'),
    ]);
    expect(refusal({ task: 'math', runs: [{ label: 'X', estimator: 'custom' }] })?.[1]).toContain(
      "'custom' has no Dr. MAS counterpart",
    );
    expect(refusal({ task: 'math', rollout: { sampling: 'tree' } })).toEqual([
      'rollout.sampling',
      expect.stringContaining("'tree' has no Dr. MAS counterpart"),
    ]);
    // MAGRPO as CoMLRL runs it, and MARS2's filter: what Dr. MAS's trainer has no setting for.
    expect(refusal({ task: 'math', rollout: { filter: 'mixed' } })).toEqual([
      'rollout.filter',
      expect.stringContaining("no group filter ('mixed')"),
    ]);
    expect(
      refusal({
        task: 'math',
        runs: [{ label: 'GRPO', estimator: 'grpo', train: { buffer: 'per-agent', bufferSize: 8 } }],
      }),
    ).toEqual(['runs.0.train.buffer', expect.stringContaining("no per-agent buffers ('per-agent')")]);
    expect(refusal({ task: 'math', optim: { policyLoss: 'reinforce' } })).toEqual([
      'runs.0.optim.policyLoss',
      expect.stringContaining('vanilla PPO loss only'),
    ]);
    const magrpo = presetById('magrpo-comlrl')!.config;
    expect(refusal(magrpo)?.[0]).toBe('task');
    expect(refusal({ ...magrpo, task: 'math' })).toEqual([
      'runs.0.estimator',
      expect.stringContaining("'magrpo' has no Dr. MAS counterpart"),
    ]);
    // reward.joint is what Dr. MAS does anyway (it broadcasts the episode reward): not refused.
    expect(refusal({ task: 'math', reward: { joint: true } })).toBeNull();
    expect(() => exportDrmas(experiment({ task: 'math' }), ['a', 'b', 'c'])).toThrow(
      /--models: give one model for all agents or one per agent/,
    );
  });
});
