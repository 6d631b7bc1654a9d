/**
 * The models of one run: which agents share which network (config `models.assignment`), each
 * model's size, its AdamW optimizer and optional frozen reference. Agents that share a model are
 * told apart by their role token. Every run of an experiment starts from the same weights: the
 * shipped base checkpoint, or a seeded fresh init.
 */
import type { Experiment } from '../core/config';
import type { Optim } from '../core/config-sections';
import { loadCheckpoint, type Checkpoint } from '../model/checkpoint';
import { GPT } from '../model/gpt';
import { gptConfig } from '../core/gpt-config';
import { AdamW } from '../model/optim';
import { mixSeed } from '../core/prng';
import { MAX_CONTEXT } from '../core/vocab';
import { modelSlots, type ModelSlot } from '../sizing/slots';

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
 * The settings a model trains with: the run's, with its agents' own (optim.perAgent, one set per
 * model, checked above) in place of the shared values.
 */
export function modelOptim(slot: ModelSlot, optim: Optim): Optim {
  return { ...optim, ...optim.perAgent[slot.agents[0]] };
}

/**
 * Builds the run's models. `base` holds a starting checkpoint per model id (shipped base models);
 * without one a model is initialized from the experiment seed, identically in every run. `optim`
 * returns the run's settings as they stand: each optimizer reads its learning rate and grad clip
 * from them at every step, so a live change of the settings is the only change to make.
 */
export function buildModels(
  exp: Experiment,
  optim: () => Optim,
  seed: number,
  base: Readonly<Record<string, Checkpoint>> | null,
): PolicyModel[] {
  const { weightDecay, klCoef } = optim();
  return modelSlots(exp).map((slot) => {
    const config = gptConfig(slot.preset, { contextLength: MAX_CONTEXT });
    const ckpt = base?.[slot.id];
    const fresh = () =>
      ckpt ? loadCheckpoint(ckpt, { config }) : GPT.create(config, mixSeed(seed, `init/${slot.id}`));
    const model = fresh();
    const opt = new AdamW(model, {
      lr: () => modelOptim(slot, optim()).lr,
      clipNorm: () => modelOptim(slot, optim()).maxGradNorm,
      weightDecay,
    });
    return { ...slot, model, opt, ref: klCoef > 0 ? fresh() : null };
  });
}

export function disposeModels(models: readonly PolicyModel[]): void {
  for (const m of models) {
    m.model.dispose();
    m.opt.dispose();
    m.ref?.dispose();
  }
}
