import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { folderResult } from '../../src/cli/bundle';
import { estimate, figurePicks, t975 } from '../../src/report/findings';
import { openedText, reproduced, seedSpread, stepsNote, stepsToReproduce } from '../../src/report/reproduced';
import { summariesOf } from '../../src/report/result-make';
import type { RunSummary } from '../../src/report/summary';
import { cli } from '../cli/map-sweep';

/** GRPO vs Dr. MAS on sync × 3 seeds, 3 steps, evaluated at steps 2 (tiny, so the CLI trains it in seconds). */
const LINK =
  'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=2&eval.questions=2&eval.k=2&seeds=3';

/** What a folder `lab train` writes for `steps` steps, bundled as a result. */
function trainedBody(steps: number) {
  const dir = join(mkdtempSync(join(tmpdir(), 'agentwise-repro-')), 'run');
  const r = cli(['train', '--config', LINK, '--steps', String(steps), '--out', dir, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  return folderResult(dir);
}

/**
 * A result's run summaries; with `shared`, of its runs' first `shared` steps only, as a result
 * shared before its runs finished holds them (Share result writes the frames recorded so far).
 */
function summaries(body: ReturnType<typeof trainedBody>, shared = Infinity): RunSummary[] {
  const runs = body.runs.map((run) => ({ ...run, frames: run.frames.slice(0, shared) }));
  return summariesOf(body.experiments[0].experiment, runs);
}

/** The summaries of a folder `lab train` writes, as a result bundled of it holds them. */
const trained = (steps = 3): RunSummary[] => summaries(trainedBody(steps));

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

describe('Reproduced? of a result shared before its runs finished', () => {
  // Opened: a 6-step experiment shared after 3 of its steps. Here: those 6 steps trained whole
  // (a run trained to the configured steps), and the experiment retrained to the 3 reached.
  let partial: RunSummary[];
  let whole: RunSummary[];
  let retrained: RunSummary[];
  beforeAll(() => {
    const six = trainedBody(6);
    partial = summaries(six, 3);
    whole = summaries(six);
    retrained = trained(3);
  }, 300_000);

  it('Train it here trains to the steps the opened runs reached, not the configured ones', () => {
    expect(partial.map((s) => s.steps)).toEqual([3, 3, 3, 3, 3, 3]);
    expect(
      stepsToReproduce(
        6,
        partial.map((s) => s.steps),
      ),
    ).toBe(3);
    // Runs that stood a step apart when shared: the most of them, so every run has its steps here.
    expect(stepsToReproduce(200, [14, 15, 14])).toBe(15);
    // Finished, or nothing to stop at: the configured steps.
    expect(stepsToReproduce(6, [6, 6])).toBe(6);
    expect(stepsToReproduce(6, [])).toBe(6);
    expect(stepsToReproduce(6, [0, 0])).toBe(6);
  });

  it('retrained to its own 3 steps, every figure is reproduced exactly', () => {
    const figures = reproduced(partial, retrained);
    expect(figures.length).toBeGreaterThan(5);
    for (const f of figures)
      for (const r of f.runs)
        expect([f.name, r.run, r.kind, r.text]).toEqual(
          r.opened.n === 0
            ? [f.name, r.run, 'undetermined', 'the opened result has no value']
            : [f.name, r.run, 'exact', 'identical bit for bit on all 3 seeds'],
        );
    const reward = figures.find((f) => f.name === 'reward (last 10)')!.runs[0];
    expect(reward.local.mean).toBe(
      estimate(partial.filter((s) => s.run.startsWith('GRPO')).map((s) => s.finalReward)).mean,
    );
  });

  it('runs here of 6 steps against opened ones of 3 are not compared, and say so', () => {
    const figures = reproduced(partial, whole);
    const reward = figures.find((f) => f.name === 'reward (last 10)')!;
    // Real numbers that differ: the last-10 mean over 6 steps is not the one over 3.
    expect(reward.runs[0].opened.mean).not.toBe(
      estimate(whole.filter((s) => s.run.startsWith('GRPO')).map((s) => s.finalReward)).mean,
    );
    for (const f of figures)
      for (const r of f.runs) {
        expect(r.kind, `${f.name} ${r.run}`).toBe('undetermined');
        if (r.opened.n > 0)
          expect(r.text).toBe(
            'opened at 3 steps, here 6 steps: figures of different step counts are not compared',
          );
        expect(r.local.n).toBe(0);
      }
    // One seed here at the opened steps, the others further: judged on the one, the others said.
    const mixed = [...whole.filter((s) => s.seed > 0), ...retrained.filter((s) => s.seed === 0)];
    const grpo = reproduced(partial, mixed).find((f) => f.name === 'reward (last 10)')!.runs[0];
    expect([grpo.kind, grpo.text]).toEqual([
      'exact',
      'identical bit for bit on 1 of 3 seeds so far (2 more here at other step counts, not compared)',
    ]);
  });

  it('the card’s line on steps says what is compared over what', () => {
    expect(stepsNote([3, 3], [3, 3])).toBe('opened and here: 3 steps, compared over all of them');
    expect(stepsNote([14, 14], [200, 200])).toBe(
      'opened at 14 steps, here 200 steps: figures are compared over the first 14 steps of each run here, once it has them',
    );
    expect(stepsNote([14, 15], [9, 10])).toBe(
      'opened at 14–15 steps, here 9–10 steps: figures are compared over the first steps of each run here, as many as its opened twin reached, once it has them',
    );
  });
});
