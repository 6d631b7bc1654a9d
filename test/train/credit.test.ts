import { describe, expect, it } from 'vitest';
import { agentKey, M } from '../../src/core/metrics';
import type { RewardOptions } from '../../src/core/config-sections';
import { validateExperiment } from '../../src/core/config-validate';
import { demonstratorPolicy } from '../../src/tasks/demo';
import { InProcessEnvRunner, type EnvStepInput } from '../../src/tasks/env';
import { rollout, type TrajectoryResult } from '../../src/tasks/orchestrator';
import { getTask, sampleInstances, TASKS } from '../../src/tasks/registry';
import { replay, type RecordedCall } from '../../src/tasks/replay';
import { expectTurn, finish, logged, type AnyTask, type BaseState, type Task } from '../../src/tasks/types';
import { Prng } from '../../src/core/prng';
import { batchCredit } from '../../src/train/credit';

/**
 * A hand-built two-agent workflow: bob talks first, then alice says 1 or not; the outcome is 1
 * exactly when alice said "1". Bob's words reach nothing (alice's prompt is "go"), unless
 * `aliceSeesBob`: then alice's prompt is what bob said. Neutral default: the empty output.
 */
interface Hand extends BaseState {
  said: string[];
}
const handWorkflow = (aliceSeesBob: boolean): Task<null, Hand> => {
  const hand: Task<null, Hand> = {
    name: 'hand',
    doc: 'bob talks, alice decides',
    agents: [
      { role: 'bob', rolePrompt: '', maxResponse: 4 },
      { role: 'alice', rolePrompt: '', maxResponse: 4 },
    ],
    invalidPenalty: 0,
    maxCalls: 2,
    generate: () => null,
    key: () => 'hand',
    init: () => ({ said: [], log: [], done: false, outcome: null }),
    next: (s) =>
      s.done
        ? null
        : s.said.length === 0
          ? { agent: 'bob', prompt: '' }
          : { agent: 'alice', prompt: aliceSeesBob ? s.said[0] : 'go' },
    validate: () => null,
    step: (s, agent, response) => {
      expectTurn(hand.next(s), agent);
      const state = { ...s, said: [...s.said, response], log: logged(s, agent, true) };
      if (agent === 'bob') return { state, valid: true };
      return {
        state: finish(state, { success: response === '1', reward: response === '1' ? 1 : 0 }),
        valid: true,
      };
    },
    demonstrate: () => '1',
    neutral: () => '',
  };
  return hand;
};
const hand = handWorkflow(false);
const handTask = hand as unknown as AnyTask;
const stepOf = (task: Task<null, Hand>) => async (inputs: EnvStepInput[]) =>
  inputs.map((i) => ({ ok: true as const, ...task.step(i.state as Hand, i.agent, i.response) }));
const handStep = stepOf(hand);

const traj = (t: number, reward: number): TrajectoryResult => ({
  group: 0,
  traj: t,
  status: 'ok',
  success: reward === 1,
  reward,
  agentRewards: { bob: reward, alice: reward },
  calls: { bob: 1, alice: 1 },
  invalidRows: 0,
});
const options = (
  credit: RewardOptions['credit'],
  creditReplay: RewardOptions['creditReplay'] = 'turn',
): RewardOptions => ({
  credit,
  creditReplay,
  creditWeight: 1,
  creditSamples: 32,
});

describe('per-agent credit by coalition replay', () => {
  // Trajectory 0: alice said 1 (outcome 1); trajectory 1: alice said 0 (outcome 0).
  const rows = [
    { traj: 0, agent: 'bob' as const, turn: 0, prompt: '', response: 'hi' },
    { traj: 0, agent: 'alice' as const, turn: 0, prompt: 'go', response: '1' },
    { traj: 1, agent: 'bob' as const, turn: 0, prompt: '', response: 'yo' },
    { traj: 1, agent: 'alice' as const, turn: 0, prompt: 'go', response: '0' },
  ];
  const input = {
    task: handTask,
    step: handStep,
    instances: [null],
    rows,
    trajectories: [traj(0, 1), traj(1, 0)],
    seed: 3,
  };

  for (const [mode, match] of [
    ['counterfactual', 'prompt'],
    ['counterfactual', 'turn'],
    ['shapley', 'prompt'],
    ['shapley', 'turn'],
  ] as const) {
    it(`${mode} (${match}): the agent whose output alone decides the outcome gets all the credit, the other none`, async () => {
      const c = (await batchCredit({ ...input, options: options(mode, match) }))!;
      expect([...c.rowCredit]).toEqual([0, 1, 0, 0]); // bob 0, alice 1 | bob 0, alice 0
      // The outcome without each row's agent: without bob alice still says 1; without alice nothing wins.
      expect([...c.rowWithout]).toEqual([1, 0, 0, 0]);
      expect(c.metrics[agentKey('alice', 'credit/mean')]).toBe(0.5);
      expect(c.metrics[agentKey('alice', 'credit/std')]).toBe(0.5);
      expect(c.metrics[agentKey('bob', 'credit/mean')]).toBe(0);
      expect(c.metrics[agentKey('bob', 'credit/std')]).toBe(0);
      expect(c.metrics[M.creditReplays]).toBe(mode === 'counterfactual' ? 4 : 6); // K, or 2^K − 1, per trajectory
      expect(c.metrics[M.creditErrors]).toBe(0);
    });
  }

  it("where bob's words reach alice, 'prompt' replays credit bob too, 'turn' replays hold alice's answer fixed", async () => {
    const echo = handWorkflow(true);
    const seen = rows.map((r) => (r.agent === 'alice' ? { ...r, prompt: r.traj === 0 ? 'hi' : 'yo' } : r));
    const at = (match: 'prompt' | 'turn') =>
      batchCredit({
        ...input,
        task: echo as unknown as AnyTask,
        step: stepOf(echo),
        rows: seen,
        options: options('counterfactual', match),
      });
    // prompt: without bob, alice sees '' instead of 'hi', her recorded answer no longer applies → neutral → 0.
    const byPrompt = (await at('prompt'))!;
    expect([...byPrompt.rowCredit]).toEqual([1, 1, 0, 0]);
    expect(byPrompt.metrics[M.creditUnrecorded]).toBe(2); // alice's call in each trajectory's bob-less replay
    // turn: alice still answers '1' at her first call, so bob earned nothing.
    expect([...(await at('turn'))!.rowCredit]).toEqual([0, 1, 0, 0]);
  });

  it('shared credit replays nothing', async () => {
    expect(await batchCredit({ ...input, options: options('shared') })).toBeNull();
    // …also on a step whose every trajectory errored (it then reported credit keys for a shared run).
    const errored = input.trajectories.map((t) => ({ ...t, status: 'error' as const }));
    expect(await batchCredit({ ...input, trajectories: errored, options: options('shared') })).toBeNull();
  });

  it('a call the recording lacks takes the neutral default and is counted', async () => {
    // Recorded: bob only (as if alice never acted); kept: both. Alice's call has no recorded output.
    const [r] = await replay(handTask, handStep, [
      {
        instance: null,
        recorded: { bob: [{ prompt: '', response: 'hi' }] },
        keep: new Set(['bob', 'alice']),
      },
    ]);
    expect(r).toEqual({ outcome: { success: false, reward: 0 }, unrecorded: 1, steps: 2 });
  });

  it('on search, replaying the full coalition reproduces every trajectory, and Shapley values sum to v(all) − v(∅)', async () => {
    const task = getTask('search');
    const env = new InProcessEnvRunner();
    const instances = sampleInstances(task, new Prng(11), 'train', 4);
    const batch = await rollout({
      task: 'search',
      instances,
      groupSize: 4,
      policies: Object.fromEntries(task.agents.map((a) => [a.role, demonstratorPolicy('search', 0.3)])),
      env,
      seed: 5,
    });
    const step = (inputs: EnvStepInput[]) => env.step('search', inputs);
    const recorded = batch.trajectories.map((t) => {
      const out: Record<string, RecordedCall[]> = {};
      for (const r of batch.rows)
        if (r.traj === t.traj) (out[r.agent] ??= [])[r.turn] = { prompt: r.prompt, response: r.response };
      return out;
    });
    const roles = task.agents.map((a) => a.role);
    const full = await replay(
      task,
      step,
      batch.trajectories.map((t) => ({
        instance: instances[t.group],
        recorded: recorded[t.traj],
        keep: new Set(roles),
      })),
    );
    expect(full.map((r) => r.outcome?.reward)).toEqual(batch.trajectories.map((t) => t.reward));
    expect(full.every((r) => r.unrecorded === 0)).toBe(true);
    expect(new Set(batch.trajectories.map((t) => t.reward)).size).toBe(2); // some succeed, some fail

    const none = await replay(
      task,
      step,
      batch.trajectories.map((t) => ({
        instance: instances[t.group],
        recorded: recorded[t.traj],
        keep: new Set(),
      })),
    );
    const c = (await batchCredit({
      task,
      step,
      instances,
      rows: batch.rows,
      trajectories: batch.trajectories,
      options: options('shapley'),
      seed: 1,
    }))!;
    for (const t of batch.trajectories) {
      const sum = roles.reduce((s, role) => {
        const i = batch.rows.findIndex((r) => r.traj === t.traj && r.agent === role);
        return s + (i >= 0 ? c.rowCredit[i] : 0); // an agent that never acted has credit 0
      }, 0);
      expect(sum).toBeCloseTo(t.reward - none[t.traj].outcome!.reward, 12);
    }
    env.dispose();
  });

  it('every task has a neutral default, and its replays finish (no env error) with finite credit', async () => {
    for (const name of Object.keys(TASKS) as (keyof typeof TASKS)[]) {
      const task = getTask(name);
      expect(task.neutral, name).toBeTypeOf('function');
      const env = new InProcessEnvRunner();
      const instances = sampleInstances(task, new Prng(2), 'train', 2);
      const policies = Object.fromEntries(task.agents.map((a) => [a.role, demonstratorPolicy(name, 0.3)]));
      const batch = await rollout({ task: name, instances, groupSize: 2, policies, env, seed: 9 });
      const step = (inputs: EnvStepInput[]) => env.step(name, inputs);
      const c = (await batchCredit({
        task,
        step,
        instances,
        rows: batch.rows,
        trajectories: batch.trajectories,
        options: options('shapley'),
        seed: 1,
      }))!;
      expect(c.metrics[M.creditErrors], name).toBe(0);
      expect(c.metrics[M.creditReplays], name).toBe(4 * (2 ** task.agents.length - 1));
      expect([...c.rowCredit].every(Number.isFinite), name).toBe(true);
      env.dispose();
    }
  });
});

describe('per-agent credit and tree sampling', () => {
  it('are refused together, naming the field that asks for credit', () => {
    const tree = { rollout: { sampling: 'tree' } };
    const at = (input: object) => {
      const r = validateExperiment(input);
      return r.ok ? [] : r.errors.map((e) => e.path);
    };
    expect(at({ ...tree, reward: { credit: 'counterfactual' } })).toEqual(['reward.credit']);
    expect(
      at({
        ...tree,
        runs: [
          { label: 'A', estimator: 'grpo', reward: { credit: 'shapley' } },
          { label: 'B', estimator: 'drmas' },
        ],
      }),
    ).toEqual(['runs.0.reward.credit']);
    // A run that turns credit off is fine; so is credit on parallel rollouts.
    expect(
      at({
        ...tree,
        reward: { credit: 'counterfactual' },
        runs: [{ label: 'A', estimator: 'grpo', reward: { credit: 'shared' } }],
      }),
    ).toEqual([]);
    expect(at({ reward: { credit: 'counterfactual' } })).toEqual([]);
  });
});
