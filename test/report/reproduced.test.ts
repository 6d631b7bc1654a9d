import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { folderResult } from '../../src/cli/bundle';
import { estimate, figurePicks, t975 } from '../../src/report/findings';
import { openedText, reproduced, seedSpread } from '../../src/report/reproduced';
import { summariesOf } from '../../src/report/result-make';
import type { RunSummary } from '../../src/report/summary';
import { cli } from '../cli/map-sweep';

/** GRPO vs Dr. MAS on sync × 3 seeds, 3 steps, evaluated at steps 2 (tiny, so the CLI trains it in seconds). */
const LINK =
  'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=2&eval.questions=2&eval.k=2&seeds=3';

/** The summaries of a folder `lab train` writes, as a result bundled of it holds them. */
function trained(): RunSummary[] {
  const dir = join(mkdtempSync(join(tmpdir(), 'agentwise-repro-')), 'run');
  const r = cli(['train', '--config', LINK, '--steps', '3', '--out', dir, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  const body = folderResult(dir);
  return summariesOf(body.experiments[0].experiment, body.runs);
}

describe('seed spread', () => {
  it('is the 95 % CI of the mean from 3 seeds on, and the min–max below', () => {
    const three = seedSpread([0.2, 0.4, 0.6]);
    const half = (t975(2) * 0.2) / Math.sqrt(3); // std of 0.2, 0.4, 0.6 is 0.2
    expect(three.by).toBe('ci');
    expect(three.mean).toBeCloseTo(0.4, 12);
    expect(three.lo).toBeCloseTo(0.4 - half, 12);
    expect(three.hi).toBeCloseTo(0.4 + half, 12);
    // Two seeds: the CI would be 0.4 ± 12.706 · 0.283 / √2 = ±2.54, wider than success itself.
    expect(seedSpread([0.2, 0.6])).toEqual({ mean: 0.4, n: 2, lo: 0.2, hi: 0.6, by: 'range' });
    expect(seedSpread([0.5, NaN])).toEqual({ mean: 0.5, n: 1, lo: 0.5, hi: 0.5, by: 'range' });
  });
});

describe('Reproduced? on runs the CLI trained', () => {
  let opened: RunSummary[];
  let local: RunSummary[];
  beforeAll(() => {
    opened = trained();
    local = trained();
  }, 300_000);

  it('the same experiment trained again on this machine reproduces every figure bit for bit', () => {
    expect(opened.map((s) => [s.run, s.seed])).toEqual([
      ['GRPO #0', 0],
      ['GRPO #1', 1],
      ['GRPO #2', 2],
      ['Dr. MAS #0', 0],
      ['Dr. MAS #1', 1],
      ['Dr. MAS #2', 2],
    ]);
    const figures = reproduced(opened, local);
    expect(figures.map((f) => f.name)).toContain('eval avg@2');
    expect(figures.map((f) => f.name)).toContain('reward (last 10)');
    // Real values: the training reward of each run is a number (its seeds' mean).
    const reward = figures.find((f) => f.name === 'reward (last 10)')!;
    expect(reward.runs.map((r) => r.run)).toEqual(['GRPO', 'Dr. MAS']);
    for (const r of reward.runs) {
      expect(Number.isFinite(r.local.mean)).toBe(true);
      expect(r.local.mean).toBe(
        estimate(opened.filter((s) => s.run.startsWith(r.run)).map((s) => s.finalReward)).mean,
      );
    }
    for (const f of figures)
      for (const r of f.runs)
        expect([f.name, r.run, r.kind, r.text], f.name).toEqual(
          r.opened.n === 0
            ? [f.name, r.run, 'undetermined', 'the opened result has no value']
            : [f.name, r.run, 'exact', 'identical bit for bit on all 3 seeds'],
        );
    expect(figures.some((f) => f.runs.every((r) => r.kind === 'exact'))).toBe(true);
  });

  it('the same seeds’ values in another order keep their mean: within the opened 95 % CI, not exact', () => {
    // Each seed here takes the next seed's real numbers: every value differs, the mean over seeds does not.
    const rotated = local.map((s) => ({
      ...local.find((t) => t.run.slice(0, -1) === s.run.slice(0, -1) && t.seed === (s.seed + 1) % 3)!,
      run: s.run,
      seed: s.seed,
    }));
    const figures = reproduced(opened, rotated);
    const median = figures.find((f) => f.name === 'bob |g| median')!.runs[0];
    const spread = estimate(
      opened.filter((s) => s.run.startsWith('GRPO')).map((s) => s.agents.bob.gradNormMedian),
    );
    expect(median.opened).toEqual({ mean: spread.mean, n: 3, lo: spread.lo, hi: spread.hi, by: 'ci' });
    expect(median.local.mean).toBeCloseTo(spread.mean, 12);
    expect(median.kind).toBe('within');
    expect(median.text).toBe(
      `mean here ${median.local.mean.toFixed(3)} within [${spread.lo.toFixed(3)}, ${spread.hi.toFixed(3)}] (95 % CI over 3 seeds)`,
    );
    for (const f of figures)
      for (const r of f.runs) {
        expect(r.kind, `${f.name} ${r.run}`).toBe(
          r.opened.n === 0 ? 'undetermined' : r.opened.lo === r.opened.hi ? 'exact' : 'within',
        );
      }
  });

  it('outside the opened seeds’ min–max is not reproduced', () => {
    // Opened: seeds 1 and 2 (a min–max band); here: seed 0's real numbers standing in for seed 1.
    const two = opened.filter((s) => s.seed > 0);
    const third = local
      .filter((s) => s.seed === 0)
      .map((s) => ({ ...s, run: s.run.replace('#0', '#1'), seed: 1 }));
    const figures = reproduced(two, third);
    const picks = new Map(figurePicks(two).map(([name, , pick]) => [name, pick]));
    let outside = 0;
    for (const f of figures)
      for (const r of f.runs) {
        if (r.opened.n === 0) continue;
        const x = r.local.mean;
        const seed1 = picks.get(f.name)!(two.find((s) => s.run === `${r.run} #1`)!);
        const expected = x === seed1 ? 'exact' : x >= r.opened.lo && x <= r.opened.hi ? 'within' : 'outside';
        expect(r.kind, `${f.name} ${r.run}`).toBe(expected);
        expect(r.opened.by).toBe('range');
        if (r.kind === 'outside') {
          outside++;
          expect(r.text).toMatch(
            /^mean here .* outside \[.*\] \(min–max over 2 seeds\) \(1 of 2 seeds so far\)$/,
          );
        }
      }
    expect(outside).toBeGreaterThan(0);
  });

  it('with 1 opened seed it says "its one seed" and prints no band of one value', () => {
    const one = opened.filter((s) => s.seed === 0);
    const reward = (figures: ReturnType<typeof reproduced>) =>
      figures.find((f) => f.name === 'reward (last 10)')!;
    const same = reward(
      reproduced(
        one,
        local.filter((s) => s.seed === 0),
      ),
    );
    expect(same.runs.map((r) => [r.kind, r.text])).toEqual([
      ['exact', 'identical bit for bit on its one seed'],
      ['exact', 'identical bit for bit on its one seed'],
    ]);
    const grpo = one.find((s) => s.run === 'GRPO #0')!.finalReward;
    expect(openedText(same.runs[0].opened)).toBe(grpo.toFixed(3)); // "0.742", not "0.742 [0.742, 0.742]"
    // Here: seed 1's real numbers standing in for seed 0, a mean equal to the one value or not.
    const other = local
      .filter((s) => s.seed === 1)
      .map((s) => ({ ...s, run: s.run.replace('#1', '#0'), seed: 0 }));
    const figures = reproduced(one, other);
    let checked = 0;
    for (const f of figures)
      for (const r of f.runs) {
        if (r.opened.n === 0 || r.kind === 'exact' || r.kind === 'undetermined') continue;
        checked++;
        const [x, v] = [r.local.mean.toFixed(3), r.opened.mean.toFixed(3)];
        expect(r.text, `${f.name} ${r.run}`).toBe(
          r.kind === 'within'
            ? `mean here ${x} equal to its one seed’s ${v}`
            : `mean here ${x} against its one seed’s ${v}`,
        );
        expect(openedText(r.opened)).toBe(v);
      }
    expect(checked).toBeGreaterThan(0);
    // Two seeds or more: the mean and its band.
    const two = seedSpread([0.2, 0.6]);
    expect(openedText(two)).toBe('0.400 [0.200, 0.600]');
  });

  it('with 2 opened seeds the band is their min–max, and seeds not trained yet are said', () => {
    const two = opened.filter((s) => s.seed < 2);
    const firstSeed = local.filter((s) => s.seed === 0);
    const figures = reproduced(two, firstSeed);
    const reward = figures.find((f) => f.name === 'reward (last 10)')!;
    const grpo = two.filter((s) => s.run.startsWith('GRPO')).map((s) => s.finalReward);
    expect(reward.runs[0].opened).toMatchObject({
      lo: Math.min(...grpo),
      hi: Math.max(...grpo),
      by: 'range',
    });
    expect(reward.runs[0]).toMatchObject({
      kind: 'exact',
      text: 'identical bit for bit on 1 of 2 seeds so far',
    });
    // A run not trained here yet.
    const none = reproduced(two, []).find((f) => f.name === 'reward (last 10)')!;
    expect(none.runs.map((r) => [r.kind, r.text])).toEqual([
      ['undetermined', 'not trained here yet'],
      ['undetermined', 'not trained here yet'],
    ]);
  });
});
