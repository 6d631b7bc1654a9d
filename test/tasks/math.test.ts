import { describe, expect, it } from 'vitest';
import { mathTask, problemText, solution, type MathInstance, type MathState } from '../../src/tasks/math';
import { Prng } from '../../src/core/prng';
import { sampleInstances } from '../../src/tasks/registry';

const inst: MathInstance = { a: 37, b: 48, op: '+' };

function play(responses: string[], instance = inst): MathState {
  let state = mathTask.init(instance);
  for (const r of responses) state = mathTask.step(state, mathTask.next(state)!.agent, r).state;
  return state;
}

describe('math', () => {
  it('generates 2-digit problems with non-negative answers', () => {
    for (const i of sampleInstances(mathTask, new Prng(1), 'train', 500) as MathInstance[]) {
      expect(i.a).toBeGreaterThanOrEqual(10);
      expect(i.a).toBeLessThanOrEqual(99);
      expect(solution(i)).toBeGreaterThanOrEqual(0);
      expect(problemText(i)).toMatch(/^\d\d[+-]\d\d$/);
    }
  });

  it('approve ends the episode: [S, V(yes)]', () => {
    const s = play(['85', 'yes']);
    expect(s.outcome).toMatchObject({ success: true, reward: 1 });
    expect(s.log.map((l) => l.agent)).toEqual(['solver', 'verifier']);
  });

  it('reject sends the problem back: [S, V(no), S], and the last answer counts', () => {
    expect(mathTask.next(play(['84', 'no']))?.prompt.startsWith('37+48=84 no=')).toBe(true);
    expect(play(['84', 'no', '85']).outcome).toMatchObject({ success: true, reward: 1 });
    expect(play(['85', 'no', '84']).outcome).toMatchObject({ success: false, reward: 0 });
    expect(play(['84', 'no', '85']).log.map((l) => l.agent)).toEqual(['solver', 'verifier', 'solver']);
  });

  it('counts an invalid verdict as approve', () => {
    const s = play(['85', 'sure']);
    expect(s.outcome).toMatchObject({ success: true, reward: 1 });
    expect(s.log[1].valid).toBe(false);
    expect(play(['84', 'ok']).outcome?.success).toBe(false);
  });

  it('gives a malformed answer reward 0 and shows it sanitized', () => {
    const s = play(['8\uE0035x', 'no']);
    expect(s.log[0].valid).toBe(false);
    expect(s.context).toBe('37+48=85x no');
    expect(play(['85 ', 'yes']).outcome?.success).toBe(false);
  });

  it("says each agent's own part: the solver's last answer right, every verdict right", () => {
    const own = (responses: string[]) => play(responses).outcome?.agentSuccess;
    expect(own(['85', 'yes'])).toEqual({ solver: true, verifier: true });
    expect(own(['84', 'yes'])).toEqual({ solver: false, verifier: false }); // approved a wrong answer
    expect(own(['84', 'no', '85'])).toEqual({ solver: true, verifier: true }); // rejected the wrong one
    expect(own(['84', 'no', '83'])).toEqual({ solver: false, verifier: true }); // right to reject; no second verdict
    expect(own(['85', 'no', '85'])).toEqual({ solver: true, verifier: false }); // rejected a right answer
    expect(own(['85', 'sure'])).toEqual({ solver: true, verifier: true }); // an invalid verdict approves
    expect(mathTask.ownSuccess).toBe(true);
  });

  it('has invalid penalty 0.1 and at most 3 calls', () => {
    expect(mathTask.invalidPenalty).toBe(0.1);
    expect(mathTask.maxCalls).toBe(3);
  });
});
