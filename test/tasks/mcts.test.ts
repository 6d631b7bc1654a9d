// MARS2's tree search (src/tasks/mcts.ts; docs/tree-sampling.md#mcts-sampling-mars2): seeded trees whose
// nodes each have one generating agent, refinements that carry their parent's answer and feedback,
// and Thompson sampling whose choices follow its posteriors on hand-computed cases.
import { describe, expect, it } from 'vitest';
import { validateExperiment } from '../../src/core/config-validate';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { agentKey, MCTS_KEYS } from '../../src/core/metrics';
import { Prng } from '../../src/core/prng';
import type { Role } from '../../src/core/vocab';
import { armPosterior, mctsRollout, selectExpansion, type MctsTree } from '../../src/tasks/mcts';
import { NODE_SPECS, refinePrompt, rootPrompt } from '../../src/tasks/mcts-nodes';
import type { Policy } from '../../src/tasks/orchestrator';
import { getTask, sampleInstances } from '../../src/tasks/registry';
import { drawBeta, posterior, thompsonPick } from '../../src/tasks/thompson';
import { MAX_CONTEXT } from '../../src/core/vocab';

/** Every arm answers as the task's answer role's demonstrator, each agent with its own error rate. */
function answerer(task: 'coder-tester' | 'math', errorRate: Partial<Record<Role, number>>): Policy {
  const t = getTask(task);
  const role = NODE_SPECS[task].answerRole;
  return async (calls) =>
    calls.map((c) => ({ text: t.demonstrate(c.state, role, new Prng(c.seed), errorRate[c.agent] ?? 0) }));
}

async function search(task: 'coder-tester' | 'math', seed: number, nodes = 8, B = 6, arms?: string[]) {
  const t = getTask(task);
  const instances = sampleInstances(t, new Prng(seed), 'train', B);
  const policy = answerer(task, { [t.agents[0].role]: 0.9, [t.agents[1].role]: 0.3 });
  const policies = Object.fromEntries(t.agents.map((a) => [a.role, policy]));
  return {
    instances,
    result: await mctsRollout({ task, instances, groupSize: 2, policies, seed, nodes, arms }),
  };
}

describe('Thompson sampling on Beta posteriors', () => {
  it('updates Beta(1, 1) with fractional scores', () => {
    expect(posterior([1, 0.5, 0.25])).toEqual({ a: 2.75, b: 2.25 });
    expect(posterior([])).toEqual({ a: 1, b: 1 });
  });

  it('draws Beta with the right mean and picks arms with their hand-computed probabilities', () => {
    const rng = new Prng(7);
    const n = 20_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += drawBeta(rng, { a: 2.75, b: 2.25 });
    expect(sum / n).toBeCloseTo(0.55, 2);
    // P(Beta(2,1) > U(0,1)) = ∫ 2x·x dx = 2/3.
    let first = 0;
    for (let i = 0; i < n; i++) if (thompsonPick(rng, [posterior([1]), posterior([])]) === 0) first++;
    expect(Math.abs(first / n - 2 / 3)).toBeLessThan(0.012);
    // P(Beta(4,1) > Beta(1,4)) = 1 − 4·B(5,4) = 1 − 4/280 = 0.985714…
    first = 0;
    for (let i = 0; i < n; i++)
      if (thompsonPick(rng, [posterior([1, 1, 1]), posterior([0, 0, 0])]) === 0) first++;
    expect(Math.abs(first / n - (1 - 4 / 280))).toBeLessThan(0.004);
  });

  it('follows the posterior through the tree: widen, or descend into a child and widen there', () => {
    // One fresh answer by the coder, score 1. At the root: coder's arm Beta(2,1), tester's Beta(1,1),
    // deeper into node 0 Beta(2,1). P(tester) = P(U > max of two Beta(2,1)) = ∫ y⁴ dy = 1/5, the two
    // Beta(2,1) arms 2/5 each. Under node 0 (no children) coder 2/3, tester 1/3 of that 2/5.
    const tree = {
      instance: null,
      roots: [0],
      nodes: [
        {
          agent: 'coder',
          parent: -1,
          prompt: '',
          output: { text: '' },
          valid: true,
          score: 1,
          feedback: '',
          children: [],
        },
      ],
    } as MctsTree;
    const rng = new Prng(11);
    const n = 30_000;
    const counts: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const { parent, agent } = selectExpansion(tree, ['tester', 'coder'], rng);
      counts[`${parent}/${agent}`] = (counts[`${parent}/${agent}`] ?? 0) + 1;
    }
    const expected = { '-1/coder': 0.4, '-1/tester': 0.2, '0/coder': 0.4 * (2 / 3), '0/tester': 0.4 / 3 };
    for (const [k, p] of Object.entries(expected)) expect(Math.abs(counts[k] / n - p), k).toBeLessThan(0.01);
  });
});

describe('mcts trees', () => {
  for (const task of ['coder-tester', 'math'] as const) {
    it(`${task}: every node has one generating agent, and refinements carry their parent's answer and feedback`, async () => {
      const spec = NODE_SPECS[task];
      const { instances, result } = await search(task, 3);
      const N = 8;
      expect(result.rows.length).toBe(instances.length * N);
      expect(result.trajectories.length).toBe(instances.length * N);
      let refinements = 0;
      instances.forEach((instance, g) => {
        const nodes = result.rows.filter((r) => r.group === g);
        expect(nodes.map((r) => r.node)).toEqual([...Array(N).keys()]);
        for (const r of nodes) {
          expect(getTask(task).agents.map((a) => a.role)).toContain(r.agent);
          expect(r.reward).toBe(spec.judge(instance, r.response).score);
          expect(r.parent!).toBeLessThan(r.node!); // a parent is generated before its children
          if (r.parent! < 0) {
            expect(r.prompt).toBe(rootPrompt(spec, instance));
            continue;
          }
          refinements++;
          const parent = nodes[r.parent!];
          const { feedback } = spec.judge(instance, parent.response);
          expect(r.prompt).toBe(refinePrompt(spec, instance, parent.response, feedback));
          expect(r.prompt).toContain(`${spec.before}${parent.response} ${feedback}`);
        }
      });
      expect(refinements).toBeGreaterThan(0);
      // The metrics: nodes per tree, each agent's share summing to it.
      const m = result.metrics!;
      const agents = getTask(task).agents.map((a) => a.role);
      expect(m[MCTS_KEYS.treeNodes]).toBe(N);
      // The best node and the solved share, per tree from its rows, then the mean over trees.
      const best = instances.map((_, g) =>
        Math.max(...result.rows.filter((r) => r.group === g).map((r) => r.reward)),
      );
      expect(m[MCTS_KEYS.treeBest]).toBeCloseTo(best.reduce((s, b) => s + b, 0) / best.length, 12);
      expect(m[MCTS_KEYS.treeSolved]).toBe(best.filter((b) => b === 1).length / best.length);
      expect(m[MCTS_KEYS.treeSolved]).toBeGreaterThan(0);
      expect(agents.reduce((s, a) => s + m[agentKey(a, 'nodes')], 0)).toBe(N);
      // The better arm (error 0.3, the second agent) generates more nodes than the worse one (0.9).
      expect(m[agentKey(agents[1], 'nodes')]).toBeGreaterThan(m[agentKey(agents[0], 'nodes')]);
      expect(m[agentKey(agents[1], 'arm_mean')]).toBeGreaterThan(m[agentKey(agents[0], 'arm_mean')]);
    });
  }

  it('is reproducible from its seed, and a different seed grows different trees', async () => {
    const a = await search('coder-tester', 5);
    const b = await search('coder-tester', 5);
    const c = await search('coder-tester', 6);
    const shape = (r: typeof a.result) => r.rows.map((x) => `${x.agent}:${x.parent}:${x.response}`);
    expect(shape(b.result)).toEqual(shape(a.result));
    expect(shape(c.result)).not.toEqual(shape(a.result));
  });

  it('rollout.arms: one arm alone generates every node at the same budget; no arm, no nodes and no posterior', async () => {
    const { result } = await search('coder-tester', 4, 8, 3, ['tester']);
    expect(result.rows.length).toBe(3 * 8);
    expect(new Set(result.rows.map((r) => r.agent))).toEqual(new Set(['tester']));
    const m = result.metrics!;
    expect(m[agentKey('tester', 'nodes')]).toBe(8);
    expect(m[agentKey('coder', 'nodes')]).toBe(0);
    expect(m[agentKey('coder', 'arm_mean')]).toBeNaN();
    expect(m[agentKey('tester', 'arm_mean')]).toBeGreaterThan(0);
    // A lone arm still searches: it widens or refines, so some nodes refine a parent.
    expect(result.rows.some((r) => r.parent! >= 0)).toBe(true);
    await expect(search('coder-tester', 4, 8, 3, ['judge'])).rejects.toThrow(
      'rollout.arms: task coder-tester has no agent "judge" (agents: tester, coder)',
    );
  });

  it("the arm posterior mean is (1 + Σ scores)/(2 + nodes) over the agent's nodes", async () => {
    const { result } = await search('math', 9, 8, 1);
    const tree = {
      instance: null,
      roots: [],
      nodes: result.rows.map((r) => ({ agent: r.agent, score: r.reward, children: [] })),
    } as unknown as MctsTree;
    for (const agent of ['solver', 'verifier'] as const) {
      const mine = result.rows.filter((r) => r.agent === agent).map((r) => r.reward);
      const expected = (1 + mine.reduce((s, v) => s + v, 0)) / (2 + mine.length);
      expect(result.metrics![agentKey(agent, 'arm_mean')]).toBeCloseTo(expected, 12);
      const p = armPosterior(tree, agent);
      expect(p.a / (p.a + p.b)).toBeCloseTo(expected, 12);
    }
  });
});

describe('node prompts and feedback', () => {
  const ct = NODE_SPECS['coder-tester'];
  const instance = {
    program: 'map+1',
    example: { input: [0, 3, 1, 2], output: [1, 4, 2, 3] },
    hidden: [
      { input: [1, 1, 1, 1], output: [2, 2, 2, 2] },
      { input: [4, 0, 0, 0], output: [5, 1, 1, 1] },
      { input: [2, 2, 0, 0], output: [3, 3, 1, 1] },
      { input: [3, 3, 3, 3], output: [4, 4, 4, 4] },
    ],
  };

  it('coder-tester: tests passed, then the first failing test and what the program gave', () => {
    expect(ct.judge(instance, 'map+1')).toEqual({ score: 1, feedback: '4/4' });
    // map+2 fails every test; the first is 1111>2222 and it gives 3333.
    expect(ct.judge(instance, 'map+2')).toEqual({ score: 0, feedback: '0/4 1111>2222=3333' });
    expect(ct.judge(instance, 'map')).toEqual({ score: 0, feedback: '0/4 1111>2222!' });
    expect(refinePrompt(ct, instance, 'map+2', '0/4 1111>2222=3333')).toBe(
      '0312>1423 map+2 0/4 1111>2222=3333 ' + rootPrompt(ct, instance).slice(-1),
    );
  });

  it('coder-tester: a test passes only on the same list, not the same digit string ([12] is not [1, 2])', () => {
    // map*3 gives 4000 -> [12, 0, 0, 0]; written as digits that is '12000', as [1, 2, 0, 0, 0] is.
    const twelve = {
      ...instance,
      hidden: [{ input: [4, 0, 0, 0], output: [1, 2, 0, 0, 0] }, instance.hidden[0]],
    };
    expect(ct.judge(twelve, 'map*3')).toEqual({ score: 0, feedback: '0/2 4000>12000=12000' });
    expect(ct.judge(twelve, 'map+1')).toEqual({ score: 0.5, feedback: '1/2 4000>12000=5111' });
  });

  it('math: the verdict yes or no where the loop writes its verifier’s', () => {
    const spec = NODE_SPECS.math;
    const q = { a: 37, b: 48, op: '+' as const };
    expect(spec.judge(q, '85')).toEqual({ score: 1, feedback: 'yes' });
    expect(spec.judge(q, '84')).toEqual({ score: 0, feedback: 'no' });
    // The math workflow's second-attempt prompt, as the solver's base model has seen it.
    const loop = getTask('math');
    const s1 = loop.step(loop.init(q), 'solver', '84').state;
    const s2 = loop.step(s1, 'verifier', 'no').state;
    expect(refinePrompt(spec, q, '84', 'no')).toBe(loop.next(s2)!.prompt);
  });

  it('is shortened to fit the context: the feedback first, then the answer; problem and suffix stay', () => {
    const head = '0312>1423';
    const suffix = rootPrompt(ct, instance).slice(head.length);
    const room = MAX_CONTEXT - 2 - ct.maxResponse - head.length - suffix.length;
    const long = 'x'.repeat(200);
    const fits = refinePrompt(ct, instance, 'map+2', long);
    expect(fits.length).toBe(head.length + room + suffix.length);
    expect(fits).toBe(head + ' map+2 ' + long.slice(0, room - 7) + suffix);
    // A parent answer too long on its own: the feedback goes whole, the answer is cut.
    const both = refinePrompt(ct, instance, 'y'.repeat(200), long);
    expect(both).toBe(head + ' ' + 'y'.repeat(room - 1) + suffix);
    // Within the context: BOS + prompt + the longest answer + EOS.
    expect(1 + both.length + ct.maxResponse + 1).toBe(MAX_CONTEXT);
  });
});

describe('config', () => {
  it('takes rollout.sampling=mcts and rollout.nodes on coder-tester and math, and refuses it elsewhere', () => {
    const ok = validateExperiment({ task: 'math', rollout: { sampling: 'mcts', nodes: 4 } });
    expect(ok.ok && ok.config.rollout.nodes).toBe(4);
    const r = validateExperiment({ task: 'plan', rollout: { sampling: 'mcts' } });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toMatchObject({
        path: 'rollout.sampling',
        message: expect.stringMatching(/coder-tester, math/),
      });
    const run = validateExperiment({
      task: 'search',
      runs: [{ label: 'a', estimator: 'mars2', rollout: { sampling: 'mcts' } }],
    });
    expect(!run.ok && run.errors[0].path).toBe('runs.0.rollout.sampling');
    expect(validateExperiment({ task: 'math', rollout: { nodes: 1 } }).ok).toBe(false);
    // In a link: read, and written back as the same two keys.
    const link = 'v=1&task=math&rollout.sampling=mcts&rollout.nodes=4&runs.0.estimator=mars2';
    const read = decodeExperiment(link);
    expect(read).toMatchObject({ ok: true, config: { rollout: { sampling: 'mcts', nodes: 4 } } });
    if (read.ok) expect(encodeExperiment(read.config)).toContain('rollout.sampling=mcts&rollout.nodes=4');
  });

  it('takes rollout.arms with mcts, per run too, round-trips it in a link, and refuses it off mcts', () => {
    const link =
      'v=1&task=coder-tester&rollout.sampling=mcts&runs.0.label=team&runs.0.estimator=mars2' +
      '&runs.1.label=coder alone&runs.1.estimator=mars2&runs.1.rollout.arms=coder';
    const read = decodeExperiment(link);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.config.runs[1].rollout.arms).toBe('coder');
    expect(read.config.runs[0].rollout.arms).toBeUndefined();
    const again = decodeExperiment(encodeExperiment(read.config));
    expect(again.ok && again.config).toEqual(read.config);
    const off = validateExperiment({ task: 'coder-tester', rollout: { arms: 'coder' } });
    expect(!off.ok && off.errors).toEqual([
      { path: 'rollout.arms', message: 'only rollout.sampling=mcts has arms' },
    ]);
    const offRun = validateExperiment({
      task: 'coder-tester',
      runs: [{ label: 'a', estimator: 'grpo', rollout: { arms: 'coder' } }],
    });
    expect(!offRun.ok && offRun.errors.map((e) => e.path)).toEqual(['runs.0.rollout.arms']);
    expect(validateExperiment({ task: 'math', rollout: { sampling: 'mcts', arms: 'Solver!' } }).ok).toBe(
      false,
    );
  });
});
