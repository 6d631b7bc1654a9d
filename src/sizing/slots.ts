/**
 * Which models an experiment needs and which agents each serves (config `models.assignment`,
 * `models.ids`, `models.perAgent`), checked against the task, with the experiment's other names of
 * agents (optim.perAgent, rollout.arms). No tfjs: the page sizes a config from it (memory.ts)
 * before anything is built, so a name the task lacks is refused there; train/models.ts builds the
 * networks.
 */
import type { Experiment } from '../core/config';
import { armsOf } from '../core/config-sections';
import type { PerAgentField } from '../core/config-sections';
import type { ModelPreset } from '../core/model-sizes';
import type { Role } from '../core/vocab';
import { taskOf } from '../tasks/registry';

export interface ModelSlot {
  /** `shared`, or the agent's role when each agent has its own model. */
  id: string;
  preset: ModelPreset;
  agents: Role[];
  /** The agent whose shipped base this model starts from (models.from), when not its own. */
  from?: Role;
}

/**
 * Per-agent settings (optim.perAgent) that would be silently ignored are refused, naming the
 * field: an agent the task does not have (a typo), any setting when all agents share one model
 * (one optimizer, one loss), or agents of one model (models.ids) that disagree; in the
 * experiment's optim or in a run's overrides. Unknown setting names the schema refuses already.
 */
function checkPerAgent(exp: Experiment, agents: readonly Role[], slots: readonly ModelSlot[]): void {
  const sources = [
    { at: 'optim', optim: exp.optim },
    ...exp.runs.map((r, i) => ({ at: `runs.${i}.optim`, optim: r.optim })),
  ];
  for (const { at, optim } of sources) {
    const own = optim.perAgent ?? {};
    for (const [name, settings] of Object.entries(own)) {
      if (!agents.includes(name as Role)) {
        throw new Error(
          `${at}.perAgent.${name}: task ${exp.task} has no agent "${name}" (agents: ${agents.join(', ')})`,
        );
      }
      for (const field of Object.keys(settings) as PerAgentField[]) {
        if (exp.models.assignment === 'shared') {
          throw new Error(
            `${at}.perAgent.${name}.${field}: all agents share one model (models.assignment = shared), so it has one ${field}; use optim.${field} or models.assignment = per-agent`,
          );
        }
        const slot = slots.find((s) => s.agents.includes(name as Role))!;
        if (new Set(slot.agents.map((a) => own[a]?.[field])).size > 1) {
          throw new Error(
            `${at}.perAgent.${name}.${field}: agents ${slot.agents.join(', ')} share model ${slot.id} (models.ids), so they need one ${field}`,
          );
        }
      }
    }
  }
}

/**
 * rollout.arms names agents of the task (experiment-wide or a run's): refused here, before anything
 * is built, rather than by the search at the first step, after the page or CLI has started the run.
 */
function checkArms(exp: Experiment, agents: readonly Role[]): void {
  const sources = [
    { at: 'rollout.arms', arms: exp.rollout.arms },
    ...exp.runs.map((r, i) => ({ at: `runs.${i}.rollout.arms`, arms: r.rollout.arms })),
  ];
  for (const { at, arms } of sources) {
    const stranger = armsOf(arms)?.find((a) => !agents.includes(a as Role));
    if (stranger !== undefined)
      throw new Error(`${at}: task ${exp.task} has no agent "${stranger}" (agents: ${agents.join(', ')})`);
  }
}

/**
 * Which models an experiment needs: one shared by all, or one per model id, where an agent's id
 * is its own name unless `models.ids` gives several agents the same one (DrMAS `model_ids`).
 */
export function modelSlots(exp: Experiment): ModelSlot[] {
  const agents = taskOf(exp).agents.map((a) => a.role);
  checkArms(exp, agents);
  if (exp.models.assignment === 'shared') {
    for (const field of ['perAgent', 'ids', 'from'] as const) {
      const extra = Object.keys(exp.models[field]);
      if (extra.length)
        throw new Error(`models.${field} (${extra.join(', ')}) needs models.assignment = per-agent`);
    }
    const slots = [{ id: 'shared', preset: exp.models.preset, agents }];
    checkPerAgent(exp, agents, slots);
    return slots;
  }
  for (const field of ['perAgent', 'ids', 'from'] as const) {
    for (const name of Object.keys(exp.models[field])) {
      if (!agents.includes(name as Role)) {
        throw new Error(
          `models.${field}.${name}: task ${exp.task} has no agent "${name}" (agents: ${agents.join(', ')})`,
        );
      }
    }
  }
  const slots: ModelSlot[] = [];
  for (const role of agents) {
    const id = exp.models.ids[role] ?? role;
    const preset = exp.models.perAgent[role] ?? exp.models.preset;
    const slot = slots.find((s) => s.id === id);
    if (!slot) slots.push({ id, preset, agents: [role] });
    else if (slot.preset !== preset) {
      throw new Error(
        `models.perAgent.${role}: agents ${[...slot.agents, role].join(', ')} share model ${id} (models.ids), so they need one size`,
      );
    } else slot.agents.push(role);
  }
  // models.from: an agent's own model starts from another agent's base file (the same size's, or
  // its <id>-<size>.ckpt). One file cannot seed a model several agents share: refused, not guessed.
  for (const [name, from] of Object.entries(exp.models.from)) {
    if (!agents.includes(from as Role))
      throw new Error(
        `models.from.${name}: task ${exp.task} has no agent "${from}" (agents: ${agents.join(', ')})`,
      );
    const slot = slots.find((s) => s.agents.includes(name as Role))!;
    if (slot.agents.length > 1)
      throw new Error(
        `models.from.${name}: agents ${slot.agents.join(', ')} share model ${slot.id} (models.ids), which starts from the task's shared base`,
      );
    if (from !== name) slot.from = from as Role;
  }
  checkPerAgent(exp, agents, slots);
  return slots;
}
