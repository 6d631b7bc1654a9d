/**
 * One reading of step numbers across the page (docs/vocabulary.md, "step"): after a 3-step run
 * the run's line counts "3 steps", and every place that names a particular step names the last
 * one step 2, by its 0-based index: its tooltip, Rollouts, What differs and the charts' hover.
 * Once the counter said "step 3" beside Rollouts' "step 2", and a newcomer read two last steps.
 */
import { afterEach, expect, it } from 'vitest';
import { openLab, RUNS, runsIn, TINY, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const STEPS = 3;

it('counts the steps done where it counts them and names the last one step N−1 everywhere else', async () => {
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect.poll(() => page.locator('.run-status').count(), { timeout: 30_000 }).toBe(RUNS.length);
  await runsIn(lab, 'done', 120_000);
  const last = STEPS - 1;

  const inspector = page.getByRole('region', { name: 'Rollouts' });
  for (const run of RUNS) {
    // The run's line: a count, its number alone in the labelled output, its index in the tooltip.
    const line = page.locator(`.run-status[data-run="${run}"]`);
    const counter = line.locator('.counter');
    expect(await page.getByLabel(`${run} steps done`, { exact: true }).textContent()).toBe(String(STEPS));
    expect((await counter.textContent())?.trim()).toBe(`${STEPS} steps`);
    expect(await counter.getAttribute('title')).toBe(
      `Steps done: ${STEPS}, steps 0–${last} (the charts, Rollouts and What differs number steps from 0)`,
    );
    expect(await line.textContent()).not.toMatch(/\bstep \d/); // no index on the line that counts

    // Rollouts: the last step's batch, by its index.
    await inspector.getByRole('tab', { name: run, exact: true }).click();
    await expect
      .poll(() => inspector.locator('.inspector-head .muted').textContent(), { timeout: 30_000 })
      .toMatch(new RegExp(`^step ${last} · `));
  }

  // What differs: the batches it read end at the same last step.
  await expect
    .poll(() => page.getByTestId('what-differs-summary').textContent(), { timeout: 30_000 })
    .toMatch(new RegExp(`last (batch \\(step ${last}\\)|\\d+ batches \\(steps \\d+–${last}\\))`));

  // A chart read with the keyboard starts at its last point: the same step. The pointer goes to a
  // corner first: left where Rollouts' tab was clicked, it can end up over a chart once focusing
  // scrolls the page, and that chart's hover (or its leaving) then replaces the keyboard's.
  await page.mouse.move(0, 0);
  const layer = page.locator(`figure.chart[data-points="${STEPS}"] rect[tabindex="0"]`).first();
  await layer.focus();
  expect(await page.locator('.chart-tip-step').textContent()).toBe(`step ${last}`);
  expect(lab.errors).toEqual([]);
});
