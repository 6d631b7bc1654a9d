import { describe, expect, it } from 'vitest';
import { minusSigns } from '../../src/ui/minus-sign';

describe('minusSigns', () => {
  it("writes a negative number's minus as the docs do, and leaves every other hyphen", () => {
    expect(minusSigns('-0.017 ± 0.004')).toBe('−0.017 ± 0.004');
    expect(minusSigns('GRPO lower by 0.020 [-0.031, -0.009] on 3 of 5 seeds')).toBe(
      'GRPO lower by 0.020 [−0.031, −0.009] on 3 of 5 seeds',
    );
    expect(minusSigns('(-.5)')).toBe('(−.5)');
    // Not a number's sign: words, ranges and ids keep their hyphens.
    expect(minusSigns('agent-wise, steps 180-199, drmas-vs-grpo, 2-core')).toBe(
      'agent-wise, steps 180-199, drmas-vs-grpo, 2-core',
    );
    expect(minusSigns('0.010 ± 0.052')).toBe('0.010 ± 0.052');
  });
});
