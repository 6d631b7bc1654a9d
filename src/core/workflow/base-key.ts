/**
 * A workflow's base models: the recipe that prepares them, and the key they are kept under (the
 * CLI's .lab-cache/base-models/<key>/, the page's IndexedDB). The key is a SHA-256 of what the
 * demonstrations and the pretraining depend on: the workflow without what does not change them
 * (each mix, the invalid penalty, the doc), the data (rows inline, or the file's SHA-256), the
 * models' sizes and assignment, and the recipe. So a sweep over `workflow.rewards.<agent>.mix`
 * shares one set of base models, and any change to the agents, flow, rules or data makes a new one.
 * Pure.
 */
import { sha256Hex } from '../sha256';
import { expandWorkflow, type WorkflowSpec } from './families';
import type { Workflow } from './schema';

/** How every workflow's base models are pretrained (docs/workflows.md#base-models). */
export const WORKFLOW_PRETRAIN = { checkEvery: 20, batchSize: 32, lr: 3e-3 } as const;

/** The pretraining of a workflow's base models: the lab's constants and the workflow's own `base`. */
export function pretrainRecipe(wf: Workflow) {
  return {
    ...WORKFLOW_PRETRAIN,
    targetSuccess: wf.base.success,
    minOwnSuccess: wf.base.ownSuccess,
    maxSteps: wf.base.maxSteps,
  };
}

/**
 * What the recipe stops at, in words: every agent's own validation success where the workflow asks
 * for one (a model stops learning once its agents pass it, so that is what ends the preparation),
 * else the team's. The page and the CLI say a preparation fell "short of" this.
 */
export function recipeGoal(wf: Workflow): string {
  return wf.base.ownSuccess > 0
    ? `own validation success ${wf.base.ownSuccess} for every agent`
    : `validation success ${wf.base.success}`;
}

interface Keyed {
  workflow?: WorkflowSpec;
  models: { assignment: string; preset: string; perAgent: Readonly<Record<string, string>> };
}

/** The key of an experiment's workflow base models. */
export function baseModelsKey(exp: Keyed): string {
  if (!exp.workflow) throw new Error('baseModelsKey: the experiment has no workflow');
  const wf = expandWorkflow(exp.workflow);
  const { mix: _mix, invalidPenalty: _penalty, doc: _doc, ...rest } = wf;
  const rewards = Object.fromEntries(
    Object.entries(wf.rewards).map(([agent, r]) => {
      const { mix: _m, ...rule } = r as typeof r & { mix?: number };
      return [agent, rule];
    }),
  );
  return sha256Hex(
    JSON.stringify({ workflow: { ...rest, rewards }, models: exp.models, recipe: WORKFLOW_PRETRAIN }),
  ).slice(0, 24);
}
