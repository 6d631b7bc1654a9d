import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import { roleToken } from '../../src/core/vocab';
import {
  distancesTo,
  PLAN_MAX_DIST,
  PLAN_MIN_DIST,
  PLAN_MOVES,
  PLAN_TURNS,
  planTask,
  renderView,
  shortestMoves,
  type PlanInstance,
  type PlanState,
} from '../../src/tasks/plan';
import { sampleInstances } from '../../src/tasks/registry';
import { MAX_CONTEXT } from '../../src/core/vocab';
import { demoRollout } from './helpers';

/**
 * ```
 * s.#.g     walls at (0,2), (1,2), (3,1); start (0,0), goal (0,4): the shortest path goes down
 * ..#..     to row 2, across and back up, 8 moves (BFS, first move in u d l r order at each
 * .....     cell: d d r r r u u r)
 * .#...
 * .....
 * ```
 */
const GRID: PlanInstance = { n: 5, cells: '..#....#........#........', start: 0, goal: 4, shortest: 8 };

/** Plays one turn each of the given (plan, command) pairs; returns the states after each call. */
function play(turns: [string, string][]): PlanState[] {
  const states = [planTask.init(GRID)];
  for (const [plan, command] of turns) {
    states.push(planTask.step(states[states.length - 1], 'planner', plan).state);
    states.push(planTask.step(states[states.length - 1], 'executor', command).state);
  }
  return states;
}

describe('plan', () => {
  it('draws seeded, solvable 5×5 and 6×6 grids with start and goal PLAN_MIN_DIST–PLAN_MAX_DIST apart', () => {
    const a = sampleInstances(planTask, new Prng(7), 'train', 400) as PlanInstance[];
    expect(sampleInstances(planTask, new Prng(7), 'train', 400)).toEqual(a);
    expect(new Set(a.map((i) => i.n))).toEqual(new Set([5, 6]));
    for (const i of a) {
      expect(i.cells).toMatch(new RegExp(`^[.#]{${i.n * i.n}}$`));
      expect(i.cells[i.start]).toBe('.');
      expect(i.cells[i.goal]).toBe('.');
      expect(distancesTo(i, i.goal)[i.start]).toBe(i.shortest);
      expect(i.shortest).toBeGreaterThanOrEqual(PLAN_MIN_DIST);
      expect(i.shortest).toBeLessThanOrEqual(PLAN_MAX_DIST);
      expect(shortestMoves(i, i.start)).toHaveLength(i.shortest);
    }
    const blocked = a.reduce((s, i) => s + [...i.cells].filter((c) => c === '#').length, 0);
    const cells = a.reduce((s, i) => s + i.n * i.n, 0);
    expect(blocked / cells).toBeGreaterThan(0.15); // about the reference's 22 % walls
    expect(blocked / cells).toBeLessThan(0.25);
  });

  it('finds the hand-computed shortest path and shows coordinates and the grid one character per cell', () => {
    expect(shortestMoves(GRID, GRID.start)).toBe('ddrrruur');
    expect(renderView(GRID, 11)).toBe('s21 g04 ..#.g|..#..|.s...|.#...|.....');
  });

  it('scores a shortest walk by hand: 8 × (−0.01 + 0.1) + 1 + 0.5 = 2.22, over three turns', () => {
    const states = play([
      ['ddr', 'ddr'],
      ['rru', 'rru'],
      ['ur', 'ur'],
    ]);
    const end = states[states.length - 1];
    expect(end.done).toBe(true);
    expect(end.outcome!.success).toBe(true);
    expect(end.outcome!.reward).toBeCloseTo(2.22, 12);
    // Per-turn rewards: each executor's moves; each planner's plan as if issued.
    const turn = (k: number) =>
      planTask.turnReward!(states[k], k % 2 === 0 ? 'planner' : 'executor', states[k + 1]);
    expect([0, 1, 2, 3, 4, 5].map(turn).map((r) => +r.toFixed(12))).toEqual([
      0.27, 0.27, 0.27, 0.27, 1.68, 1.68,
    ]);
  });

  it('the demonstrator at error rate 0 walks the hand-built grid by its shortest path and scores exactly 2.22', () => {
    const rng = new Prng(1);
    let state = planTask.init(GRID);
    const said: string[] = [];
    for (let call = planTask.next(state); call; call = planTask.next(state)) {
      said.push(planTask.demonstrate(state, call.agent, rng, 0));
      state = planTask.step(state, call.agent, said[said.length - 1]).state;
    }
    expect(said).toEqual(['ddr', 'ddr', 'rru', 'rru', 'ur', 'ur']);
    expect(state.outcome!.success).toBe(true);
    expect(state.outcome!.reward).toBeCloseTo(2.22, 12);
  });

  it('charges −0.1 per invalid move (off the grid, into a wall), keeps the walker and loses the shortest-path bonus', () => {
    // u: off the grid; r: to (0,1), one step closer (BFS 8 → 7); r: into the wall at (0,2).
    const [, planned, walked] = play([['urr', 'urr']]);
    expect(walked.pos).toBe(1);
    expect(walked.moves).toBe(3);
    expect(walked.earned).toBeCloseTo(-0.1 + (-0.01 + 0.1) - 0.1, 12);
    expect(planTask.turnReward!(planned, 'executor', walked)).toBeCloseTo(-0.11, 12);
    // Then the rest of a shortest path from (0,1): reached, 10 moves for a distance of 8, no bonus.
    const rest = shortestMoves(GRID, 1);
    expect(rest).toBe('ddrruur');
    const states = play([
      ['urr', 'urr'],
      [rest.slice(0, 3), rest.slice(0, 3)],
      [rest.slice(3, 6), rest.slice(3, 6)],
      [rest.slice(6), rest.slice(6)],
    ]);
    const end = states[states.length - 1].outcome!;
    expect(end.success).toBe(true);
    expect(end.reward).toBeCloseTo(-0.11 + 7 * 0.09 + 1, 12);
  });

  it('fails with −1 after PLAN_TURNS turns; a malformed output issues nothing and costs its row 0.1', () => {
    const states = play(Array.from({ length: PLAN_TURNS }, (): [string, string] => ['u', 'u']));
    const end = states[states.length - 1];
    expect(end.done).toBe(true);
    expect(end.outcome).toEqual({ success: false, reward: expect.closeTo(PLAN_TURNS * -0.1 - 1, 12) });
    expect(end.log).toHaveLength(2 * PLAN_TURNS);

    const [start, planned, walked] = play([['ddrr', 'u d']]);
    expect(planned.log.at(-1)!.valid).toBe(false);
    expect(walked.log.at(-1)!.valid).toBe(false);
    expect(walked.pos).toBe(0);
    expect(walked.earned).toBe(0);
    expect(planTask.turnReward!(start, 'planner', planned)).toBeCloseTo(-0.1, 12);
    expect(planTask.turnReward!(planned, 'executor', walked)).toBeCloseTo(-0.1, 12);
  });

  it('the demonstrator at error rate 0 reaches every goal by a shortest path, scoring 1.5 + 0.09 · d', async () => {
    const { trajectories, rows } = await demoRollout('plan', 0, 100, 2, 3);
    const instances = sampleInstances(planTask, new Prng(3), 'train', 100) as PlanInstance[];
    for (const t of trajectories) {
      const d = instances[t.group].shortest;
      expect(t.success).toBe(true);
      expect(t.reward).toBeCloseTo(1.5 + 0.09 * d, 12);
      expect(t.calls).toEqual({ planner: Math.ceil(d / PLAN_MOVES), executor: Math.ceil(d / PLAN_MOVES) });
    }
    expect(rows.every((r) => r.valid)).toBe(true);
  });

  it('sums the executor turn rewards to the trajectory reward whatever the demonstrator gets wrong', () => {
    const rng = new Prng(5);
    for (const instance of sampleInstances(planTask, new Prng(4), 'train', 200)) {
      let state = planTask.init(instance as PlanInstance);
      let sum = 0;
      for (let call = planTask.next(state); call; call = planTask.next(state)) {
        const after = planTask.step(
          state,
          call.agent,
          planTask.demonstrate(state, call.agent, rng, 0.4),
        ).state;
        const penalty = after.log.at(-1)!.valid ? 0 : planTask.invalidPenalty;
        if (call.agent === 'executor') sum += planTask.turnReward!(state, 'executor', after) + penalty;
        state = after;
      }
      expect(sum).toBeCloseTo(state.outcome!.reward, 12);
    }
  });

  it('fits the largest grid, a 6×6, with the longest plan into MAX_CONTEXT', () => {
    const big: PlanInstance = { n: 6, cells: '.'.repeat(36), start: 0, goal: 35, shortest: 10 };
    const planned = planTask.step(planTask.init(big), 'planner', 'rrr').state;
    const call = planTask.next(planned)!;
    expect(call.prompt).toBe(
      `s00 g55 s.....|......|......|......|......|.....g rrr!${roleToken('executor')}`,
    );
    // BOS + prompt + response + EOS.
    expect(1 + call.prompt.length + PLAN_MOVES + 1).toBeLessThanOrEqual(MAX_CONTEXT);
  });
});
