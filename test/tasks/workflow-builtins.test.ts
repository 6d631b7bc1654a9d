/**
 * The built-in tasks as workflows: examples/workflows/sync-own.yaml and math.yaml must give exactly
 * the rollouts of task=sync-own and task=math — the same questions, prompts, validity, rewards,
 * own successes and outcomes — under the same policies and seeds. The policies here are the
 * built-in task's demonstrator (right and wrong answers) and a garbage emitter (malformed outputs,
 * special tokens), so every path of the rules is taken. The trainer-level check, three steps of
 * metrics, is test/train/workflow-train.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import { demonstratorPolicy } from '../../src/tasks/demo';
import { rollout, type Policy, type TaskRow } from '../../src/tasks/orchestrator';
import {
  defineWorkflow,
  getTask,
  sampleInstances,
  validationSet,
  type TaskRef,
} from '../../src/tasks/registry';
import { fuzzPolicy } from './helpers';
import { exampleWorkflow } from './workflow-examples';

/** The same policy for every agent (a demonstrator reads the state, so it must be the built-in's). */
const everyAgent = (task: TaskRef, policy: Policy) =>
  Object.fromEntries(getTask(task).agents.map((a) => [a.role, policy]));

/**
 * Both tasks rolled out on their own instances: the built-in one under `policy`, the workflow
 * under the same answers, replayed by each call's seed (a function of the rollout seed, the
 * trajectory and the call's index, so the same call of both gets the same seed). A call the
 * built-in task never made has no answer, and fails the test there.
 */
async function both(builtin: TaskRef, wf: TaskRef, policy: Policy, seed: number) {
  const instancesOf = (t: TaskRef) => sampleInstances(getTask(t), new Prng(seed), 'train', 8);
  const answers = new Map<number, string>();
  const recording: Policy = async (calls, options) => {
    const out = await policy(calls, options);
    calls.forEach((c, i) => answers.set(c.seed, out[i].text));
    return out;
  };
  const replaying: Policy = async (calls) =>
    calls.map((c) => {
      const text = answers.get(c.seed);
      if (text === undefined)
        throw new Error(
          `the workflow made a call the built-in task did not (${c.agent}, ${JSON.stringify(c.prompt)})`,
        );
      return { text };
    });
  const run = (t: TaskRef, p: Policy) =>
    rollout({ task: t, instances: instancesOf(t), groupSize: 4, policies: everyAgent(t, p), seed });
  return [await run(builtin, recording), await run(wf, replaying)] as const;
}

/** A row without the policy's extras, as the update and metrics read it. */
const rowView = (r: TaskRow) => [r.agent, r.turn, r.callIndex, r.reward, r.prompt, r.response, r.valid];

describe.each(['sync-own', 'math'] as const)('%s as a workflow', (name) => {
  const ref = defineWorkflow(exampleWorkflow(name));

  it('draws the same questions, in the same split, as the built-in task', () => {
    const task = getTask(ref);
    const builtin = getTask(name);
    const keys = (t: typeof task) => sampleInstances(t, new Prng(11), 'train', 30).map((i) => t.key(i));
    expect(keys(task)).toEqual(keys(builtin));
    const val = (t: typeof task) => validationSet(t, new Prng(4), 16).map((i) => t.key(i));
    expect(val(task)).toEqual(val(builtin));
    // The family whose split and shipped base models it shares.
    expect(task.variantOf).toBe(builtin.variantOf ?? builtin.name);
    expect(task.maxCalls).toBe(builtin.maxCalls);
    expect(task.invalidPenalty).toBe(builtin.invalidPenalty);
    expect(task.ownSuccess).toBe(builtin.ownSuccess);
    expect(task.agents).toEqual(builtin.agents);
  });

  it.each([
    ['the built-in demonstrator, erring 40 % of the time', () => demonstratorPolicy(name, 0.4)],
    ['a garbage emitter', () => fuzzPolicy(7)],
  ])('gives exactly the built-in rollouts under %s', async (_, make) => {
    for (const seed of [1, 2, 3]) {
      const [a, b] = await both(name, ref, make(), seed);
      expect(b.rows.map(rowView)).toEqual(a.rows.map(rowView));
      expect(b.trajectories).toEqual(a.trajectories);
    }
  });
});
