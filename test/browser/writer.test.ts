/**
 * One writer per stored session, and a page closed mid-step. A second tab of the same browser
 * that opens a session the first tab is training shows it read-only (Train and Step off, saying
 * why) and offers Take over only once the first tab is gone; taken over, the session goes on from
 * its saved states, and every run's exported steps are 0…steps-1, each once. Without the lock both
 * tabs trained and saved into the one session, mixing two histories. A tab that pauses lets the
 * session go, so the second tab takes it over then; the first, told to train again, finds it taken
 * and turns read-only, writing nothing into it. Then a page reloaded at any moment of training
 * (no pause, no save on the way out) loses at most the step in progress, and goes on with no step
 * missing or repeated.
 */
import { afterEach, expect, it } from 'vitest';
import {
  RUNS,
  TINY,
  everyStep,
  exportedSteps,
  openLab,
  resumedAt,
  runsIn,
  stepCounts,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';
import type { Page } from 'playwright-core';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const setSpeed = (p: Page, label: string) =>
  p.getByRole('combobox', { name: 'Speed', exact: true }).selectOption({ label });

/**
 * The first tab trains slowly (so the second comes while it trains); a second tab of the same
 * browser opens the same link and shows the stored session. Its errors are its own.
 */
async function secondTab(l: Lab): Promise<{ second: Lab; errors: string[] }> {
  const first = l.page;
  await trainEnabled(first);
  await setSpeed(first, '1 s between steps');
  await first.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(l, (s) => s.every((n) => n >= 2));
  const page = await l.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(first.url());
  await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
  return { second: { ...l, page }, errors };
}

it('a second tab shows a session being trained read-only and takes it over once the first closes', async () => {
  const STEPS = 24;
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const first = lab.page;
  const { second, errors } = await secondTab(lab);
  const { page } = second;
  const reasons = page.getByTestId('train-reasons');
  await reasons.filter({ hasText: 'Another tab is training this session' }).waitFor({ timeout: 15_000 });
  expect(await reasons.textContent()).toContain('it is shown here read-only');
  // The status bar's note offers no Train either (it once said "Train goes on from each run's saved step").
  expect(await page.getByTestId('restored-note').textContent()).toContain(
    'read-only, as stored when this tab opened it; another tab is training it',
  );
  for (const name of ['Train', 'Step'])
    expect(await page.getByRole('button', { name, exact: true }).isDisabled()).toBe(true);
  const takeOver = page.getByRole('button', { name: 'Take over', exact: true });
  expect(await takeOver.isDisabled()).toBe(true);

  // The first tab goes on and is closed in the middle of a step.
  await waitSteps(lab, (s) => s.every((n) => n >= 12), 120_000);
  expect(await takeOver.isDisabled()).toBe(true);
  const shown = await stepCounts(lab);
  await first.close();
  await expect.poll(() => takeOver.isEnabled(), { timeout: 30_000 }).toBe(true);
  expect(await reasons.textContent()).toContain('The tab that trained this session has stopped');
  await takeOver.click();
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  // Polled: the session can say done before the last step's frame reaches the counters.
  await expect.poll(() => stepCounts(second), { timeout: 30_000 }).toEqual([STEPS, STEPS]);
  // Taken over from the states the first tab saved, into the same session: it lost at most the
  // step in progress (a run saves after every step).
  (await resumedAt(second)).forEach((n, i) => expect(n).toBeGreaterThanOrEqual(shown[i] - 1));
  expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(1);
  expect(await exportedSteps(page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  expect(errors).toEqual([]);
});

it('a paused tab lets the session go to a second tab; told to train again, it turns read-only', async () => {
  const STEPS = 24;
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const first = lab.page;
  const { second, errors } = await secondTab(lab);
  const { page } = second;
  const takeOver = page.getByRole('button', { name: 'Take over', exact: true });
  await page
    .getByTestId('train-reasons')
    .filter({ hasText: 'Another tab is training this session' })
    .waitFor({ timeout: 15_000 });
  expect(await takeOver.isDisabled()).toBe(true);

  // Paused (each run saves its state as it stops), the first tab lets the session go.
  await waitSteps(lab, (s) => s.every((n) => n >= 12), 120_000);
  await first.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(lab, 'paused', 30_000);
  const paused = await stepCounts(lab);
  await expect.poll(() => takeOver.isEnabled(), { timeout: 30_000 }).toBe(true);
  await setSpeed(page, '1 s between steps');
  await takeOver.click();
  await waitSteps(second, (s) => s.every((n, i) => n > paused[i]), 120_000);
  // From the states the first tab saved as it paused.
  expect(await resumedAt(second)).toEqual(paused);

  // The first tab, told to train again while the second trains: refused, read-only, saying so.
  await first.getByRole('button', { name: 'Resume', exact: true }).click();
  const reasons = first.getByTestId('train-reasons');
  await reasons.filter({ hasText: 'Another tab is training this session' }).waitFor({ timeout: 15_000 });
  expect(await first.getByTestId('session-alert').textContent()).toContain(
    'Another tab took this session over while this tab was stopped',
  );
  for (const name of ['Train', 'Step'])
    expect(await first.getByRole('button', { name, exact: true }).isDisabled()).toBe(true);
  await first.waitForTimeout(2000); // its workers stopped: no step is taken here
  expect(await stepCounts(lab)).toEqual(paused);

  await setSpeed(page, 'full speed');
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  expect(await exportedSteps(page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  // What is stored holds each step once: the first tab wrote nothing after it let the session go.
  const third = await lab.context.newPage();
  await third.goto(first.url());
  await third.getByTestId('restored-note').waitFor({ timeout: 30_000 });
  expect(await exportedSteps(third)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  // The second tab finished and let it go: the first offers Take over.
  await expect
    .poll(() => first.getByRole('button', { name: 'Take over', exact: true }).isEnabled(), {
      timeout: 30_000,
    })
    .toBe(true);
  // Letting go stopped its finished runs without unfinishing them (they once answered 'paused').
  expect(await page.$$eval('.run-status', (lis) => lis.map((li) => li.getAttribute('data-state')))).toEqual([
    'done',
    'done',
  ]);
  expect(await page.locator('.controls').getAttribute('data-state')).toBe('done');
  expect(errors).toEqual([]);
  expect(lab.errors).toEqual([]);
});

it('a page reloaded at any moment of training loses at most the step in progress, none missing or repeated', async () => {
  const STEPS = 40;
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const { page } = lab;
  // The step counters as the page goes away (sessionStorage outlives a reload): what was shown.
  await page.addInitScript((runs) => {
    addEventListener('pagehide', () => {
      const shown = runs.map((r) =>
        Number(document.querySelector(`[aria-label="${r} steps done"]`)?.textContent),
      );
      sessionStorage.setItem('shown', JSON.stringify(shown));
    });
  }, RUNS);
  await page.reload(); // the init script runs from this load on
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // Reloaded at full speed at two moments nothing ties to a save: a run saves after every step,
  // its frames first, so a moment may fall between its frames and its state, or anywhere else.
  for (const at of [7, 23]) {
    await waitSteps(lab, (s) => s.every((n) => n >= at));
    await page.reload();
    const shown = JSON.parse((await page.evaluate(() => sessionStorage.getItem('shown')))!) as number[];
    expect(Math.max(...shown)).toBeLessThan(STEPS);
    await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('restored-note').textContent()).not.toContain('start over');
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    // Each run goes on from the step it showed, or the one before (the step whose state was not
    // yet written when the page went).
    const from = await resumedAt(lab);
    from.forEach((n, i) =>
      expect(shown[i] - n, `${RUNS[i]} showed ${shown[i]}, resumed at ${n}`).toBeLessThanOrEqual(1),
    );
  }
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  expect(await exportedSteps(page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  expect(lab.errors).toEqual([]);
});
