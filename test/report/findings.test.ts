import { describe, expect, it } from 'vitest';
import {
  compareSeeds,
  comparisonCsv,
  comparisonTable,
  estimate,
  t975,
  verdict,
} from '../../src/report/findings';
import { summarize } from '../../src/report/summary';

/** A run summary from a made-up history: grad norms of agent `a`, rewards, skips and a final eval. */
const run = (label: string, seed: number, grads: number[], evalAvg: number, skipped = 0) =>
  summarize(
    label,
    seed,
    grads.map((g, i) => ({
      'agent/a/grad_norm': g,
      'reward/mean': i / 10 + seed / 100,
      'update/skipped': i === 0 ? skipped : 0,
      ...(i === grads.length - 1 ? { 'eval/avg@4': evalAvg, 'eval/pass@4': 1 } : {}),
    })),
    ['a'],
    4,
    2,
  );

describe('findings over seeds', () => {
  const c = compareSeeds([
    run('GRPO #0', 0, [1, 1, 1, 1], 0.5),
    run('GRPO #1', 1, [2, 2, 2, 2], 0.7),
    run('GRPO #2', 2, [3, 3, 3, 3], 0.9),
    run('Dr. MAS #0', 0, [1, 1, 1, 1], 0.6, 1),
    run('Dr. MAS #1', 1, [2, 2, 2, 2], 0.7, 2),
    run('Dr. MAS #2', 2, [3, 3, 3, 9.5], 1.1, 3), // one spike: 9.5 > 3 × running median 3
  ]);
  const fig = (name: string) => c.figures.find((f) => f.name === name)!;

  it('matches a hand-computed example: mean ± 95 % CI per run, paired differences, verdicts', () => {
    expect(c.runs).toEqual(['GRPO', 'Dr. MAS']);
    expect(c.seeds).toBe(3);
    expect(c.figures.map((f) => f.name)).toEqual([
      'eval avg@4',
      'eval pass@4',
      'reward (last 2)',
      'a |g| median',
      'a |g| max',
      'a spike frac',
      'skipped updates',
    ]);
    // The page names them in words.
    expect(c.figures.map((f) => f.words)).toEqual([
      'held-out success, mean over 4 samples per question',
      'held-out success, any of 4 samples per question',
      'training reward, mean over the last 2 steps',
      'a: gradient norm, median over steps',
      'a: gradient norm, largest over steps',
      'a: spike fraction: steps above 3× the running median',
      'skipped updates (a non-finite loss or gradient)',
    ]);

    // GRPO avg@4: 0.5, 0.7, 0.9 → mean 0.7, s = 0.2, half-width t(2) · 0.2/√3 = 4.303 · 0.11547 = 0.49687.
    const avg = fig('eval avg@4');
    expect(avg.runs[0].mean).toBeCloseTo(0.7, 12);
    expect(avg.runs[0].std).toBeCloseTo(0.2, 12);
    expect(avg.runs[0].hi - avg.runs[0].mean).toBeCloseTo(0.49687, 5);
    // Paired Dr. MAS − GRPO: +0.1, 0, +0.2 → mean 0.1, s = 0.1, CI 0.1 ± 0.24843 = [−0.14843, 0.34843] ∋ 0.
    expect(avg.diffs[0].mean).toBeCloseTo(0.1, 12);
    expect(avg.diffs[0].lo).toBeCloseTo(-0.14843, 5);
    expect(avg.diffs[0].hi).toBeCloseTo(0.34843, 5);
    expect(avg.diffs[0].verdict).toEqual({ kind: 'same', text: 'no difference beyond seed spread' });

    // Reward over the last 2 steps: (0.2 + 0.3)/2 + seed/100, the same per seed for both runs.
    expect(fig('reward (last 2)').runs[0].mean).toBeCloseTo(0.26, 12);
    expect(fig('reward (last 2)').diffs[0].verdict.kind).toBe('identical');

    expect(fig('a |g| median').runs[0]).toMatchObject({ mean: 2, std: 1, n: 3 });
    // |g| max, paired: 0, 0, 6.5 → mean 6.5/3, s = 3.7528; CI crosses 0.
    expect(fig('a |g| max').diffs[0].mean).toBeCloseTo(6.5 / 3, 12);
    expect(fig('a |g| max').diffs[0].verdict.kind).toBe('same');
    expect(fig('a spike frac').runs[1].mean).toBeCloseTo(1 / 12, 12); // 1 spike in 4 steps, 1 of 3 seeds
    expect(fig('a spike frac').runs[0].mean).toBe(0);

    // Skipped updates, paired: 1, 2, 3 → mean 2, s = 1, CI 2 ± 4.303/√3 = 2 ± 2.48434 crosses 0.
    expect(fig('skipped updates').diffs[0].lo).toBeCloseTo(2 - 2.48434, 4);
    expect(fig('skipped updates').diffs[0].verdict.kind).toBe('same');
  });

  it('says which run is higher or lower when the paired CI excludes 0', () => {
    // Differences 1.0, 1.2, 1.1: mean 1.1, s = 0.1, CI 1.1 ± 0.24843.
    const d = estimate([1, 1.2, 1.1]);
    expect(verdict('Dr. MAS', d, [1, 1.2, 1.1])).toEqual({
      kind: 'higher',
      text: 'Dr. MAS higher by 1.100 [0.852, 1.348]',
    });
    const neg = estimate([-1, -1.2, -1.1]);
    expect(verdict('Dr. MAS', neg, [-1, -1.2, -1.1])).toEqual({
      kind: 'lower',
      text: 'Dr. MAS lower by 1.100 [0.852, 1.348]',
    });
    expect(verdict('X', estimate([0.3]), [0.3]).kind).toBe('undetermined');
  });

  it('says how many seeds a verdict rests on while some are still to come', () => {
    // The page's Findings while 2 of 5 seeds have reported: "all 2 seeds" would read as complete.
    const partial = compareSeeds(
      [run('GRPO #0', 0, [1, 1], 0.5), run('GRPO #1', 1, [2, 2], 0.7)].flatMap((g) => [
        g,
        { ...g, run: g.run.replace('GRPO', 'Dr. MAS') },
      ]),
      5,
    );
    const byName = (name: string) => partial.figures.find((f) => f.name === name)!.diffs[0].verdict;
    expect(byName('a |g| median')).toEqual({ kind: 'identical', text: 'identical on 2 of 5 seeds so far' });
    expect(verdict('Dr. MAS', estimate([1, 1.2, 1.1]), [1, 1.2, 1.1], 5).text).toBe(
      'Dr. MAS higher by 1.100 [0.852, 1.348] (3 of 5 seeds so far)',
    );
    expect(verdict('Dr. MAS', estimate([1, -1, 0.5]), [1, -1, 0.5], 4).text).toBe(
      'no difference beyond seed spread (3 of 4 seeds so far)',
    );
    // Once every seed is in, the words of a finished comparison.
    expect(verdict('Dr. MAS', estimate([0, 0]), [0, 0], 2).text).toBe('identical on all 2 seeds');
  });

  it('prints the same numbers as a table and as CSV', () => {
    const table = comparisonTable(c);
    expect(table.split('\n')[0]).toMatch(
      /figure \(mean ± 95 % CI over 3 seeds\)\s+GRPO\s+Dr\. MAS\s+Dr\. MAS − GRPO \(paired\)\s+verdict/,
    );
    expect(table).toMatch(
      /eval avg@4\s+0\.700 ± 0\.497\s+0\.800 ± 0\.657\s+0\.100 ± 0\.248\s+no difference beyond seed spread/,
    );
    const csv = comparisonCsv(c).split('\n');
    expect(csv[1]).toBe(
      'eval avg@4,0.700 ± 0.497,0.800 ± 0.657,0.100 ± 0.248,no difference beyond seed spread',
    );
    // The page's export names its experiment on every row, after the table's columns.
    const named = comparisonCsv(c, {
      experiment: 'Synchronous control, "sync"',
      link: 'http://x/#v=1&task=sync',
    });
    const [head, first] = named.split('\n');
    expect(head).toMatch(/,verdict,experiment,link$/);
    expect(first).toBe(`${csv[1]},"Synchronous control, ""sync""",http://x/#v=1&task=sync`);
  });

  it('ignores non-finite values; one seed has no interval', () => {
    expect(estimate([1, NaN, 3])).toMatchObject({ mean: 2, std: Math.SQRT2, n: 2 });
    expect(estimate([1, NaN, 3]).hi).toBeCloseTo(2 + 12.706, 12); // t(1) · √2/√2
    expect(estimate([4])).toMatchObject({ mean: 4, n: 1 });
    expect(estimate([4]).hi).toBeNaN();
    expect(estimate([]).n).toBe(0);
    expect(t975(4)).toBe(2.776);
  });
});

describe('each agent’s own success over several agents', () => {
  /** A run whose agents a, b and c did their own parts at these rates, in training and held out. */
  const owned = (label: string, seed: number, own: number[], held: number[]) =>
    summarize(
      label,
      seed,
      [
        Object.fromEntries(
          ['a', 'b', 'c'].flatMap((x, i) => [
            [`agent/${x}/own_success`, own[i]],
            [`agent/${x}/eval_own_success`, held[i]],
          ]),
        ),
      ],
      ['a', 'b', 'c'],
      4,
      1,
    );

  it('adds the worst agent and the mean agent, in training and on held-out questions', () => {
    const c = compareSeeds([
      owned('GRPO #0', 0, [0.9, 0.2, 0.5], [0.8, 0.1, 0.3]),
      owned('GRPO #1', 1, [0.7, 0.4, 0.4], [0.6, 0.3, 0.6]),
      owned('Dr. MAS #0', 0, [0.9, 0.5, 0.4], [0.9, 0.5, 0.4]),
      owned('Dr. MAS #1', 1, [0.8, 0.6, 0.7], [0.7, 0.5, 0.6]),
    ]);
    const mean = (name: string) => c.figures.find((f) => f.name === name)!.runs.map((r) => r.mean);
    expect(mean('worst agent own success (last 1)')).toEqual([0.30000000000000004, 0.5]);
    expect(mean('mean agent own success (last 1)').map((x) => x.toFixed(4))).toEqual(['0.5167', '0.6500']);
    expect(mean('worst agent held-out own success')).toEqual([0.2, 0.45]);
    expect(mean('b held-out own success')).toEqual([0.2, 0.5]);
  });
});
