/**
 * Runs compared side by side train side by side, whatever the cores: the 4-run `loss-balance`
 * preset on this 2-core machine trains all four at once (no run queued for a worker), their step
 * counters never more than one apart while they train (src/workers/lockstep.ts). Pause stops all
 * four at one step, and a live change made then takes effect at one step for every run: the link
 * records the same step for each (LabSession.pause and set in src/workers/client.ts).
 */
import { afterEach, expect, it } from 'vitest';
import { presetById } from '../../src/core/presets';
import { encodeExperiment } from '../../src/core/url';
import { openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const preset = presetById('loss-balance')!;
const exp = { ...preset.config, steps: 40, eval: { ...preset.config.eval, every: 0 } };

/** Every run's step counter, read at one moment (one task of the page), in run order. */
const counters = (l: Lab) =>
  l.page.$$eval('[data-testid="step-counter"]', (els) => els.map((e) => Number(e.textContent)));

it('trains the four runs of loss-balance side by side, pauses them at one step and changes them at one step', async () => {
  expect(exp.runs).toHaveLength(4);
  lab = await openLab(`#${encodeExperiment(exp)}`);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // All four start: none waits in a queue for a free worker.
  await page.waitForFunction(() => document.querySelectorAll('.run-status').length === 4);
  expect(await page.locator('.run-status[data-state="queued"]').count()).toBe(0);

  let widest = 0;
  let seen: number[] = [];
  const t0 = Date.now();
  while (!(seen.length === 4 && Math.min(...seen) >= 8)) {
    if (Date.now() - t0 > 300_000) throw new Error(`step counters ${seen.join(', ')} after 300 s`);
    seen = await counters(lab);
    widest = Math.max(widest, Math.max(...seen) - Math.min(...seen));
    await page.waitForTimeout(100);
  }
  expect(seen).toHaveLength(4);
  expect(widest).toBeLessThanOrEqual(1);

  // Pause: all four stop at one step, however their steps were staggered.
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(lab, 'paused', 120_000);
  const paused = await counters(lab);
  expect(new Set(paused).size).toBe(1);
  expect(paused[0]).toBeLessThan(exp.steps);

  // A change made while paused: one step for every run, the next one.
  const lr = page.locator('#live-lr');
  await lr.fill('0.0002');
  await lr.press('Enter');
  const steps = () =>
    [0, 1, 2, 3].map(
      (n) => new RegExp(`runs\\.${n}\\.live\\.(\\d+)\\.optim\\.lr=0\\.0002`).exec(page.url())?.[1],
    );
  await expect.poll(() => steps().every(Boolean), { timeout: 60_000 }).toBe(true);
  expect(steps()).toEqual([0, 1, 2, 3].map(() => String(paused[0])));
  expect(lab.errors).toEqual([]);
}, 420_000);
