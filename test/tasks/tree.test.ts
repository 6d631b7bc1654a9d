import { describe, expect, it } from 'vitest';
import { validateExperiment } from '../../src/core/config-validate';
import { Prng } from '../../src/core/prng';
import { computeAdvantages } from '../../src/rl/advantage';
import { demonstratorPolicy, type ErrorRates } from '../../src/tasks/demo';
import {
  agentRewardsOf,
  rollout,
  type Policy,
  type PolicyCall,
  type PolicyOptions,
  type RolloutResult,
} from '../../src/tasks/orchestrator';
import { getTask, sampleInstances, TASKS, type TaskName } from '../../src/tasks/registry';
import { argmaxSeeded, treeRollout, type TreeVariant } from '../../src/tasks/tree';
import type { BaseState } from '../../src/tasks/types';
import { SAMPLINGS } from '../../src/tasks/sampling';
import { allAgents } from './helpers';

const B = 6;
const K = 4;

/** Every batch a policy receives, with its options. */
function recording(inner: Policy) {
  const batches: { calls: PolicyCall[]; options: PolicyOptions }[] = [];
  const policy: Policy = async (calls, options) => {
    batches.push({ calls, options });
    return inner(calls, options);
  };
  return { policy, batches };
}

function tree(
  task: TaskName,
  errorRate: ErrorRates,
  seed = 1,
  policy: Policy = demonstratorPolicy(task, errorRate),
  n = B,
  variant: TreeVariant = { keep: 'best', score: 'turn' },
) {
  return treeRollout(
    {
      task,
      instances: sampleInstances(TASKS[task], new Prng(seed), 'train', n),
      groupSize: K,
      policies: allAgents(task, policy),
      seed,
    },
    variant,
  );
}

/** The same math batch sampled in parallel (seed 1). */
function parallel(errorRate: ErrorRates, n = B) {
  return rollout({
    task: 'math',
    instances: sampleInstances(TASKS.math, new Prng(1), 'train', n),
    groupSize: K,
    policies: allAgents('math', demonstratorPolicy('math', errorRate)),
    seed: 1,
  });
}

/** Rows of the batch keyed by (group, turn, agent): AT-GRPO's sets. */
function siblingSets(r: RolloutResult): Map<string, RolloutResult['rows']> {
  const sets = new Map<string, RolloutResult['rows']>();
  for (const row of r.rows) {
    const key = `${row.group}/${row.turn}/${row.agent}`;
    sets.set(key, [...(sets.get(key) ?? []), row]);
  }
  return sets;
}

describe('tree sampling', () => {
  it('has K siblings per (instance, turn, agent): one per branch, one prompt, exactly one chosen, the best', async () => {
    const r = await tree('math', { solver: 0.5, verifier: 0.2 });
    const sets = siblingSets(r);
    expect(sets.size).toBeGreaterThan(B); // more than one level per tree
    for (const rows of sets.values()) {
      expect(rows).toHaveLength(K);
      expect(rows.map((row) => row.traj % K).sort()).toEqual([0, 1, 2, 3]);
      expect(new Set(rows.map((row) => row.prompt)).size).toBe(1);
      expect(new Set(rows.map((row) => row.callIndex)).size).toBe(1);
      const chosen = rows.filter((row) => row.chosen);
      expect(chosen).toHaveLength(1);
      expect(chosen[0].reward).toBe(Math.max(...rows.map((row) => row.reward)));
    }
    // Different candidates were sampled (the siblings are not copies of one answer).
    expect([...sets.values()].some((rows) => new Set(rows.map((row) => row.response)).size > 1)).toBe(true);
  });

  it("continues from the chosen candidate's state: replaying the chosen path gives every level's prompt and the outcome", async () => {
    const task = getTask('math');
    const instances = sampleInstances(TASKS.math, new Prng(1), 'train', B);
    const r = await tree('math', { solver: 0.5, verifier: 0.2 });
    instances.forEach((instance, g) => {
      const path = r.rows
        .filter((row) => row.group === g && row.chosen)
        .sort((a, b) => a.callIndex - b.callIndex);
      let state: BaseState = task.init(instance);
      for (const row of path) {
        expect(task.next(state)?.prompt).toBe(row.prompt);
        state = task.step(state, row.agent, row.response).state;
      }
      expect(state.done).toBe(true);
      for (const t of r.trajectories.filter((x) => x.group === g)) {
        expect(t.status).toBe('ok');
        expect(t.success).toBe(state.outcome!.success);
        expect(t.reward).toBe(state.outcome!.reward);
      }
    });
  });

  it('breaks ties by the seed: reproducible, and not always the first branch', async () => {
    // Error rate 0: every candidate is the same right answer, so every level is a K-way tie.
    const a = await tree('math', 0, 3);
    const b = await tree('math', 0, 3);
    const chosenOf = (r: RolloutResult) => r.rows.filter((row) => row.chosen).map((row) => row.traj % K);
    expect(chosenOf(a)).toEqual(chosenOf(b));
    expect(new Set(chosenOf(a)).size).toBeGreaterThan(1);
    const rng = () => new Prng(7);
    expect(argmaxSeeded([0.5, 1, 0.2, 1], rng())).toBe(argmaxSeeded([0.5, 1, 0.2, 1], rng()));
    expect([1, 3]).toContain(argmaxSeeded([0.5, 1, 0.2, 1], rng()));
    expect(argmaxSeeded([0.5, 1, 0.2, -1], rng())).toBe(1);
  });

  it('makes AT-GRPO sets of K, singleton fraction 0; parallel sampling of the same batch leaves singletons', async () => {
    const rates = { solver: 0.5, verifier: 0.2 };
    const n = 16; // enough groups that some has exactly one retried trajectory under parallel sampling
    const t = await tree('math', rates, 1, demonstratorPolicy('math', rates), n);
    const p = await parallel(rates, n);
    const stats = (r: RolloutResult) => computeAdvantages(r.rows, { estimator: 'atgrpo' }).stats;
    expect(stats(t).singletonFrac).toBe(0);
    expect(stats(p).singletonFrac).toBeGreaterThan(0);
  });

  it('tree-random keeps exact sibling sets but copies a seeded uniform draw forward, often not the best', async () => {
    const rates = { solver: 0.5, verifier: 0.2 };
    const n = 16;
    const r = await tree('math', rates, 1, demonstratorPolicy('math', rates), n, {
      keep: 'random',
      score: 'turn',
    });
    const again = await tree('math', rates, 1, demonstratorPolicy('math', rates), n, {
      keep: 'random',
      score: 'turn',
    });
    expect(r.rows.map((row) => [row.traj, row.callIndex, row.response, row.chosen])).toEqual(
      again.rows.map((row) => [row.traj, row.callIndex, row.response, row.chosen]),
    );
    const sets = [...siblingSets(r).values()];
    let belowBest = 0;
    for (const rows of sets) {
      expect(rows).toHaveLength(K);
      expect(new Set(rows.map((row) => row.prompt)).size).toBe(1);
      const chosen = rows.filter((row) => row.chosen);
      expect(chosen).toHaveLength(1);
      if (chosen[0].reward < Math.max(...rows.map((row) => row.reward))) belowBest++;
    }
    // The draw ignores the scores: some levels go on from a sibling that scored below the best.
    expect(belowBest).toBeGreaterThan(0);
    expect(computeAdvantages(r.rows, { estimator: 'atgrpo' }).stats.singletonFrac).toBe(0);
    // The path still continues from the chosen state: every tree ends, and its branches share its outcome.
    for (let g = 0; g < n; g++)
      expect(new Set(r.trajectories.filter((t) => t.group === g).map((t) => t.reward)).size).toBe(1);
    // Through the registry, as a run reaches it.
    const viaRegistry = await SAMPLINGS['tree-random'].rollout({
      task: 'math',
      instances: sampleInstances(TASKS.math, new Prng(1), 'train', n),
      groupSize: K,
      policies: allAgents('math', demonstratorPolicy('math', rates)),
      seed: 1,
    });
    expect(viaRegistry.rows.map((row) => row.chosen)).toEqual(r.rows.map((row) => row.chosen));
  });

  it("tree-outcome scores plan's candidates by a greedy completion's outcome, not its turn reward", async () => {
    const task = getTask('plan');
    expect(task.turnReward).toBeDefined();
    // Sampled candidates err at 0.5; the greedy completions are the error-free demonstrator, so a
    // candidate's completion can be replayed here exactly.
    const noisy = demonstratorPolicy('plan', 0.5);
    const exact = demonstratorPolicy('plan', 0);
    const policy: Policy = (calls, options) => (options.temperature === 0 ? exact : noisy)(calls, options);
    const turn = await tree('plan', 0.5, 2, policy);
    const outcome = await tree('plan', 0.5, 2, policy, B, { keep: 'best', score: 'outcome' });
    expect(turn.completionCalls).toBe(0);
    expect(outcome.completionCalls).toBeGreaterThan(0);
    const instances = sampleInstances(TASKS.plan, new Prng(2), 'train', B);
    const first = (r: RolloutResult) => r.rows.filter((row) => row.callIndex === 0);
    // The first level samples the same candidates either way; only their scores differ.
    expect(first(outcome).map((row) => row.response)).toEqual(first(turn).map((row) => row.response));
    let differs = 0;
    first(outcome).forEach((row, i) => {
      let state: BaseState = task.init(instances[row.group]);
      state = task.step(state, row.agent, row.response).state;
      while (!state.done) {
        const call = task.next(state)!;
        state = task.step(state, call.agent, task.demonstrate(state, call.agent, new Prng(0), 0)).state;
      }
      const expected =
        (agentRewardsOf(task, state.outcome)[row.agent] ?? 0) - (row.valid ? 0 : task.invalidPenalty);
      expect(row.reward).toBeCloseTo(expected, 12);
      if (Math.abs(row.reward - first(turn)[i].reward) > 1e-9) differs++;
    });
    expect(differs).toBeGreaterThan(0);
    for (const rows of siblingSets(outcome).values())
      expect(rows.filter((row) => row.chosen)).toHaveLength(1);
  });

  it('samples the first level exactly as parallel sampling samples the first calls', async () => {
    const rates = { solver: 0.5, verifier: 0.2 };
    const t = await tree('math', rates);
    const p = await parallel(rates);
    const first = (r: RolloutResult) =>
      r.rows.filter((row) => row.callIndex === 0).map((row) => [row.traj, row.response]);
    expect(first(t)).toEqual(first(p));
  });

  it('without turnReward, scores each candidate by a greedy completion (temperature 0, calls counted)', async () => {
    expect(getTask('math').turnReward).toBeUndefined();
    // A perfect verifier: a right first answer is approved (outcome 1); every wrong one is rejected
    // and retried by the solver with the same seeds in all K completions (common random numbers).
    const { policy, batches } = recording(demonstratorPolicy('math', { solver: 0.5, verifier: 0 }));
    const r = await tree('math', 0, 1, policy);
    const greedy = batches.filter((b) => b.options.temperature === 0);
    expect(greedy.length).toBeGreaterThan(0);
    expect(r.completionCalls).toBe(greedy.reduce((n, b) => n + b.calls.length, 0));
    expect(batches.filter((b) => b.options.temperature !== 0).reduce((n, b) => n + b.calls.length, 0)).toBe(
      r.rows.length,
    );

    const instances = sampleInstances(TASKS.math, new Prng(1), 'train', B);
    const truth = (g: number) => {
      const { a, b, op } = instances[g] as { a: number; b: number; op: '+' | '-' };
      return String(op === '+' ? a + b : a - b);
    };
    let right = 0;
    let wrong = 0;
    for (const rows of siblingSets(r).values()) {
      if (rows[0].agent !== 'solver' || rows[0].turn !== 0) continue;
      const valid = rows.filter((row) => row.valid);
      for (const row of rows) {
        if (row.response === truth(row.group)) {
          expect(row.reward).toBe(1);
          right++;
        } else wrong++;
      }
      // Wrong valid answers all lead to the same retry: one score among them.
      const wrongScores = new Set(
        valid.filter((row) => row.response !== truth(row.group)).map((row) => row.reward),
      );
      expect(wrongScores.size).toBeLessThanOrEqual(1);
      // An invalid answer is rejected and retried the same way, then loses the invalid penalty.
      const [x] = wrongScores;
      if (x !== undefined)
        for (const row of rows.filter((y) => !y.valid)) expect(row.reward).toBeCloseTo(x - 0.1, 12);
    }
    expect(right).toBeGreaterThan(0);
    expect(wrong).toBeGreaterThan(0);
  });

  it("with turnReward (plan), each sibling's reward is the agent's turn reward from the shared state; no completions", async () => {
    const task = getTask('plan');
    const instances = sampleInstances(TASKS.plan, new Prng(1), 'train', B);
    const r = await tree('plan', 0.5);
    expect(r.completionCalls).toBe(0);
    let checked = 0;
    instances.forEach((instance, g) => {
      let state: BaseState = task.init(instance);
      const levels = [...new Set(r.rows.filter((row) => row.group === g).map((row) => row.callIndex))].sort(
        (a, b) => a - b,
      );
      for (const step of levels) {
        const siblings = r.rows.filter((row) => row.group === g && row.callIndex === step);
        expect(siblings).toHaveLength(K);
        for (const row of siblings) {
          const after = task.step(state, row.agent, row.response).state;
          expect(row.reward).toBe(task.turnReward!(state, row.agent, after));
          checked++;
        }
        const chosen = siblings.find((row) => row.chosen)!;
        state = task.step(state, chosen.agent, chosen.response).state;
      }
      expect(state.done).toBe(true);
    });
    expect(new Set(r.rows.map((row) => row.reward)).size).toBeGreaterThan(2);
    expect(checked).toBe(r.rows.length);
  });
});

describe('rollout.sampling in the config', () => {
  it('refuses per-agent credit under tree sampling, naming the field that asks for it', () => {
    const errors = (input: unknown) => {
      const r = validateExperiment(input);
      return r.ok ? [] : r.errors.map((e) => e.path);
    };
    expect(errors({ task: 'plan', rollout: { sampling: 'tree' } })).toEqual([]);
    expect(errors({ rollout: { sampling: 'tree' }, reward: { credit: 'counterfactual' } })).toEqual([
      'reward.credit',
    ]);
    expect(errors({ rollout: { sampling: 'tree-random' }, reward: { credit: 'counterfactual' } })).toEqual([
      'reward.credit',
    ]);
    const runs = [
      { label: 'a', estimator: 'atgrpo' },
      { label: 'b', estimator: 'atgrpo', reward: { credit: 'shapley' } },
    ];
    expect(errors({ rollout: { sampling: 'tree' }, runs })).toEqual(['runs.1.reward.credit']);
    expect(errors({ rollout: { sampling: 'parallel' }, runs })).toEqual([]);
    // Every run overrides the experiment's credit back to shared: nothing is replayed.
    expect(
      errors({
        rollout: { sampling: 'tree' },
        reward: { credit: 'shapley' },
        runs: [{ label: 'a', estimator: 'atgrpo', reward: { credit: 'shared' } }],
      }),
    ).toEqual([]);
  });
});
