/**
 * A custom estimator from a link, in real headless Chromium on a tiny sync-own experiment: the run
 * list names its definition, it trains, and the same-batch charts weigh its batch by it too, its
 * definition in the tooltip.
 */
import { afterEach, expect, it } from 'vitest';
import { openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('a custom estimator from a link: named by its definition, trained, and weighed in the same-batch charts', async () => {
  lab = await openLab(
    '#v=1&task=sync-own&rollout.batchSize=1&rollout.groupSize=2&steps=2&eval.every=0' +
      '&runs.1.label=mean-only&runs.1.estimator=custom&runs.1.advantage.stdOver=none&reward.scale.alice=4',
  );
  const { page } = lab;
  await trainEnabled(page);
  expect(await page.getByTestId('runs').textContent()).toContain(
    'mean-only — estimator custom (rows; group,agent; none)',
  );
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(lab, 'done', 240_000);
  const custom = page.locator('figure[aria-label="E[A²] weighed by custom"] figcaption');
  expect(await custom.getAttribute('title')).toContain(
    "Here, each run's own: mean-only: rows; group,agent; none.",
  );
  expect(await page.locator('figure[aria-label="E[A²] weighed by Dr. MAS"]').count()).toBe(0);
  expect(await page.locator('figure[aria-label="E[A²] weighed by GRPO"]').count()).toBe(1);
});
