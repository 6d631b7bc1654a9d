/**
 * The models of one run: which agents share which network (config `models.assignment`), each
 * model's size, its AdamW optimizer and optional frozen reference. Agents that share a model are
 * told apart by their role token. Every run of an experiment starts from the same weights: the
 * shipped base checkpoint, or a seeded fresh init.
 */
import type { Experiment, ModelPreset, Optim } from '../core/config';
import type { Role } from '../core/vocab';
import { loadCheckpoint, type Checkpoint } from '../model/checkpoint';
import { GPT, gptConfig } from '../model/gpt';
import { AdamW } from '../model/optim';
import { mixSeed } from '../core/prng';
import { getTask } from '../tasks/registry';
import { MAX_CONTEXT } from '../tasks/types';

export interface ModelSlot {
  /** `shared`, or the agent's role when each agent has its own model. */
  id: string;
  preset: ModelPreset;
  agents: Role[];
}

/** Which model answers each agent's calls (the orchestrator's agentModels). */
export const agentModelsOf = (models: readonly ModelSlot[]): Record<string, string> =>
  Object.fromEntries(models.flatMap((m) => m.agents.map((a) => [a, m.id])));

export interface PolicyModel extends ModelSlot {
  model: GPT;
  opt: AdamW;
  /** Frozen copy of the starting weights, for the KL penalty (only when klCoef > 0). */
  ref: GPT | null;
}

/**
 * Per-agent learning rates that would be silently ignored are refused, naming the field: a key
 * that names no agent of the task (a typo), or any key when all agents share one model (one
 * optimizer, one rate), in the experiment's optim or in a run's overrides.
 */
function checkLrPerAgent(exp: Experiment, agents: readonly Role[]): void {
  const sources = [{ at: 'optim', optim: exp.optim }, ...exp.runs.map((r, i) => ({ at: `runs.${i}.optim`, optim: r.optim }))];
  for (const { at, optim } of sources) {
    for (const name of Object.keys(optim.lrPerAgent ?? {})) {
      if (!agents.includes(name as Role)) {
        throw new Error(`${at}.lrPerAgent.${name}: task ${exp.task} has no agent "${name}" (agents: ${agents.join(', ')})`);
      }
      if (exp.models.assignment === 'shared') {
        throw new Error(`${at}.lrPerAgent.${name}: all agents share one model (models.assignment = shared), so it has one learning rate; use optim.lr or models.assignment = per-agent`);
      }
    }
  }
}

/** Which models an experiment needs: one per agent, or one shared by all. */
export function modelSlots(exp: Experiment): ModelSlot[] {
  const agents = getTask(exp.task).agents.map((a) => a.role);
  checkLrPerAgent(exp, agents);
  if (exp.models.assignment === 'shared') {
    const extra = Object.keys(exp.models.perAgent);
    if (extra.length) throw new Error(`models.perAgent (${extra.join(', ')}) needs models.assignment = per-agent`);
    return [{ id: 'shared', preset: exp.models.preset, agents }];
  }
  for (const name of Object.keys(exp.models.perAgent)) {
    if (!agents.includes(name as Role)) {
      throw new Error(`models.perAgent.${name}: task ${exp.task} has no agent "${name}" (agents: ${agents.join(', ')})`);
    }
  }
  return agents.map((role) => ({ id: role, preset: exp.models.perAgent[role] ?? exp.models.preset, agents: [role] }));
}

/** The learning rate of a model: a per-agent rate applies to a model of that agent alone. */
export function learningRate(slot: ModelSlot, optim: Optim): number {
  return slot.agents.length === 1 ? (optim.lrPerAgent[slot.agents[0]] ?? optim.lr) : optim.lr;
}

/**
 * Builds the run's models. `base` holds a starting checkpoint per model id (shipped base models);
 * without one a model is initialized from the experiment seed, identically in every run.
 */
export function buildModels(
  exp: Experiment,
  optim: Optim,
  seed: number,
  base: Readonly<Record<string, Checkpoint>> | null,
): PolicyModel[] {
  return modelSlots(exp).map((slot) => {
    const config = gptConfig(slot.preset, { contextLength: MAX_CONTEXT });
    const ckpt = base?.[slot.id];
    const fresh = () => (ckpt ? loadCheckpoint(ckpt, { config }) : GPT.create(config, mixSeed(seed, `init/${slot.id}`)));
    const model = fresh();
    const opt = new AdamW(model, {
      lr: learningRate(slot, optim),
      weightDecay: optim.weightDecay,
      clipNorm: optim.maxGradNorm,
    });
    return { ...slot, model, opt, ref: optim.klCoef > 0 ? fresh() : null };
  });
}

export function disposeModels(models: readonly PolicyModel[]): void {
  for (const m of models) {
    m.model.dispose();
    m.opt.dispose();
    m.ref?.dispose();
  }
}
