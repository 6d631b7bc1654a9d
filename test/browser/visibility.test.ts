/**
 * A hidden tab pauses training (nobody is watching, and browsers throttle hidden pages); showing
 * it again resumes at the exact step. Visibility is switched the way the browser reports it.
 */
import { afterEach, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openLab, runsIn, savedAtSteps, stepCounts, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const setVisibility = (page: Page, state: 'hidden' | 'visible') =>
  page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
    Object.defineProperty(document, 'hidden', { value: s === 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);

it('pauses when the tab is hidden and resumes where it stopped when shown', async () => {
  lab = await openLab('#v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=0');
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect
    .poll(async () => Math.min(...(await stepCounts(lab!))), { timeout: 120_000 })
    .toBeGreaterThanOrEqual(1);

  await setVisibility(page, 'hidden');
  // The step in flight finishes; after that the counters hold still.
  await runsIn(lab, 'paused', 60_000);
  // A run can say 'paused' before its last step's frame reaches the counters: read them once each
  // run's state is saved at its counter (a run saves when it pauses).
  await savedAtSteps(lab);
  const held = await stepCounts(lab);
  await page.waitForTimeout(2000);
  expect(await stepCounts(lab)).toEqual(held);

  await setVisibility(page, 'visible');
  await expect
    .poll(async () => Math.min(...(await stepCounts(lab!))), { timeout: 60_000 })
    .toBeGreaterThan(Math.max(...held));
  expect(lab.errors).toEqual([]);
});
