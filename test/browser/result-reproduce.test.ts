/**
 * Train it here (docs/sharing.md#train-it-here): a result Share result made of two runs × two
 * seeds opens in a fresh page, Train it here trains its experiment on this machine, recorded as
 * a session, and draws each opened run beside its twin trained here (one colour, the opened line
 * thin and light). The same build on the same machine, seeded, trains the same numbers bit for
 * bit, so the Reproduced? card says "reproduced exactly" for every figure with a value, and its
 * opened numbers are the file's Findings'. A result shared after 2 of its 3 steps (Step twice)
 * trains to those 2 here, and says so; every figure is reproduced exactly, and still after
 * Continue, compared over the runs' first 2 steps.
 */
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFixed } from '../../src/report/findings';
import { readResult } from '../../src/report/result-file';
import { TINY, downloads, dropLoose, openLab, runsIn, storedSessions, trainEnabled } from './harness';
import type { Lab } from './harness';

const labs: Lab[] = [];
afterEach(async () => {
  for (const l of labs.splice(0)) await l.close();
});

const text = async (l: Lab, testId: string) => (await l.page.getByTestId(testId).textContent()) ?? '';

/** Each run's steps done, as its status bar counter says. */
const stepsDone = async (l: Lab) => (await l.page.getByTestId('step-counter').allTextContents()).map(Number);

/** Share result's file and its body, kept past the browser that downloaded it (closing it removes its downloads). */
async function shareToFile(l: Lab, name: string) {
  const [download] = Object.values(await downloads(l, 'Share result', 1));
  const path = join(mkdtempSync(join(tmpdir(), 'agentwise-repro-')), name);
  copyFileSync(download, path);
  return { path, body: readResult(readFileSync(path)).body };
}

/** `before` closed, a fresh profile with the file at `path` dropped on Other tools. */
async function openElsewhere(before: Lab, name: string, path: string): Promise<Lab> {
  await before.close();
  labs.splice(0);
  const l = await openLab();
  labs.push(l);
  await trainEnabled(l.page, 120_000);
  await dropLoose(l, { [name]: path });
  return l;
}

describe('Train it here beside an opened result', () => {
  it('trains the experiment here, draws the pairs, and Reproduced? finds every figure reproduced exactly', async () => {
    // TINY, evaluated at step 2 (a held-out figure to reproduce).
    const link = `${TINY.replace('eval.every=0', 'eval.every=2')}&eval.questions=2&eval.k=2&seed=5&seeds=2&steps=3`;
    const trained = await openLab(link);
    labs.push(trained);
    await trainEnabled(trained.page, 120_000);
    await trained.page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(trained, 'done', 180_000);
    const { path, body } = await shareToFile(trained, 'shared.lab.json.gz');
    const findings = body.experiments[0].findings;
    expect(body.runs.map((r) => [r.label, r.frames.length])).toEqual([
      ['GRPO #0', 3],
      ['GRPO #1', 3],
      ['Dr. MAS #0', 3],
      ['Dr. MAS #1', 3],
    ]);
    // Past sessions → Share gives the same runs from what IndexedDB stored, without opening it.
    const [pastShare] = await Promise.all([
      trained.page.waitForEvent('download'),
      trained.page.getByRole('button', { name: /^Share session .* as a result file$/ }).click(),
    ]);
    const again = readResult(readFileSync((await pastShare.path())!)).body;
    // Not silent either: the panel names the file it saved.
    await expect
      .poll(() => trained.page.getByTestId('past-share-saved').textContent())
      .toMatch(new RegExp(`^Saved ${pastShare.suggestedFilename().replace(/\./g, '\\.')}: send the file`));
    expect(again.runs.map((r) => [r.label, r.seed, r.keys, r.frames, r.rollouts.length])).toEqual(
      body.runs.map((r) => [r.label, r.seed, r.keys, r.frames, 0]),
    );
    expect(again.experiments[0].findings).toEqual(findings);
    expect(again.made.from).toMatch(/^the session of \d{4}-/);
    // Both name the same session, the one recorded: by its start and id.
    expect(again.made.from).toBe(body.made.from);
    // The machine as the session recorded it: the backend and kernels its runs trained on, kept
    // in IndexedDB, so after a reload both Share result (the restored session) and Past sessions
    // → Share still name them, never "unknown" or whatever backend the page uses then.
    expect(body.machines[0].backend).toMatch(/^(wasm|webgpu|webgl|cpu)$/);
    expect(body.machines[0].kernels).not.toMatch(/unknown|not recorded/);
    expect(again.machines).toEqual(body.machines);
    await trained.page.reload();
    await trained.page.locator('section[data-loaded="true"]').waitFor({ timeout: 15_000 });
    await trained.page.getByRole('button', { name: /^Share session .* as a result file$/ }).waitFor();
    const [afterReload] = await Promise.all([
      trained.page.waitForEvent('download'),
      trained.page.getByRole('button', { name: /^Share session .* as a result file$/ }).click(),
    ]);
    expect(readResult(readFileSync((await afterReload.path())!)).body.machines).toEqual(body.machines);
    const restored = Object.values(await downloads(trained, 'Share result', 1));
    expect(readResult(readFileSync(restored[0])).body.machines).toEqual(body.machines);

    const l = await openElsewhere(trained, 'shared.lab.json.gz', path);
    await expect.poll(() => text(l, 'opened-banner')).toContain('shared.lab.json.gz: trained on');
    await l.page.getByRole('button', { name: 'Train it here', exact: true }).click();
    // The runs trained here: four repeats, each to the file's three steps.
    await expect.poll(() => l.page.locator('.run-status').count()).toBe(4);
    await runsIn(l, 'done', 180_000);
    const banner = await text(l, 'opened-banner');
    expect(banner).toContain('Its runs are the thin, light lines');
    // Made in another profile, reproduced here: the banner neither denies it was trained here
    // (its twin was) nor claims the file's session was.
    expect(banner).not.toMatch(/not trained here|Trained here, in the session/);

    // Each pair in one colour: the opened line thin and light, the one trained here solid.
    const reward = l.page.locator('figure[data-chart="Reward"]');
    const lines = async () =>
      reward
        .locator('.series-line')
        .evaluateAll((els) =>
          els.map((e) => [
            e.getAttribute('data-series'),
            e.getAttribute('stroke'),
            e.getAttribute('stroke-opacity'),
          ]),
        );
    await expect.poll(async () => (await lines()).length).toBe(4);
    const drawn = new Map((await lines()).map(([name, color, opacity]) => [name, { color, opacity }]));
    for (const run of ['GRPO', 'Dr. MAS']) {
      const opened = drawn.get(`${run} (opened) (mean of 2)`)!;
      const here = drawn.get(`${run} (mean of 2)`)!;
      expect(opened.color, run).toBe(here.color);
      expect([opened.opacity, here.opacity], run).toEqual(['0.5', null]);
    }
    expect(drawn.get('GRPO (mean of 2)')!.color).not.toBe(drawn.get('Dr. MAS (mean of 2)')!.color);
    expect(await text(l, 'legend-opened')).toContain('opened result');

    // Reproduced?: a verdict per figure of the file's Findings, each run reproduced exactly.
    const card = l.page.getByTestId('reproduced');
    await expect
      .poll(() => text(l, 'reproduced-status'))
      .toMatch(
        /^All 4 repeats \(2 runs × 2 seeds\) trained here to their opened twins’ steps · opened and here: 3 steps, compared over all of them/,
      );
    const rows = card.locator('tbody tr');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-figure')))).toEqual(
      findings.figures.map((f) => f.name),
    );
    const cells = await card
      .locator('tbody td')
      .evaluateAll((els) =>
        els.map((e) => [
          e.closest('tr')!.getAttribute('data-figure'),
          e.getAttribute('data-run'),
          e.getAttribute('data-kind'),
          e.textContent,
        ]),
      );
    expect(cells).toHaveLength(findings.figures.length * 2);
    for (const [figure, run, kind, said] of cells) {
      const f = findings.figures.find((x) => x.name === figure)!;
      const mean = f.runs[findings.runs.indexOf(run!)].mean;
      // A figure the runs have no value of (none here: evaluated, 3 steps) would be undetermined.
      expect([figure, run, kind], said!).toEqual([
        figure,
        run,
        Number.isFinite(mean) ? 'exact' : 'undetermined',
      ]);
      if (kind === 'exact') expect(said).toContain('reproduced exactly');
    }
    // One figure's numbers against the file's: the opened mean is the file's Findings mean.
    const evalFigure = findings.figures.find((f) => f.name === 'eval avg@2')!;
    const grpoCell = card.locator('tr[data-figure="eval avg@2"] td[data-run="GRPO"]');
    expect(await grpoCell.textContent()).toContain(`${formatFixed(evalFigure.runs[0].mean)} [`);
    expect(Number(await grpoCell.locator('[data-opened-mean]').getAttribute('data-opened-mean'))).toBe(
      evalFigure.runs[0].mean,
    );

    // The runs trained here are recorded as a session; the opened ones are not.
    const stored = await storedSessions(l);
    expect(stored.map((s) => s.runs.map((r) => [r.label, r.seed, r.steps]))).toEqual([
      [
        ['GRPO #0', 5, [0, 1, 2]],
        ['GRPO #1', 6, [0, 1, 2]],
        ['Dr. MAS #0', 5, [0, 1, 2]],
        ['Dr. MAS #1', 6, [0, 1, 2]],
      ],
    ]);
    // Reset clears both.
    await l.page.getByRole('button', { name: 'Reset', exact: true }).click();
    await expect.poll(() => l.page.getByTestId('reproduced').count()).toBe(0);
    expect(await l.page.getByTestId('opened-banner').count()).toBe(0);
    expect(l.errors).toEqual([]);
  }, 600_000);

  it('a result shared after 2 of its 3 steps trains to 2 here, and every figure is reproduced exactly', async () => {
    // One seed: Step steps the runs training at once, and one seed's runs always are (run-start.ts).
    const link = `${TINY.replace('eval.every=0', 'eval.every=2')}&eval.questions=2&eval.k=2&seed=5&steps=3`;
    const paused = await openLab(link);
    labs.push(paused);
    await trainEnabled(paused.page, 120_000);
    // Step twice, then Share result: the runs paused after 2 of their 3 steps.
    for (const n of [1, 2]) {
      await paused.page.getByRole('button', { name: 'Step', exact: true }).click();
      await expect.poll(() => stepsDone(paused), { timeout: 60_000 }).toEqual([n, n]);
      await runsIn(paused, 'paused');
    }
    const { path, body } = await shareToFile(paused, 'paused.lab.json.gz');
    expect(body.experiments[0].experiment!.steps).toBe(3);
    expect(body.runs.map((r) => r.frames.length)).toEqual([2, 2]);

    const l = await openElsewhere(paused, 'paused.lab.json.gz', path);
    // Before and after Train it here, the banner says it trains to 2 steps, and why.
    const why = 'its runs stopped after 2 of its experiment’s 3 steps (shared before they finished)';
    await expect.poll(() => text(l, 'opened-banner')).toContain(`to 2 steps, as ${why}`);
    await l.page.getByRole('button', { name: 'Train it here', exact: true }).click();
    await expect.poll(() => l.page.locator('.run-status').count()).toBe(2);
    await runsIn(l, 'done', 180_000);
    expect(await text(l, 'opened-stopped')).toBe(`Train it here trains to 2 steps: ${why}. `);
    expect(await stepsDone(l)).toEqual([2, 2]);

    const cellKinds = () =>
      l.page
        .getByTestId('reproduced')
        .locator('tbody td')
        .evaluateAll((els) => els.map((e) => [e.getAttribute('data-kind'), e.textContent]));
    const allExact = async () => {
      const cells = await cellKinds();
      expect(cells.length).toBe(body.experiments[0].findings.figures.length * 2);
      for (const [kind, said] of cells) expect(kind, said!).toBe('exact');
    };
    await expect
      .poll(() => text(l, 'reproduced-status'))
      .toContain(
        'trained here to their opened twins’ steps · opened and here: 2 steps, compared over all of them',
      );
    await allExact();

    // Continue: the runs here go on past the opened 2 steps; they are still judged on their first 2.
    await l.page.getByRole('button', { name: /^Continue for \d+ more steps?$/ }).click();
    await expect.poll(() => stepsDone(l), { timeout: 60_000 }).toEqual([4, 4]);
    await runsIn(l, 'done', 180_000);
    await expect
      .poll(() => text(l, 'reproduced-steps'))
      .toMatch(
        /^opened at 2 steps, here 4 steps: figures are compared over the first 2 steps of each run here/,
      );
    await allExact();
    expect(l.errors).toEqual([]);
  }, 600_000);
});
