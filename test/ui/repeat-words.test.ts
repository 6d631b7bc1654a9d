// One word per thing (docs/vocabulary.md): a run at one seed is a repeat; the page says where the count comes from.
import { describe, expect, it } from 'vitest';
import { repeatsText } from '../../src/ui/repeat-words';

describe('repeatsText', () => {
  it('with one seed, runs; with more, repeats as runs × seeds', () => {
    expect(repeatsText(2, 2, 1)).toBe('2 runs');
    expect(repeatsText(1, 1, 1)).toBe('1 run');
    expect(repeatsText(6, 3, 2)).toBe('6 repeats (3 runs × 2 seeds)');
    expect(repeatsText(3, 1, 3)).toBe('3 repeats (1 run × 3 seeds)');
    // A sweep's cells add a factor the experiment's runs and seeds do not say: the count alone.
    expect(repeatsText(16, 2, 2)).toBe('16 repeats');
  });
});
