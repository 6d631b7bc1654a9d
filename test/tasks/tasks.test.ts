// Properties every registered task must have: vocabulary and context budget, disjoint splits,
// determinism, plain-data states, a perfect demonstrator at error rate 0.
import { describe, expect, it } from 'vitest';
import { CHARSET, ROLES, roleToken } from '../../src/core/vocab';
import { TASK_NAMES } from '../../src/core/config-names';
import { demonstratorPolicy } from '../../src/tasks/demo';
import { rollout } from '../../src/tasks/orchestrator';
import { Prng } from '../../src/core/prng';
import {
  getTask,
  sampleInstances,
  splitOf,
  TASKS,
  validationSet,
  VAL_PERCENT,
} from '../../src/tasks/registry';
import { MAX_CONTEXT } from '../../src/core/vocab';
import { inCharset, type BaseState } from '../../src/tasks/types';
import { allAgents, demoRollout, fuzzPolicy, PROMPT_CHARS, TASK_LIST } from './helpers';

describe('task registry', () => {
  it('has exactly the tasks named in the config schema', () => {
    expect(TASK_LIST.sort()).toEqual([...TASK_NAMES].sort());
    for (const name of TASK_LIST) expect(TASKS[name].name).toBe(name);
  });

  it('answers an unknown name with the valid list', () => {
    expect(() => getTask('chess')).toThrow(/Unknown task 'chess'. Valid: search, math, sync, coder-tester/);
    expect(() => getTask('toString')).toThrow(/Unknown task/);
  });
});

describe.each(TASK_LIST)('task %s', (name) => {
  const task = getTask(name);

  it('declares agents with known roles, short responses and vocabulary-only role prompts', () => {
    expect(new Set(task.agents.map((a) => a.role)).size).toBe(task.agents.length);
    for (const a of task.agents) {
      expect(ROLES).toContain(a.role);
      expect(a.maxResponse).toBeGreaterThanOrEqual(2);
      expect(a.maxResponse).toBeLessThanOrEqual(16);
      expect(inCharset(a.rolePrompt)).toBe(true);
    }
  });

  it('reaches 100% success with the demonstrator at error rate 0', async () => {
    const { trajectories, rows } = await demoRollout(name, 0, 60, 4);
    expect(trajectories.every((t) => t.success && t.status === 'ok')).toBe(true);
    expect(rows.every((r) => r.valid)).toBe(true);
  });

  it('uses only the vocabulary and fits the context for every prompt + response', async () => {
    const runs = [
      ...(await Promise.all([0, 0.3, 1].map((e) => demoRollout(name, e, 40, 4, 5)))),
      await rollout({
        task: name,
        instances: sampleInstances(task, new Prng(6), 'train', 60),
        groupSize: 4,
        policies: allAgents(name, fuzzPolicy(3)),
        seed: 6,
      }),
    ];
    runs.forEach((run, i) => {
      const demo = i < 3;
      for (const row of run.rows) {
        const spec = task.agents.find((a) => a.role === row.agent)!;
        expect(
          [...row.prompt].every((ch) => PROMPT_CHARS.has(ch)),
          row.prompt,
        ).toBe(true);
        expect(row.prompt.endsWith(roleToken(row.agent))).toBe(true);
        expect(row.prompt.length + spec.maxResponse + 2).toBeLessThanOrEqual(MAX_CONTEXT); // + BOS, EOS
        if (demo) {
          expect(inCharset(row.response), row.response).toBe(true);
          expect(row.response.length).toBeLessThanOrEqual(spec.maxResponse);
        }
      }
      for (const t of run.trajectories) {
        expect(t.status).toBe('ok');
        expect(Object.values(t.calls).reduce((a, b) => a! + b!, 0)).toBeLessThanOrEqual(task.maxCalls);
      }
    });
  });

  it('keeps training and validation instances apart', () => {
    const train = sampleInstances(task, new Prng(11), 'train', 1500).map((i) => task.key(i));
    const val = validationSet(task, new Prng(12), 200).map((i) => task.key(i));
    expect(new Set(val).size).toBe(200);
    const trainSet = new Set(train);
    expect(val.filter((k) => trainSet.has(k))).toEqual([]);
    expect(train.every((k) => splitOf(task, k) === 'train')).toBe(true);
    // The split is a property of the key alone, and holds out about VAL_PERCENT of draws.
    const rng = new Prng(13);
    const draws = Array.from({ length: 3000 }, () => splitOf(task, task.key(task.generate(rng))));
    const share = (100 * draws.filter((s) => s === 'val').length) / draws.length;
    expect(Math.abs(share - VAL_PERCENT)).toBeLessThan(3);
  });

  it('gives the same instances and trajectories for the same seed', async () => {
    const a = sampleInstances(task, new Prng(21), 'train', 30);
    expect(sampleInstances(task, new Prng(21), 'train', 30)).toEqual(a);
    expect(sampleInstances(task, new Prng(22), 'train', 30)).not.toEqual(a);
    const r1 = await demoRollout(name, 0.3, 10, 4, 9);
    const r2 = await demoRollout(name, 0.3, 10, 4, 9);
    expect(r2).toEqual(r1);
    const r3 = await demoRollout(name, 0.3, 10, 4, 10);
    expect(r3.rows).not.toEqual(r1.rows);
  });

  it('keeps trajectory state plain data: a JSON copy steps exactly like the original', () => {
    const rng = new Prng(31);
    const fuzz = new Prng(32);
    for (const instance of sampleInstances(task, rng, 'train', 40)) {
      let state: BaseState = task.init(instance);
      for (let call = task.next(state); call; call = task.next(state)) {
        const copy = JSON.parse(JSON.stringify(state)) as BaseState;
        expect(copy).toEqual(state);
        expect(task.next(copy)).toEqual(call);
        const response = fuzz.chance(0.2)
          ? [...'q:a1 >'].slice(0, fuzz.range(0, 6)).join('')
          : task.demonstrate(state, call.agent, rng, 0.3);
        const a = task.step(state, call.agent, response);
        const b = task.step(copy, call.agent, response);
        expect(b).toEqual(a);
        expect(a.valid).toBe(task.validate(call.agent, response) === null);
        state = a.state;
      }
      expect(state.done).toBe(true);
      expect(state.outcome).not.toBeNull();
      expect(state.log.length).toBeLessThanOrEqual(task.maxCalls);
    }
  });

  it('refuses a turn out of order', () => {
    const state = task.init(task.generate(new Prng(41)));
    const wrong = task.agents.find((a) => a.role !== task.next(state)!.agent)!.role;
    expect(() => task.step(state, wrong, 'x')).toThrow(/expected/);
  });

  it('scores a rollout through the demonstrator policy deterministically per call', async () => {
    const instances = sampleInstances(task, new Prng(51), 'train', 5);
    const policy = demonstratorPolicy(name, 0.5);
    const perAgent = await rollout({
      task: name,
      instances,
      groupSize: 3,
      policies: allAgents(name, policy),
      seed: 4,
    });
    const shared = await rollout({
      task: name,
      instances,
      groupSize: 3,
      policies: { one: policy },
      agentModels: Object.fromEntries(task.agents.map((a) => [a.role, 'one'])),
      seed: 4,
    });
    expect(shared.rows).toEqual(perAgent.rows); // batching by model changes nothing
    expect(CHARSET.length).toBeGreaterThan(0);
  });
});
