import { describe, expect, it } from 'vitest';
import { SPECIAL } from '../../src/core/vocab';
import { Bm25 } from '../../src/tasks/bm25';
import { Prng } from '../../src/core/prng';
import { sampleInstances, splitOf } from '../../src/tasks/registry';
import {
  answerable,
  normalizeAnswer,
  SEARCH_MAX_STEPS,
  searchTask,
  type SearchInstance,
  type SearchState,
} from '../../src/tasks/search';
import { searchRolesTask } from '../../src/tasks/search-roles';
import { routeErrors, SEARCH_ROUTING_MAX_STEPS, searchRoutingTask } from '../../src/tasks/search-routing';
import type { Role } from '../../src/core/vocab';
import { demoRollout } from './helpers';

const instances = sampleInstances(searchTask, new Prng(1), 'train', 300) as SearchInstance[];
const oneHop = instances.find((i) => i.hops.length === 1)!;
const twoHop = instances.find((i) => i.hops.length === 2)!;

/** Plays a scripted list of responses through `task`; returns the final state. */
function play(instance: SearchInstance, responses: string[], task = searchTask): SearchState {
  let state = task.init(instance);
  for (const r of responses) {
    const call = task.next(state);
    if (!call) throw new Error(`done before '${r}'`);
    state = task.step(state, call.agent, r).state;
  }
  return state;
}
const agentsOf = (s: SearchState): Role[] => s.log.map((l) => l.agent);

describe('search knowledge base', () => {
  it('builds consistent facts and one- and two-hop questions', () => {
    for (const i of instances) {
      expect(new Set(i.facts).size).toBe(i.facts.length);
      const last = i.facts[i.hops[i.hops.length - 1].fact];
      expect(last.split(' ')[2]).toBe(i.answer);
      for (const h of i.hops) expect(i.facts[h.fact].startsWith(`${h.subject} ${h.relation} `)).toBe(true);
      if (i.hops.length === 2) expect(i.hops[1].subject).toBe(i.facts[i.hops[0].fact].split(' ')[2]);
      expect(i.question.endsWith(` of ${i.hops[0].subject}`)).toBe(true);
    }
    const twoShare = instances.filter((i) => i.hops.length === 2).length / instances.length;
    expect(twoShare).toBeGreaterThan(0.35);
    expect(twoShare).toBeLessThan(0.65);
  });

  it('BM25 ranks each needed fact first for the query `subject relation`', () => {
    for (const i of instances) {
      const bm = new Bm25(i.facts);
      for (const h of i.hops) expect(bm.search(`${h.subject} ${h.relation}`, 2)[0].index).toBe(h.fact);
    }
  });

  it('normalizes answers for exact match', () => {
    expect(normalizeAnswer(' The  Oslo! ')).toBe('oslo');
    expect(normalizeAnswer('a:b')).toBe('b');
  });
});

describe('search task', () => {
  const [h0, h1] = twoHop.hops;

  it('solves a two-hop question: no, search, no, search, yes, answer', () => {
    const s = play(twoHop, [
      'no',
      `q:${h0.subject} ${h0.relation}`,
      'no',
      `q:${h1.subject} ${h1.relation}`,
      'yes',
      `a:${twoHop.answer}`,
    ]);
    expect(agentsOf(s)).toEqual(['verifier', 'search', 'verifier', 'search', 'verifier', 'answer']);
    expect(s.outcome).toEqual({ success: true, reward: 1 });
    expect(s.context.startsWith(twoHop.question + SPECIAL.ENV)).toBe(true);
    expect(s.context.split(SPECIAL.ENV_END)).toHaveLength(3); // two ENV blocks
    expect(s.context).toContain(twoHop.facts[h1.fact]);
  });

  it('routes an invalid verdict to the answer agent', () => {
    const s = play(oneHop, ['maybe']);
    expect(s.phase).toBe('answer');
    expect(s.log[0].valid).toBe(false);
    expect(searchTask.next(s)?.agent).toBe('answer');
  });

  it('ends with reward 0 on "no" at the last step, without calling search', () => {
    const steps: string[] = [];
    for (let t = 0; t < SEARCH_MAX_STEPS - 1; t++) steps.push('no', 'q:sky');
    const s = play(oneHop, [...steps, 'no']);
    expect(s.done).toBe(true);
    expect(s.outcome).toEqual({ success: false, reward: 0 });
    expect(agentsOf(s).filter((a) => a === 'search')).toHaveLength(SEARCH_MAX_STEPS - 1);
  });

  it('treats a malformed answer as an empty action: the step passes, the last one fails', () => {
    const s = play(oneHop, ['yes', 'oslo']);
    expect(s.done).toBe(false);
    expect(s.step).toBe(1);
    expect(s.phase).toBe('route');
    const end = play(oneHop, ['yes', 'x', 'yes', 'x', 'yes', 'x', 'yes', 'x']);
    expect(end.outcome).toEqual({ success: false, reward: 0 });
    expect(end.log).toHaveLength(searchTask.maxCalls);
  });

  it('appends an empty ENV block for a malformed or fruitless query', () => {
    const s = play(oneHop, ['no', 'nia job']);
    expect(s.context).toBe(oneHop.question + SPECIAL.ENV + SPECIAL.ENV_END);
    expect(s.log[1].valid).toBe(false);
    expect(play(oneHop, ['no', 'q:sky moon']).context).toBe(oneHop.question + SPECIAL.ENV + SPECIAL.ENV_END);
  });

  it('scores a wrong answer 0 and knows when the facts are in', () => {
    const s = play(oneHop, ['no', `q:${oneHop.hops[0].subject} ${oneHop.hops[0].relation}`]);
    expect(answerable(s)).toBe(true);
    expect(play(oneHop, ['yes', 'a:zzz']).outcome).toEqual({ success: false, reward: 0 });
  });
});

describe('search call counts', () => {
  it('vary per trajectory: agent-wise and global statistics differ', async () => {
    const { trajectories, rows } = await demoRollout('search', 0.2, 100, 8, 3);
    for (const agent of ['verifier', 'search', 'answer'] as const) {
      expect(new Set(trajectories.map((t) => t.calls[agent])).size).toBeGreaterThanOrEqual(3);
    }
    // Per-agent row means differ from each other and from the per-trajectory mean.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const means = (['verifier', 'search', 'answer'] as const).map((a) =>
      mean(rows.filter((r) => r.agent === a).map((r) => r.reward)),
    );
    const global = mean(trajectories.map((t) => t.reward));
    expect(Math.max(...means) - Math.min(...means)).toBeGreaterThan(0.03);
    expect(Math.max(...means.map((m) => Math.abs(m - global)))).toBeGreaterThan(0.03);
    // Rows of invalid calls carry the −0.01 penalty.
    const bad = rows.find((r) => !r.valid)!;
    const traj = trajectories[bad.traj];
    expect(bad.reward).toBeCloseTo(traj.reward - 0.01, 12);
  });

  it('at error rate 0: one-hop questions take 1 search, two-hop questions 2', async () => {
    const { trajectories } = await demoRollout('search', 0, 40, 2, 4);
    const ins = sampleInstances(searchTask, new Prng(4), 'train', 40) as SearchInstance[];
    for (const t of trajectories) {
      const hops = ins[t.group].hops.length;
      expect(t.calls).toEqual({ verifier: hops + 1, search: hops, answer: 1 });
    }
  });
});

describe('search-roles: AT-GRPO role rewards on the search task', () => {
  /** Plays responses through the variant; returns its outcome. */
  function outcomeOf(instance: SearchInstance, responses: string[]) {
    let state = searchRolesTask.init(instance);
    for (const r of responses)
      state = searchRolesTask.step(state, searchRolesTask.next(state)!.agent, r).state;
    return state.outcome!;
  }
  const hop = oneHop.hops[0];
  const query = `q:${hop.subject} ${hop.relation}`;

  it('answer 2·EM; search (+1 retrieved, −1 malformed, else 0) + EM; verifier EM', () => {
    // search, retrieve, answer right: answer 2, search 1 + 1, verifier 1
    expect(outcomeOf(oneHop, ['no', query, 'yes', `a:${oneHop.answer}`]).agentRewards).toEqual({
      answer: 2,
      search: 2,
      verifier: 1,
    });
    // search, retrieve, answer wrong: answer 0, search 1 + 0, verifier 0
    expect(outcomeOf(oneHop, ['no', query, 'yes', 'a:nobody']).agentRewards).toEqual({
      answer: 0,
      search: 1,
      verifier: 0,
    });
    // a malformed query, then a good one, answer right: the error costs the search agent its +1 and more
    expect(
      outcomeOf(oneHop, ['no', 'garbage', 'no', query, 'yes', `a:${oneHop.answer}`]).agentRewards,
    ).toEqual({
      answer: 2,
      search: -1 + 1,
      verifier: 1,
    });
    // no search at all, answer wrong: 0 everywhere
    expect(outcomeOf(oneHop, ['yes', 'a:nobody']).agentRewards).toEqual({
      answer: 0,
      search: 0,
      verifier: 0,
    });
  });

  it("says each agent's own part: answer right, every needed fact retrieved cleanly, every route right", () => {
    const own = (responses: string[]) => outcomeOf(oneHop, responses).agentSuccess;
    expect(own(['no', query, 'yes', `a:${oneHop.answer}`])).toEqual({
      answer: true,
      search: true,
      verifier: true,
    });
    // Right routing and retrieval, wrong answer: only the answer agent failed its part.
    expect(own(['no', query, 'yes', 'a:nobody'])).toEqual({ answer: false, search: true, verifier: true });
    // A malformed query first: the search agent failed its part, though the fact came in later.
    expect(own(['no', 'garbage', 'no', query, 'yes', `a:${oneHop.answer}`])).toEqual({
      answer: true,
      search: false,
      verifier: true,
    });
    // An eager "yes" before the fact is in: the verifier routed wrong, and nothing was retrieved.
    expect(own(['yes', 'a:nobody'])).toEqual({ answer: false, search: false, verifier: false });
    // A cautious "no" with the fact already in: the verifier routed wrong once.
    expect(own(['no', query, 'no', query, 'yes', `a:${oneHop.answer}`])).toEqual({
      answer: true,
      search: true,
      verifier: false,
    });
    expect(searchRolesTask.ownSuccess).toBe(true);
    expect(searchTask.ownSuccess).toBeUndefined(); // search's one shared reward tells no agent's part
  });

  it('shares search’s instances, split and outcome (success, trajectory reward)', () => {
    for (const i of instances.slice(0, 50))
      expect(splitOf(searchRolesTask, searchRolesTask.key(i))).toBe(splitOf(searchTask, searchTask.key(i)));
    const o = outcomeOf(oneHop, ['no', query, 'yes', `a:${oneHop.answer}`]);
    expect([o.success, o.reward]).toEqual([true, 1]);
  });
});

describe('search-routing: a 3-step cap, so routing errors decide the outcome', () => {
  const [h0, h1] = twoHop.hops;
  const q0 = `q:${h0.subject} ${h0.relation}`;
  const q1 = `q:${h1.subject} ${h1.relation}`;
  const routing = (responses: string[], instance = twoHop) => play(instance, responses, searchRoutingTask);

  it('caps a trajectory at 3 env steps, 2 × 3 calls', () => {
    expect(SEARCH_ROUTING_MAX_STEPS).toBe(3);
    expect(searchRoutingTask.maxCalls).toBe(6);
    expect(searchRoutingTask.invalidPenalty).toBe(0.01);
  });

  it('solves a two-hop question only with no search wasted: no, search, no, search, yes, answer', () => {
    const s = routing(['no', q0, 'no', q1, 'yes', `a:${twoHop.answer}`]);
    expect(s.outcome).toEqual({ success: true, reward: 1 });
    expect(s.log).toHaveLength(searchRoutingTask.maxCalls);
  });

  it('times out a cautious router: "no" at the third step, with every fact in, ends with reward 0', () => {
    const s = routing(['no', q0, 'no', q1, 'no']);
    expect(answerable(s)).toBe(true);
    expect(s.done).toBe(true);
    expect(s.outcome).toEqual({ success: false, reward: 0 });
    expect(agentsOf(s)).toEqual(['verifier', 'search', 'verifier', 'search', 'verifier']);
    // The same "no" under search's cap of 4 only costs a step.
    const roomy = play(twoHop, ['no', q0, 'no', q1, 'no'], searchTask);
    expect([roomy.done, roomy.phase]).toEqual([false, 'search']);
    // A one-hop question leaves one spare step: one extra "no" still succeeds, two time out.
    const [h] = oneHop.hops;
    const q = `q:${h.subject} ${h.relation}`;
    expect(routing(['no', q, 'no', q, 'yes', `a:${oneHop.answer}`], oneHop).outcome?.success).toBe(true);
    expect(routing(['no', q, 'no', q, 'no'], oneHop).outcome).toEqual({ success: false, reward: 0 });
  });

  it('fails an eager router: "yes" after one hop of two sends the answer agent to guess', () => {
    const s = routing(['no', q0, 'yes']);
    expect(answerable(s)).toBe(false);
    expect(searchRoutingTask.next(s)?.agent).toBe('answer');
    // The first hop's value is a city, not the land asked for: the best guess from what was retrieved fails.
    const city = twoHop.facts[h0.fact].split(' ')[2];
    expect(routing(['no', q0, 'yes', `a:${city}`]).outcome).toEqual({ success: false, reward: 0 });
  });

  it('penalizes each invalid row by 0.01 and ends a last-step malformed answer with reward 0', async () => {
    const end = routing(['yes', 'x', 'yes', 'x', 'yes', 'x']);
    expect(end.outcome).toEqual({ success: false, reward: 0 });
    const { trajectories, rows } = await demoRollout('search-routing', 0.3, 40, 4, 5);
    const bad = rows.filter((r) => !r.valid);
    expect(bad.length).toBeGreaterThan(0);
    for (const r of bad) expect(r.reward).toBeCloseTo(trajectories[r.traj].reward - 0.01, 12);
    expect(Math.max(...trajectories.map((t) => t.calls.verifier ?? 0))).toBe(SEARCH_ROUTING_MAX_STEPS);
  });

  it('names the router’s errors of a trajectory: cautious "no", eager "yes", timeout', () => {
    const calls = (responses: string[], instance = twoHop) => {
      const s = routing(responses, instance);
      return s.log.map((l, i) => ({ agent: l.agent, response: responses[i] }));
    };
    expect(
      routeErrors(searchRoutingTask, twoHop, calls(['no', q0, 'no', q1, 'yes', `a:${twoHop.answer}`])),
    ).toEqual({ cautious: 0, eager: 0, timeout: false });
    expect(routeErrors(searchRoutingTask, twoHop, calls(['no', q0, 'no', q1, 'no']))).toEqual({
      cautious: 1,
      eager: 0,
      timeout: true,
    });
    expect(routeErrors(searchRoutingTask, twoHop, calls(['no', q0, 'maybe', 'a:x']))).toEqual({
      cautious: 0,
      eager: 1,
      timeout: false,
    });
    // A search that missed, and the router's "no" after it is right: no error, though it times out.
    expect(routeErrors(searchRoutingTask, twoHop, calls(['no', 'q:sky', 'no', q0, 'no']))).toEqual({
      cautious: 0,
      eager: 0,
      timeout: true,
    });
  });

  it('demonstrates a cautious router: a "no" with every fact in at the error rate, never a "yes" before', async () => {
    const { rows, trajectories } = await demoRollout('search-routing', { verifier: 0.3 }, 60, 4, 7);
    const ins = sampleInstances(searchRoutingTask, new Prng(7), 'train', 60) as SearchInstance[];
    const errs = trajectories.map((t) =>
      routeErrors(
        searchRoutingTask,
        ins[t.group],
        rows.filter((r) => r.traj === t.traj),
      ),
    );
    const cautious = errs.reduce((n, e) => n + e.cautious, 0) / trajectories.length;
    expect(errs.every((e) => e.eager === 0)).toBe(true);
    expect(cautious).toBeGreaterThan(0.15);
    expect(errs.filter((e) => e.timeout).length).toBeGreaterThan(0.1 * trajectories.length);
    expect(rows.filter((r) => r.agent !== 'verifier').every((r) => r.valid)).toBe(true);
  });

  it('shares search’s instances and split', () => {
    for (const i of instances.slice(0, 50))
      expect(splitOf(searchRoutingTask, searchRoutingTask.key(i))).toBe(
        splitOf(searchTask, searchTask.key(i)),
      );
  });
});
