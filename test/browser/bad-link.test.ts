/**
 * Bad links in real headless Chromium: a 50 KB link is refused without the page scrolling
 * sideways (its echo made the page 370,429 px wide), at 1440 and 400 px, and at 400 px the
 * refusal is on the first screen; a link with bad fields offers to open it with those fields at
 * their defaults, naming them, and that keeps the rest of the link; a misspelt field's suggestion
 * is taken with the link's value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openLab } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const width = (l: Lab) =>
  l.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);

describe('a link that cannot be opened', () => {
  for (const w of [1440, 400])
    it(`a 50 KB link at ${w} px: refused, cut and wrapped, on the first screen`, async () => {
      const huge = `#v=1&task=sync&runs.0.label=${'x'.repeat(50_000)}`;
      lab = await openLab(huge);
      const { page } = lab;
      await page.setViewportSize({ width: w, height: 800 });
      const alert = page.getByTestId('url-alert');
      await alert.waitFor();
      const [scroll, client] = await width(lab);
      expect(scroll, 'page width vs window').toBe(client);
      const echo = await page.getByTestId('bad-link').textContent();
      expect(echo).toBe(`${huge.slice(0, 200)}… (${huge.length.toLocaleString('en-US')} characters)`);
      const box = (await alert.boundingBox())!;
      expect(box.y, 'the alert starts on the first screen').toBeLessThan(800 / 2);
      expect(lab.errors).toEqual([]);
    });

  it('offers to open it with its bad fields at their defaults, naming them, and keeps the rest', async () => {
    lab = await openLab('#v=1&task=sync&steps=7&optim.lr=banana&rollout.groupSize=999');
    const { page } = lab;
    const open = page.getByTestId('open-without');
    await open.waitFor();
    expect(await open.textContent()).toBe(
      'Open it with Learning rate (optim.lr) and Group size G (rollout.groupSize) at their defaults',
    );
    await open.click();
    await expect.poll(() => page.getByTestId('url-alert').count()).toBe(0);
    const hash = await page.evaluate(() => location.hash);
    expect(hash).toContain('task=sync');
    expect(hash).toContain('steps=7');
    expect(hash).not.toMatch(/optim\.lr|groupSize/);
    expect(await page.locator('dd[data-field=Task]').textContent()).toBe('sync');
    expect(lab.errors).toEqual([]);
  });

  it('takes a misspelt field’s suggestion with the link’s value, not the default', async () => {
    lab = await openLab('#v=1&task=sync&steps=7&optim.lrr=0.02&G=4');
    const { page } = lab;
    const open = page.getByTestId('open-without');
    await open.waitFor();
    expect(await open.textContent()).toBe(
      'Open it with optim.lrr as Learning rate (optim.lr) and G as Group size G (rollout.groupSize)',
    );
    await open.click();
    await expect.poll(() => page.getByTestId('url-alert').count()).toBe(0);
    const hash = await page.evaluate(() => location.hash);
    expect(hash).toMatch(/[#&]optim\.lr=0\.02(&|$)/);
    expect(hash).toMatch(/[#&]rollout\.groupSize=4(&|$)/);
    expect(hash).toContain('steps=7');
    expect(hash).not.toMatch(/lrr|[#&]G=/);
    expect(await page.getByLabel('Group size G').inputValue()).toBe('4');
    expect(await page.locator('#live-lr').inputValue()).toBe('0.02');
    expect(lab.errors).toEqual([]);
  });
});
