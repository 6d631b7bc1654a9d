// A count of steps is "N steps", a particular step "step i" from 0 (docs/vocabulary.md, "step"):
// the counter's words never read as the index the charts and Rollouts give the same step.
import { describe, expect, it } from 'vitest';
import { stepsCount, stepsDoneTitle, stepsRange, stepsWord } from '../../src/core/step-words';

describe('step words', () => {
  it('counts steps as "N steps", one as "1 step"', () => {
    expect(stepsCount(0)).toBe('0 steps');
    expect(stepsCount(1)).toBe('1 step');
    expect(stepsCount(200)).toBe('200 steps');
    expect(stepsWord(1)).toBe('step');
    expect(stepsWord(2)).toBe('steps');
    expect(stepsRange(3, 3)).toBe('3 steps');
    expect(stepsRange(1, 1)).toBe('1 step');
    expect(stepsRange(4, 200)).toBe('4–200 steps');
  });

  it('gives the last step done its 0-based index, as the rest of the page names it', () => {
    expect(stepsDoneTitle(0)).toBe('Steps done: none yet (the first will be step 0)');
    expect(stepsDoneTitle(1)).toBe(
      'Steps done: 1, step 0 (the charts, Rollouts and What differs number steps from 0)',
    );
    expect(stepsDoneTitle(200)).toBe(
      'Steps done: 200, steps 0–199 (the charts, Rollouts and What differs number steps from 0)',
    );
  });
});
