import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import { computeAdvantages } from '../../src/rl/advantage';
import { inspectBatch } from '../../src/workers/inspect';
import { demonstratorPolicy } from '../../src/tasks/demo';
import type { Policy } from '../../src/tasks/orchestrator';
import { sampleInstances, TASKS } from '../../src/tasks/registry';
import { SAMPLINGS } from '../../src/tasks/sampling';
import type { SamplingName } from '../../src/core/config-names';
import { allAgents } from '../tasks/helpers';

const K = 4;

/** A real plan batch (demonstrators with mistakes, a made-up log-prob per character) and its AT-GRPO advantages. */
async function batch(sampling: SamplingName) {
  const demo = demonstratorPolicy('plan', 0.5);
  const policy: Policy<{ oldLogp: number[] }> = async (calls, o) =>
    (await demo(calls, o)).map((out) => ({ ...out, oldLogp: [...out.text].map(() => -0.5) }));
  const r = await SAMPLINGS[sampling].rollout({
    task: 'plan',
    instances: sampleInstances(TASKS.plan, new Prng(4), 'train', 3),
    groupSize: K,
    policies: allAgents('plan', policy as Policy) as Record<string, Policy<{ oldLogp: number[] }>>,
    seed: 4,
  });
  return { ...r, advantages: computeAdvantages(r.rows, { estimator: 'atgrpo' }).advantages };
}

describe('rollout inspector data', () => {
  it('parallel: one entry per trajectory of the first groups, its rows as turns', async () => {
    const b = await batch('parallel');
    const shown = inspectBatch(b);
    expect(shown.map((t) => t.traj)).toEqual([...Array(2 * K).keys()]);
    for (const t of shown) {
      expect(t.tree).toBeUndefined();
      const rows = b.rows.flatMap((row, i) =>
        row.traj === t.traj ? [{ response: row.response, advantage: b.advantages[i] }] : [],
      );
      expect(t.turns.map((turn) => ({ response: turn.response, advantage: turn.advantage }))).toEqual(rows);
      expect(t.turns.every((turn) => turn.siblings === undefined)).toBe(true);
    }
  });

  it('tree: one entry per tree, its chosen path, each turn with its K siblings, their rewards and the chosen one', async () => {
    const b = await batch('tree');
    const shown = inspectBatch(b);
    expect(shown.map((t) => [t.group, t.tree])).toEqual([
      [0, true],
      [1, true],
    ]);
    for (const t of shown) {
      const levels = new Set(b.rows.filter((row) => row.group === t.group).map((row) => row.callIndex));
      expect(t.turns).toHaveLength(levels.size);
      t.turns.forEach((turn, step) => {
        const rows = b.rows.flatMap((row, i) =>
          row.group === t.group && row.callIndex === step ? [{ row, i }] : [],
        );
        expect(turn.siblings!.map((s) => [s.branch, s.response, s.reward, s.advantage, s.chosen])).toEqual(
          rows.map(({ row, i }) => [row.traj % K, row.response, row.reward, b.advantages[i], row.chosen]),
        );
        const chosen = turn.siblings!.filter((s) => s.chosen);
        expect(chosen).toHaveLength(1);
        expect(turn.response).toBe(chosen[0].response);
        expect(turn.reward).toBe(chosen[0].reward);
      });
    }
    // Real siblings differ: some level shows different candidates with different rewards.
    expect(
      shown.some((t) => t.turns.some((turn) => new Set(turn.siblings!.map((s) => s.reward)).size > 1)),
    ).toBe(true);
  });
});

describe('rollout inspector data, mcts', () => {
  it('one entry per search tree: every node in generation order with its agent, score, advantage and parent', async () => {
    const N = 6;
    const demo = demonstratorPolicy('math', 0.6);
    // Every arm answers as the solver (the answer role), so both agents' nodes carry answers.
    const policy: Policy<{ oldLogp: number[] }> = async (calls, o) =>
      (
        await demo(
          calls.map((c) => ({ ...c, agent: 'solver' })),
          o,
        )
      ).map((out) => ({ ...out, oldLogp: [...out.text].map(() => -0.5) }));
    const r = await SAMPLINGS.mcts.rollout({
      task: 'math',
      instances: sampleInstances(TASKS.math, new Prng(2), 'train', 3),
      groupSize: 2,
      nodes: N,
      policies: allAgents('math', policy as Policy) as Record<string, Policy<{ oldLogp: number[] }>>,
      seed: 2,
    });
    const advantages = computeAdvantages(r.rows, { estimator: 'mars2' }).advantages;
    const shown = inspectBatch({ ...r, advantages });
    expect(shown.map((t) => [t.group, t.tree])).toEqual([
      [0, true],
      [1, true],
    ]);
    for (const t of shown) {
      const rows = r.rows.flatMap((row, i) => (row.group === t.group ? [{ row, i }] : []));
      expect(t.turns.map((n) => [n.node!.index, n.node!.parent, n.agent, n.reward, n.advantage])).toEqual(
        rows.map(({ row, i }) => [row.node, row.parent, row.agent, row.reward, advantages[i]]),
      );
      expect(t.turns.map((n) => n.node!.index)).toEqual([...Array(N).keys()]);
      // The entry's reward is the tree's best node.
      expect(t.reward).toBe(Math.max(...rows.map(({ row }) => row.reward)));
    }
    // Some node refines another: the drawing has depth.
    expect(shown.some((t) => t.turns.some((n) => n.node!.parent >= 0))).toBe(true);
  });
});
