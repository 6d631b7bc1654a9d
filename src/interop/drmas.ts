/**
 * A lab experiment as Dr. MAS launch scripts (langfengQ/DrMAS, verl fork on Ray with SGLang): one
 * bash script per run (drmas-script.ts) and the wg_id → agents map `lab import` reads the cluster's
 * event files with. This module decides what carries over: what Dr. MAS cannot run is refused
 * naming the lab field, and lab settings it would silently differ on are listed as dropped. Every
 * override key exists in Dr. MAS's verl/trainer/config/ppo_trainer.yaml or carries Hydra's `+`
 * (test/interop/drmas.test.ts holds the list and the commit it was checked against); the
 * README beside the scripts is drmas-readme.ts's. Pure: no Node, no DOM.
 */
import type { Experiment } from '../core/config';
import { resolveRun } from '../core/config-run';
import { taskOf } from '../tasks/registry';
import {
  DEFAULT_DRMAS_MODEL,
  DRMAS_ESTIMATORS,
  DRMAS_TASKS,
  VERL_LOSS_AGG,
  wgIds,
} from './drmas-counterparts';
import { launchScript, scriptName } from './drmas-script';
import type { WgMap } from './metric-map';

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

/**
 * The launch scripts of every run of `exp`; `models` are the Hugging Face ids standing in for the
 * nano policies (one for all agents, or one per agent). Throws ExportRefused naming the field.
 */
export function exportDrmas(exp: Experiment, models: readonly string[] = [DEFAULT_DRMAS_MODEL]): DrmasExport {
  const task = exp.task === 'workflow' ? undefined : DRMAS_TASKS[exp.task];
  if (!task)
    throw new ExportRefused(
      'task',
      `'${exp.task}' has no Dr. MAS counterpart (Dr. MAS trains ${Object.keys(DRMAS_TASKS).join(' and ')})`,
    );
  const agents = taskOf(exp).agents.map((a) => a.role);
  const drmasIds = agents.map((a) => task.agents[a]);
  if (models.length !== 1 && models.length !== agents.length) {
    throw new ExportRefused(
      '--models',
      `give one model for all agents or one per agent (${agents.join(', ')}), got ${models.length}`,
    );
  }
  const modelIds = agents.map((_, i) => models[models.length === 1 ? 0 : i]);
  const sharing = exp.models.assignment === 'shared';
  const team = { agents, drmasIds, modelIds, sharing };
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
    const groupByAgent = DRMAS_ESTIMATORS[run.estimator];
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
    const lossAgg = VERL_LOSS_AGG[optim.lossAgg];
    if (!lossAgg)
      throw new ExportRefused(
        `runs.${i}.optim.lossAgg`,
        `verl has no '${optim.lossAgg}' aggregation (it has ${Object.keys(VERL_LOSS_AGG).join(', ')})`,
      );
    if (advantage.singleton === 'zero')
      dropped.push(`runs.${i}.advantage.singleton=zero (verl scores a size-1 set by its raw reward)`);
    if (advantage.eps !== 1e-6) dropped.push(`runs.${i}.advantage.eps=${advantage.eps} (verl adds 1e-6)`);
    const name = scriptName(task, run.label);
    scripts.push(name);
    files[name] = launchScript(exp, task, team, {
      label: run.label,
      optim,
      advantage,
      groupByAgent,
      lossAgg,
    });
  });
  const wgMap = wgIds(agents, drmasIds, modelIds, sharing);
  files['wg_ids.json'] = JSON.stringify(wgMap, null, 2) + '\n';
  return { files, scripts, wgMap, dropped };
}
