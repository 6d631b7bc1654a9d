/**
 * A live field shows what the run uses. A learning rate sent to the runs is shown as "sent" only
 * until they take it, and only in the session it was sent to: a new session from a preset trains
 * at the preset's learning rate, and its field says so (it showed the old session's value, "sent:
 * applies at the next step", for every later session). A refused live value reads as the page's
 * other fields read ("must be more than 0", not zod's "Too small: expected number to be >0").
 */
import { afterEach, expect, it } from 'vitest';
import { PRESETS } from '../../src/core/presets';
import { TINY, openLab, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('after a live change, a new session from a preset shows the learning rate it trains at', async () => {
  lab = await openLab(`${TINY}&steps=50`);
  const { page } = lab;
  await trainEnabled(page);
  await page.locator('#speed').selectOption('3000'); // slow, so Pause lands early
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 1));
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.locator('#speed').selectOption('0');

  const lr = page.locator('#live-lr');
  const field = page.locator('.live-field', { has: lr });
  await lr.fill('0.001');
  await lr.press('Enter');
  // Both runs record the step they take it at (the link gains their schedule entries).
  await expect
    .poll(() => (page.url().match(/runs\.\d\.live\.\d+\.optim\.lr=0\.001/g) ?? []).length, {
      timeout: 60_000,
    })
    .toBe(2);
  expect(await lr.inputValue()).toBe('0.001');

  // A new session from the sync preset: its runs train at the preset's learning rate.
  const sync = PRESETS.find((p) => p.id === 'sync')!;
  await page.getByRole('button', { name: sync.title }).click(); // its title, then its id
  await page.getByRole('button', { name: 'Start a new session', exact: true }).click();
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 1));
  expect(page.url()).not.toMatch(/\.live\./);
  expect(await lr.inputValue()).toBe(String(sync.config.optim.lr));
  expect(await field.getAttribute('data-pending')).toBeNull();
  expect(await field.locator('.live-pending').count()).toBe(0);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  expect(lab.errors).toEqual([]);
}, 300_000);

it('a refused live value is said in the page’s words, as every other field says it', async () => {
  lab = await openLab(TINY);
  const { page } = lab;
  await trainEnabled(page);
  const lr = page.locator('#live-lr');
  await lr.fill('0');
  await lr.press('Enter');
  // zod said "Too small: expected number to be >0"; the Experiment fields say "must be more than 0".
  await expect.poll(() => page.locator('#live-lr-error').textContent()).toBe('must be more than 0');
  expect(await lr.getAttribute('aria-invalid')).toBe('true');
  await lr.fill('0.001');
  await lr.press('Enter');
  await expect.poll(() => page.locator('#live-lr-error').count()).toBe(0);
  expect(lab.errors).toEqual([]);
});
