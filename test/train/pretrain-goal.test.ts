/**
 * A workflow's preparation says whether it stopped by its recipe: every agent past its own
 * validation success ends it even while the team's stays below `base.success` (each model stops
 * learning once its agents pass), and only a step cap or a Stop leaves it short. The page's
 * "short of the recipe's …" and the CLI's rest on `reached`, not on the team's figure alone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { recipeGoal } from '../../src/core/workflow/base-key';
import { WorkflowSchema } from '../../src/core/workflow/schema';
import { pretrainWorkflowBase } from '../../src/train/pretrain';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

/** One agent on four rows, demonstrated saying the row's word; its own rule and the team's are given. */
const workflow = (own: object, team: object) => ({
  version: 1,
  name: 'goal',
  agents: [{ name: 'ann', maxResponse: 2, demo: '{word}' }],
  data: { rows: ['ab', 'cd', 'ef', 'gh'].map((word, i) => ({ word, split: i < 2 ? 'train' : 'val' })) },
  flow: [{ agent: 'ann', prompt: '{word}>' }],
  rewards: { ann: own },
  team,
  base: { maxSteps: 20 },
});
const prepare = (wf: object) =>
  pretrainWorkflowBase(
    ExperimentSchema.parse({ task: 'workflow', workflow: wf, eval: { questions: 4, k: 2 } }),
    {},
  );

describe('a workflow preparation and its recipe', () => {
  it('stops by the recipe once every agent is past its own, the team at 0', async () => {
    // Any answer of 0 to 64 characters is right for ann; the team's text is one she never says.
    const r = await prepare(workflow({ rule: 'length', min: 0, max: 64 }, { rule: 'exact', expect: 'zz' }));
    expect(r.own.ann).toBe(1);
    expect(r.success).toBe(0);
    expect(r.steps).toBe(20); // the first check
    expect(r.reached).toBe(true);
  });

  it('is short of it when the step cap comes first', async () => {
    // ann is shown the word, and rewarded only for a text she is never shown.
    const r = await prepare(workflow({ rule: 'exact', expect: 'zz' }, { rule: 'exact', expect: 'zz' }));
    expect(r.own.ann).toBe(0);
    expect(r.steps).toBe(20);
    expect(r.reached).toBe(false);
  });

  it('names the goal that decides', () => {
    const wf = WorkflowSchema.parse(
      workflow({ rule: 'exact', expect: '{word}' }, { rule: 'exact', expect: 'zz' }),
    );
    expect(recipeGoal(wf)).toBe('own validation success 0.15 for every agent');
    expect(recipeGoal({ ...wf, base: { ...wf.base, ownSuccess: 0 } })).toBe('validation success 0.3');
  });
});
