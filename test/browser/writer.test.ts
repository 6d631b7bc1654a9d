/**
 * One writer per stored session, and a page closed mid-step. A second tab of the same browser
 * that opens a session the first tab is training shows it read-only (Train and Step off, saying
 * why) and offers Take over only once the first tab is gone; taken over, the session goes on from
 * its saved states, and every run's exported steps are 0…steps-1, each once. Without the lock both
 * tabs trained and saved into the one session, mixing two histories. Then a page reloaded in the
 * middle of training (no pause, no save on the way out) goes on from its last saved state with no
 * step missing or repeated.
 */
import { afterEach, expect, it } from 'vitest';
import {
  RUNS,
  TINY,
  everyStep,
  exportedSteps,
  openLab,
  stepCounts,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** What each run's status says its models started from ("resumed at step 10 (saved on wasm)"). */
const startedFrom = (l: Lab) =>
  Promise.all(RUNS.map((r) => l.page.locator(`.run-status[data-run="${r}"]`).getAttribute('title')));

it('a second tab shows a session being trained read-only and takes it over once the first closes', async () => {
  const STEPS = 24;
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const first = lab.page;
  await trainEnabled(first);
  // Slowly, so the second tab comes while the first trains.
  await first
    .getByRole('combobox', { name: 'Speed', exact: true })
    .selectOption({ label: '1 s between steps' });
  await first.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 2));

  const page = await lab.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(first.url());
  const second: Lab = { ...lab, page };
  await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
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

  // The first tab goes on past its save at step 10 and is closed in the middle of a step.
  await waitSteps(lab, (s) => s.every((n) => n >= 12), 120_000);
  expect(await takeOver.isDisabled()).toBe(true);
  await first.close();
  await expect.poll(() => takeOver.isEnabled(), { timeout: 30_000 }).toBe(true);
  expect(await reasons.textContent()).toContain('The tab that trained this session has stopped');
  await takeOver.click();
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  expect(await stepCounts(second)).toEqual([STEPS, STEPS]);
  // Taken over from the states the first tab saved, into the same session.
  for (const from of await startedFrom(second)) expect(from).toMatch(/resumed at step [12]0\b/);
  expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(1);
  expect(await exportedSteps(page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  expect(errors).toEqual([]);
});

it('a page reloaded mid-step goes on from its last saved state, no step missing or repeated', async () => {
  const STEPS = 200; // at full speed the tiny runs take a few seconds: room to reload in the middle
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // Past the save at step 10, and reloaded while training: the steps after its last save were never saved.
  const at = await waitSteps(lab, (s) => s.every((n) => n >= 12));
  expect(Math.max(...at)).toBeLessThan(STEPS);
  await page.reload();
  await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  for (const from of await startedFrom(lab)) expect(from).toMatch(/resumed at step [1-9]\d*0\b/);
  expect(await exportedSteps(page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  expect(lab.errors).toEqual([]);
});
