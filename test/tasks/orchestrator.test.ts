import { describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/vocab';
import { demonstratorPolicy } from '../../src/tasks/demo';
import {
  applyStep,
  InProcessEnvRunner,
  type EnvRunner,
  type EnvStepInput,
  type EnvStepResult,
} from '../../src/tasks/env';
import {
  rollout,
  rowOf,
  type Policy,
  type PolicyCall,
  type PolicyOptions,
} from '../../src/tasks/orchestrator';
import { Prng } from '../../src/core/prng';
import { evaluate } from '../../src/train/evaluate';
import { getTask, sampleInstances, TASKS, validationSet, type TaskName } from '../../src/tasks/registry';
import { allAgents, fuzzPolicy } from './helpers';

const instancesOf = (task: TaskName, n: number, seed = 1) =>
  sampleInstances(TASKS[task], new Prng(seed), 'train', n);

/** Wraps a policy, recording every batch it receives. */
function recording<X extends object>(inner: Policy<X>) {
  const batches: { calls: PolicyCall[]; options: PolicyOptions }[] = [];
  const policy: Policy<X> = async (calls, options) => {
    batches.push({ calls, options });
    return inner(calls, options);
  };
  return { policy, batches };
}

/** Mixes demonstrator and garbage answers so both valid and invalid rows occur. */
function mixedPolicy(task: TaskName): Policy {
  const demo = demonstratorPolicy(task, 0.3);
  const fuzz = fuzzPolicy(5);
  return async (calls, o) => {
    const [d, f] = await Promise.all([demo(calls, o), fuzz(calls, o)]);
    return calls.map((c, i) => (c.seed % 4 === 0 ? f[i] : d[i]));
  };
}

describe('rowOf', () => {
  it("holds the policy's extras, then the task's fields, then the response, in that order; a task field takes an extra's value in its place", () => {
    const output = { responseIds: [7, 2], text: 'a:4', valid: 'the policy says so', oldLogp: [-0.5, -0.25] };
    const fields = {
      group: 1,
      traj: 5,
      agent: 'solver',
      turn: 0,
      callIndex: 2,
      reward: 1,
      prompt: 'q',
      valid: true,
    };
    expect(Object.entries(rowOf(output, { ...fields, agent: 'solver' as Role }))).toEqual([
      ['responseIds', [7, 2]],
      ['valid', true],
      ['oldLogp', [-0.5, -0.25]],
      ['group', 1],
      ['traj', 5],
      ['agent', 'solver'],
      ['turn', 0],
      ['callIndex', 2],
      ['reward', 1],
      ['prompt', 'q'],
      ['response', 'a:4'],
    ]);
    expect(output).toEqual({
      responseIds: [7, 2],
      text: 'a:4',
      valid: 'the policy says so',
      oldLogp: [-0.5, -0.25],
    });
  });
});

describe('rollout batching', () => {
  it('sends one batch per model per tick, with every pending call of that model', async () => {
    const { policy, batches } = recording(demonstratorPolicy('math', 0));
    const B = 3;
    const G = 4;
    const r = await rollout({
      task: 'math',
      instances: instancesOf('math', B),
      groupSize: G,
      policies: allAgents('math', policy),
      seed: 1,
      temperature: 0.6,
    });
    // Error rate 0: every trajectory is [solver, verifier(yes)], so two ticks of B×G calls.
    expect(r.ticks).toBe(2);
    expect(batches.map((b) => [b.calls[0].agent, b.calls.length])).toEqual([
      ['solver', B * G],
      ['verifier', B * G],
    ]);
    expect(batches[0].options).toEqual({ temperature: 0.6, topP: 1 });
    expect(batches[0].calls.map((c) => [c.group, c.traj])).toEqual(
      Array.from({ length: B * G }, (_, t) => [Math.floor(t / G), t]),
    );
  });

  it('puts agents that share a model into one batch', async () => {
    const { policy, batches } = recording(demonstratorPolicy('search', 0.3));
    const agentModels: Partial<Record<Role, string>> = { verifier: 'm', search: 'm', answer: 'm' };
    const r = await rollout({
      task: 'search',
      instances: instancesOf('search', 4),
      groupSize: 4,
      policies: { m: policy },
      agentModels,
      seed: 2,
    });
    expect(batches).toHaveLength(r.ticks);
    expect(batches.some((b) => new Set(b.calls.map((c) => c.agent)).size > 1)).toBe(true);
    expect(batches.reduce((n, b) => n + b.calls.length, 0)).toBe(r.rows.length);
  });

  it('passes policy extras to rows untouched and keeps rows trajectory-major', async () => {
    const logp = new Float32Array([-0.5, -1.5]);
    const inner = demonstratorPolicy('search', 0.2);
    const policy: Policy<{ logp: Float32Array; tokens: number }> = async (calls, o) =>
      (await inner(calls, o)).map((out, i) => ({ ...out, logp, tokens: calls[i].prompt.length }));
    const r = await rollout({
      task: 'search',
      instances: instancesOf('search', 3),
      groupSize: 3,
      policies: allAgents('search', policy as Policy),
      seed: 3,
    });
    for (const row of r.rows) {
      expect((row as unknown as { logp: Float32Array }).logp).toBe(logp);
      expect((row as unknown as { tokens: number }).tokens).toBe(row.prompt.length);
      expect('text' in row).toBe(false);
    }
    const order = r.rows.map((row) => [row.traj, row.callIndex]);
    expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  });
});

describe('rows and trajectory results', () => {
  it.each(Object.keys(TASKS) as TaskName[])(
    '%s: row reward = agent reward − penalty if invalid; turns and calls agree',
    async (task) => {
      const t = TASKS[task];
      const r = await rollout({
        task,
        instances: instancesOf(task, 20),
        groupSize: 4,
        policies: allAgents(task, mixedPolicy(task)),
        seed: 4,
      });
      expect(r.rows.some((row) => !row.valid)).toBe(true);
      for (const row of r.rows) {
        const traj = r.trajectories[row.traj];
        expect(row.group).toBe(traj.group);
        expect(row.reward).toBeCloseTo(
          traj.agentRewards[row.agent]! - (row.valid ? 0 : t.invalidPenalty),
          12,
        );
      }
      for (const traj of r.trajectories) {
        const rows = r.rows.filter((row) => row.traj === traj.traj);
        for (const a of t.agents) {
          const mine = rows.filter((row) => row.agent === a.role);
          expect(mine).toHaveLength(traj.calls[a.role]!);
          expect(mine.map((row) => row.turn)).toEqual(mine.map((_, i) => i));
        }
        expect(traj.invalidRows).toBe(rows.filter((row) => !row.valid).length);
        if (!['coder-tester', 'search-roles', 'sync-own'].includes(task))
          for (const a of t.agents) expect(traj.agentRewards[a.role]).toBe(traj.reward);
      }
    },
  );

  it('gives the coder and tester rewards on their own scales', async () => {
    const r = await rollout({
      task: 'coder-tester',
      instances: instancesOf('coder-tester', 30),
      groupSize: 4,
      policies: allAgents('coder-tester', demonstratorPolicy('coder-tester', 0.4)),
      seed: 5,
    });
    for (const t of r.trajectories) {
      expect(t.agentRewards.coder).toBeCloseTo(2 * t.reward, 12);
      expect(t.agentRewards.tester! - t.reward).toBeGreaterThanOrEqual(0);
      expect(t.agentRewards.tester! - t.reward).toBeLessThanOrEqual(1);
    }
  });
});

describe('environment failures', () => {
  /** Fails (as a hung worker would be reported) every step of the listed trajectories after their first call. */
  class FlakyRunner implements EnvRunner {
    private readonly inner = new InProcessEnvRunner();
    constructor(private readonly failing: Set<number>) {}
    async step(task: TaskName, inputs: readonly EnvStepInput[]): Promise<EnvStepResult[]> {
      const ok = await this.inner.step(task, inputs);
      return inputs.map((inp, i) =>
        this.failing.has(inp.traj) && inp.state.log.length >= 1
          ? { ok: false, error: 'timed out after 2000 ms' }
          : ok[i],
      );
    }
    dispose(): void {}
  }

  it('marks a failed trajectory invalid with reward 0 and leaves the others untouched', async () => {
    const instances = instancesOf('search', 4);
    const policies = allAgents('search', demonstratorPolicy('search', 0.2));
    const base = await rollout({ task: 'search', instances, groupSize: 4, policies, seed: 6 });
    const flaky = await rollout({
      task: 'search',
      instances,
      groupSize: 4,
      policies,
      seed: 6,
      env: new FlakyRunner(new Set([1, 9])),
    });
    for (const t of flaky.trajectories) {
      if (t.traj === 1 || t.traj === 9) {
        expect(t).toMatchObject({
          status: 'error',
          error: 'timed out after 2000 ms',
          success: false,
          reward: 0,
        });
        const rows = flaky.rows.filter((r) => r.traj === t.traj);
        expect(rows).toHaveLength(2); // the call that broke the env is still a row
        expect(rows.every((r) => r.reward === 0)).toBe(true);
        expect(rows[1].valid).toBe(false);
      } else {
        expect(t).toEqual(base.trajectories[t.traj]);
        expect(flaky.rows.filter((r) => r.traj === t.traj)).toEqual(
          base.rows.filter((r) => r.traj === t.traj),
        );
      }
    }
  });

  it('turns a throwing transition into an error outcome', () => {
    const state = getTask('math').init(instancesOf('math', 1)[0]);
    expect(applyStep('math', { traj: 7, state, agent: 'verifier', response: 'yes' })).toEqual({
      ok: false,
      error: "traj 7: expected 'solver' to act, got 'verifier'.",
    });
    expect(applyStep('math', { traj: 7, state, agent: 'solver', response: '1' })).toMatchObject({
      ok: true,
      valid: true,
    });
  });

  it('rejects a missing policy or a short answer with a clear message', async () => {
    const instances = instancesOf('math', 1);
    await expect(rollout({ task: 'math', instances, groupSize: 2, policies: {}, seed: 1 })).rejects.toThrow(
      /no policy for model 'solver'/,
    );
    const short: Policy = async () => [{ text: '1' }];
    await expect(
      rollout({
        task: 'math',
        instances,
        groupSize: 2,
        policies: { solver: short, verifier: short },
        seed: 1,
      }),
    ).rejects.toThrow(/answered 1 of 2 calls/);
  });
});

describe('evaluation', () => {
  it('computes avg@k and pass@k over the validation split', async () => {
    const val = validationSet(TASKS.math, new Prng(8), 12);
    const perfect = await evaluate({
      task: 'math',
      instances: val,
      k: 4,
      policies: allAgents('math', demonstratorPolicy('math', 0)),
      seed: 8,
      temperature: 0.6,
    });
    expect(perfect).toMatchObject({ k: 4, avg: 1, pass: 1, errors: 0 });
    expect(perfect.successes).toEqual(new Array(12).fill(4));
    const noisy = await evaluate({
      task: 'math',
      instances: val,
      k: 8,
      policies: allAgents('math', demonstratorPolicy('math', 0.6)),
      seed: 8,
    });
    expect(noisy.pass).toBeGreaterThanOrEqual(noisy.avg);
    expect(noisy.avg).toBeCloseTo(noisy.successes.reduce((a, b) => a + b, 0) / (12 * 8), 12);
    expect(noisy.pass).toBeCloseTo(noisy.successes.filter((s) => s > 0).length / 12, 12);
  });

  it('hands the configured temperature to the policy', async () => {
    const { policy, batches } = recording(demonstratorPolicy('sync', 0));
    await evaluate({
      task: 'sync',
      instances: validationSet(TASKS.sync, new Prng(9), 2),
      k: 2,
      policies: allAgents('sync', policy),
      seed: 9,
      temperature: 0.6,
      topP: 0.95,
    });
    expect(batches.every((b) => b.options.temperature === 0.6 && b.options.topP === 0.95)).toBe(true);
  });
});
