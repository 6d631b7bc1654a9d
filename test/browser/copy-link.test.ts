/**
 * "Copy link" where the clipboard is refused (a denied permission; an http:// page off localhost
 * has no clipboard at all): the button does not say "Copied"; the link is shown selected in a
 * field to copy by hand (again on each click), and the field goes when focus leaves it and the button. Where it is allowed, the
 * clipboard holds the page's link.
 */
import { afterEach, expect, it } from 'vitest';
import { clipboardWrite, openLab } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('shows the link to copy by hand when the clipboard is refused, and says Copied only when it copied', async () => {
  lab = await openLab('#v=1&task=math&rollout.groupSize=6');
  const { page } = lab;
  const origin = new URL(page.url()).origin;
  await clipboardWrite(lab, 'denied');
  const button = page.getByRole('button', { name: 'Copy link' });
  await button.click();
  const field = page.getByRole('textbox', { name: 'Link to this experiment' });
  await field.waitFor({ timeout: 10_000 });
  expect(await field.inputValue()).toBe(`${origin}/#v=1&task=math&rollout.groupSize=6`);
  expect(
    await field.evaluate((e: HTMLInputElement) => [
      document.activeElement === e,
      e.selectionStart,
      e.selectionEnd,
    ]),
  ).toEqual([true, 0, (await field.inputValue()).length]);
  expect(await button.textContent()).not.toBe('Copied');
  // Clicked again, the field stays where it is and is selected again.
  // The click focuses the button; the field takes focus back once the clipboard has refused
  // (asynchronously): polled, where a fixed 300 ms could end first on a loaded machine.
  await button.click();
  const link = await field.inputValue();
  await expect
    .poll(() => field.evaluate((e: HTMLInputElement) => [document.activeElement === e, e.selectionEnd]))
    .toEqual([true, link.length]);
  await page.keyboard.press('Tab'); // to the button: the field stays
  expect(await field.count()).toBe(1);
  await page.keyboard.press('Tab'); // focus leaves both: it goes
  await expect.poll(() => field.count()).toBe(0);

  await clipboardWrite(lab, 'granted');
  await lab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await button.click();
  // 'Copied' shows for 1.5 s once writeText resolves, which on a loaded machine can come after the
  // poll's default 1 s: polled for longer (its steps stay under 1.5 s, so it cannot miss the word).
  await expect.poll(() => button.textContent(), { timeout: 15_000 }).toBe('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
    `${origin}/#v=1&task=math&rollout.groupSize=6`,
  );
  expect(await field.count()).toBe(0);
  expect(lab.errors).toEqual([]);
});
