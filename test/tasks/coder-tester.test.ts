import { describe, expect, it } from 'vitest';
import {
  coderTesterTask,
  consistency,
  formatPair,
  parseTests,
  passShare,
  type CoderTesterInstance,
} from '../../src/tasks/coder-tester';
import { runSource } from '../../src/tasks/listdsl';
import { Prng } from '../../src/core/prng';
import { sampleInstances } from '../../src/tasks/registry';

const instances = sampleInstances(coderTesterTask, new Prng(1), 'train', 300) as CoderTesterInstance[];
const inst: CoderTesterInstance = {
  program: 'map +1',
  example: { input: [0, 1, 2, 3], output: [1, 2, 3, 4] },
  hidden: [
    { input: [0, 0, 0, 0], output: [1, 1, 1, 1] },
    { input: [4, 4, 4, 4], output: [5, 5, 5, 5] },
    { input: [1, 2, 3, 4], output: [2, 3, 4, 5] },
    { input: [3, 0, 0, 0], output: [4, 1, 1, 1] },
  ],
};

function play(tests: string, program: string, instance = inst) {
  let s = coderTesterTask.init(instance);
  s = coderTesterTask.step(s, 'tester', tests).state;
  return coderTesterTask.step(s, 'coder', program).state;
}

describe('coder-tester instances', () => {
  it('draw short reference programs whose examples and hidden tests it reproduces', () => {
    for (const i of instances) {
      expect(i.program.length).toBeLessThanOrEqual(16);
      expect(i.example.output.length).toBeGreaterThan(0);
      for (const t of [i.example, ...i.hidden]) {
        expect(t.input).toHaveLength(4);
        expect(runSource(i.program, t.input)).toMatchObject({ ok: true, output: t.output });
        expect(t.output.every((v) => v >= 0 && v <= 9)).toBe(true);
      }
      expect(passShare(i, i.program)).toBe(1);
    }
    expect(new Set(instances.map((i) => i.program)).size).toBeGreaterThan(30);
  });

  it('writes lists as digit strings', () => {
    expect(formatPair(inst.example)).toBe('0123>1234');
    expect(parseTests('0123>1234;4444>')).toEqual([inst.example, { input: [4, 4, 4, 4], output: [] }]);
    for (const bad of ['', '012>1', '0123=1234', '0123>12345', '0123>1;', 'a123>1'])
      expect(parseTests(bad), bad).toBeNull();
  });
});

describe('coder-tester rewards', () => {
  it('coder = 2 × hidden pass share; tester = consistency + pass share', () => {
    const s = play('0000>1111', 'map +1');
    expect(s.outcome).toEqual({
      success: true,
      reward: 1,
      agentRewards: { coder: 2, tester: 2 },
      agentSuccess: { coder: true, tester: true },
    });
    // 'map +1|filter <5' drops the 5s: it passes 2 of 4 hidden tests; the tester got 1 of 2 right.
    const partial = play('0000>1111;1111>1111', 'map +1|filter <5');
    expect(partial.outcome).toEqual({
      success: false,
      reward: 0.5,
      agentRewards: { coder: 1, tester: 0.5 + 0.5 },
      // Each agent's own part: neither the program nor the tests are all right.
      agentSuccess: { coder: false, tester: false },
    });
    // Right tests, wrong program: the tester did its part, the coder did not.
    expect(play('0000>1111', 'map +2').outcome?.agentSuccess).toEqual({ coder: false, tester: true });
  });

  it('scores malformed output 0 (no extra penalty) and never runs it', () => {
    const s = play('nonsense', 'rm -rf');
    expect(s.outcome).toEqual({
      success: false,
      reward: 0,
      agentRewards: { coder: 0, tester: 0 },
      agentSuccess: { coder: false, tester: false },
    });
    expect(s.log.map((l) => l.valid)).toEqual([false, false]);
    expect(play('0000>1111', 'rep 9(rep 9(rep 9(map +1)))').outcome?.agentRewards).toEqual({
      coder: 0,
      tester: 1,
    });
    expect(consistency(inst, '0000>2222')).toBe(0);
  });

  it('shows the coder the example and the tests, sanitized', () => {
    let s = coderTesterTask.init(inst);
    s = coderTesterTask.step(s, 'tester', '1111>2222\uE003').state;
    expect(coderTesterTask.next(s)?.prompt.startsWith('0123>1234 1111>2222 ')).toBe(true);
  });
});
