import { describe, expect, it } from 'vitest';
import { summarize, trainedNothing } from '../../src/rl/summary';

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
