import { describe, expect, it } from 'vitest';
import { compareSeeds } from '../../src/report/findings';
import { summarize, summaryKeys, trainedNothing } from '../../src/report/summary';

/** A run of `skips.length` steps whose step s skipped `skips[s]` of its model updates. */
const run = (skips: number[]) =>
  summarize(
    'GRPO',
    0,
    skips.map((k, step) => ({ step, 'reward/mean': 0, 'agent/a/grad_norm': 1, 'update/skipped': k })),
    ['a'],
    4,
    10,
  );

describe('a run that never trained', () => {
  it('is one whose every model update was skipped', () => {
    expect(run([2, 2, 2]).skippedUpdates).toBe(6);
    expect(trainedNothing(run([2, 2, 2]), 2)).toBe(true);
    expect(trainedNothing(run([2, 1, 2]), 2)).toBe(false); // one update went through
    expect(trainedNothing(run([1, 1]), 1)).toBe(true);
    expect(trainedNothing(run([]), 2)).toBe(false); // no steps: nothing to judge
  });
});

describe("a search's own outcome (mcts)", () => {
  it('averages the best node, the solved share and each arm’s nodes over the tail, and Findings compares them', () => {
    // 12 steps; the last 10 have tree_best 0.5 + s/100, solved 1 on even steps, coder 6 and tester 2 nodes.
    const history = Array.from({ length: 12 }, (_, s): Record<string, number> => ({
      'reward/mean': 0.1,
      'rollout/tree_best': 0.5 + s / 100,
      'rollout/tree_solved': s % 2 === 0 ? 1 : 0,
      'agent/coder/nodes': s < 2 ? 8 : 6,
      'agent/tester/nodes': s < 2 ? 0 : 2,
    }));
    const team = summarize('Team', 0, history, ['coder', 'tester'], 4, 10);
    expect(team.treeBest).toBeCloseTo(0.5 + (2 + 11) / 2 / 100, 12);
    expect(team.treeSolved).toBe(0.5);
    expect([team.agents.coder.nodes, team.agents.tester.nodes]).toEqual([6, 2]);
    // A run that does not search has none of them.
    const plain = summarize('GRPO', 0, [{ 'reward/mean': 0.1 }], ['coder'], 4, 10);
    expect([plain.treeBest, plain.treeSolved, plain.agents.coder.nodes]).toEqual([NaN, NaN, NaN]);
    const alone = summarize(
      'Alone',
      0,
      history.map((m) => ({ ...m, 'rollout/tree_solved': 1 })),
      ['coder', 'tester'],
      4,
      10,
    );
    const c = compareSeeds([team, alone]);
    const names = c.figures.map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining(['trees solved (last 10)', 'best node (last 10)', 'coder nodes (last 10)']),
    );
    const solved = c.figures.find((f) => f.name === 'trees solved (last 10)')!;
    expect(solved.runs.map((r) => r.mean)).toEqual([0.5, 1]);
    // Off mcts, Findings shows no search rows.
    expect(compareSeeds([plain]).figures.map((f) => f.name)).not.toContain('trees solved (last 10)');
  });
});

describe('the keys a summary reads', () => {
  it('are all summaryKeys names: a history cut to them gives the same summary, every figure read', () => {
    const agents = ['a', 'b'];
    const keys = summaryKeys(agents, 4);
    // Every key recorded at every step, beside keys no summary reads.
    const history = Array.from({ length: 12 }, (_, s): Record<string, number> => ({
      ...Object.fromEntries(keys.map((k, i) => [k, ((s + 1) * (i + 2)) % 7])),
      'loss/total': s,
      'agent/a/entropy': 1,
    }));
    const full = summarize('R', 0, history, agents, 4, 10);
    const cut = history.map((m) => Object.fromEntries(keys.map((k) => [k, m[k]])));
    expect(summarize('R', 0, cut, agents, 4, 10)).toEqual(full);
    // Each figure came from a recorded key (a key summarize reads but summaryKeys left out is NaN in the cut).
    const { run: _run, agents: perAgent, ...figures } = full;
    const numbers = [...Object.values(figures), ...Object.values(perAgent).flatMap((x) => Object.values(x))];
    expect(numbers.filter((x) => Number.isNaN(x))).toEqual([]);
    expect(numbers.length).toBeGreaterThan(10);
  });
});
