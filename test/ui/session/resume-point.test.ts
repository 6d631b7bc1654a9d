import { describe, expect, it } from 'vitest';
import { labelOfKey, stateKey } from '../../../src/storage/state-store';
import { recordedSteps, usableStates } from '../../../src/ui/session/resume-point';

const state = (runIndex: number, label: string, step: number) => ({
  session: 's1',
  run: stateKey(runIndex, label),
  step,
  savedAt: 0,
});

describe('where a stored run goes on from', () => {
  it('counts the steps recorded without a gap from step 0', () => {
    expect(recordedSteps([])).toBe(0);
    expect(recordedSteps([0, 1, 2, 3, 4])).toBe(5);
    expect(recordedSteps([2, 0, 1])).toBe(3); // in any order
    expect(recordedSteps([0, 1, 2, 5, 6])).toBe(3); // 3 and 4 missing: only 0…2 are whole
    expect(recordedSteps([1, 2, 3])).toBe(0);
  });

  it('uses a saved state only where the frames cover every step before it', () => {
    const runs = [
      { runIndex: 0, label: 'GRPO', step: 13 }, // state at 10, frames past it: resumes at 10
      { runIndex: 1, label: 'Dr. MAS', step: 7 }, // state at 10, frames to 6: the torn write
      { runIndex: 0, label: 'GRPO #1', step: 10 }, // state exactly at its frames
    ];
    const states = [
      state(0, 'GRPO', 10),
      state(1, 'Dr. MAS', 10),
      state(0, 'GRPO #1', 10),
      state(1, 'Dr. MAS #1', 5), // a run never shown (no frames): its state is ahead of nothing
    ];
    expect(usableStates(states, runs)).toEqual({
      saved: ['0:GRPO', '0:GRPO #1'],
      ahead: ['Dr. MAS', 'Dr. MAS #1'],
    });
    expect(usableStates([], runs)).toEqual({ saved: [], ahead: [] });
  });

  it('uses a state ahead of the frames where the frames it carries fill the gap', () => {
    const runs = [
      { runIndex: 0, label: 'GRPO', step: 7 }, // state at 10 carrying 7…9: the page closed before its flush
      { runIndex: 1, label: 'Dr. MAS', step: 7 }, // state at 10 carrying 5…9: some already stored
      { runIndex: 0, label: 'GRPO #1', step: 6 }, // state at 10 carrying 7…9: step 6 missing everywhere
    ];
    const states = [
      { ...state(0, 'GRPO', 10), carriedFrom: 7 },
      { ...state(1, 'Dr. MAS', 10), carriedFrom: 5 },
      { ...state(0, 'GRPO #1', 10), carriedFrom: 7 },
    ];
    expect(usableStates(states, runs)).toEqual({ saved: ['0:GRPO', '1:Dr. MAS'], ahead: ['GRPO #1'] });
  });

  it("reads a run's label back from its state's key, a label with ':' whole", () => {
    expect(labelOfKey(stateKey(1, 'Dr. MAS #1'))).toBe('Dr. MAS #1');
    expect(labelOfKey(stateKey(12, 'a: b'))).toBe('a: b');
  });
});
