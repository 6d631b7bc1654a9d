import { describe, expect, it } from 'vitest';
import { compareSeeds, comparisonTable, meanStd } from '../../src/train/compare';
import { summarize } from '../../src/train/summary';

/** A run summary from a made-up history: grad norms of agent `a` and a final eval. */
const run = (label: string, seed: number, grads: number[], evalAvg: number) =>
  summarize(
    label,
    seed,
    grads.map((g, i) => ({ 'agent/a/grad_norm': g, 'reward/mean': i / 10, ...(i === grads.length - 1 ? { 'eval/avg@4': evalAvg, 'eval/pass@4': 1 } : {}) })),
    ['a'],
    4,
  );

describe('comparing runs over seeds', () => {
  it('gives mean ± sample std per run and the paired difference per seed', () => {
    const c = compareSeeds([
      run('GRPO #0', 0, [1, 1, 1, 1], 0.5),
      run('GRPO #1', 1, [2, 2, 2, 2], 0.7),
      run('GRPO #2', 2, [3, 3, 3, 3], 0.9),
      run('Dr. MAS #0', 0, [1, 1, 1, 1], 0.6),
      run('Dr. MAS #1', 1, [2, 2, 2, 2], 0.7),
      run('Dr. MAS #2', 2, [3, 3, 3, 9.5], 1.1), // one spike: 9.5 > 3 × running median 3
    ]);
    expect(c.runs).toEqual(['GRPO', 'Dr. MAS']);
    const fig = (name: string) => c.figures.find((f) => f.name === name)!;

    const avg = fig('eval avg@k');
    expect(avg.runs[0].mean).toBeCloseTo(0.7, 12);
    expect(avg.runs[0].std).toBeCloseTo(0.2, 12); // sample std of 0.5, 0.7, 0.9
    expect(avg.runs[1].mean).toBeCloseTo(0.8, 12);
    // Paired: +0.1, 0, +0.2 → mean 0.1, sample std 0.1.
    expect(avg.diffs[0].mean).toBeCloseTo(0.1, 12);
    expect(avg.diffs[0].std).toBeCloseTo(0.1, 12);
    expect(avg.diffs[0].n).toBe(3);

    expect(fig('a |g| median').runs[0]).toEqual({ mean: 2, std: 1, n: 3 });
    expect(fig('a |g| max').diffs[0].mean).toBeCloseTo(6.5 / 3, 12);
    expect(fig('a spike frac').runs[1].mean).toBeCloseTo(1 / 12, 12); // 1 spike in 4 steps, 1 of 3 seeds
    expect(fig('a spike frac').runs[0].mean).toBe(0);

    const table = comparisonTable(c);
    expect(table.split('\n')[0]).toMatch(/figure \(mean ± std over seeds\)\s+GRPO\s+Dr\. MAS\s+Dr\. MAS − GRPO \(paired\)/);
    expect(table).toMatch(/eval avg@k\s+0\.700 ± 0\.200\s+0\.800 ± 0\.265\s+0\.100 ± 0\.100/);
  });

  it('ignores non-finite values and has no std for a single seed', () => {
    expect(meanStd([1, NaN, 3])).toEqual({ mean: 2, std: Math.SQRT2, n: 2 });
    expect(meanStd([4])).toEqual({ mean: 4, std: NaN, n: 1 });
    expect(meanStd([])).toEqual({ mean: NaN, std: NaN, n: 0 });
  });
});
