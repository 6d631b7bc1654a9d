/**
 * A phone's window (400 × 800 px): the sticky header stays at most 120 px whatever the number of
 * runs (it took about 285 px with 9 runs: one status line each), the runs folded into one line
 * that opens their list; and the Go to… menu brings the rollouts and the presets, thousands of
 * pixels down, and What differs (before the charts, layout.test.ts) under the header in one pick.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TINY, openLab, runsIn, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const HEADER_MAX = 120;
const barsHeight = (l: Lab) =>
  l.page.evaluate(() => document.querySelector('.top-bars')!.getBoundingClientRect().height);

describe('a 400 px window', () => {
  it('with 9 runs the sticky header stays at most 120 px, the runs in one line that opens their list', async () => {
    // Three runs × three seeds: nine repeats, most of them queued for a worker.
    lab = await openLab(`${TINY}&runs.2.estimator=global-step&seeds=3&steps=3`);
    const { page } = lab;
    await page.setViewportSize({ width: 400, height: 800 });
    await trainEnabled(page);
    expect(await barsHeight(lab), 'before Train').toBeLessThanOrEqual(HEADER_MAX);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await expect.poll(() => page.locator('.run-status').count(), { timeout: 30_000 }).toBe(9);
    await page.getByTestId('kernels').waitFor({ state: 'attached' }); // the status line's longest form
    const summary = page.locator('.runs-summary');
    expect(await summary.textContent()).toMatch(/^ ?9 repeats: .* · step \d+(–\d+)?/);
    expect(await barsHeight(lab), 'with 9 runs').toBeLessThanOrEqual(HEADER_MAX);
    expect(await page.locator('.run-status').first().isVisible()).toBe(false);

    // Opened, every run's line is there to read (the list scrolls past a fifth of the window).
    await summary.click();
    expect(await summary.getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('.run-status').first().isVisible()).toBe(true);
    await summary.click();
    expect(await barsHeight(lab), 'folded again').toBeLessThanOrEqual(HEADER_MAX);
    // Done, the header holds its most: Run again and Continue for N more steps.
    await runsIn(lab, 'done', 120_000);
    await page.getByRole('button', { name: 'Run again', exact: true }).waitFor();
    expect(await summary.textContent()).toMatch(/9 repeats: 9 done · step 3/);
    expect(await barsHeight(lab), 'done').toBeLessThanOrEqual(HEADER_MAX);
    expect(lab.errors).toEqual([]);
  });

  it('a finished session’s N shows its whole value: the default experiment’s 200, not "20"', async () => {
    lab = await openLab(`${TINY}&steps=2`);
    const { page } = lab;
    await page.setViewportSize({ width: 400, height: 800 });
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 120_000);
    const n = page.getByLabel('More steps');
    for (const value of ['2', '200', '1000']) {
      await n.fill(value);
      await page.getByRole('button', { name: `Continue for ${value} more steps`, exact: true }).waitFor();
      // The field was 2.5rem at 400 px: "200" scrolled inside it and read "20".
      const [scroll, client] = await n.evaluate((e) => [e.scrollWidth, e.clientWidth]);
      expect(scroll, `N = ${value}: ${scroll} px of text in a ${client} px field`).toBeLessThanOrEqual(
        client,
      );
    }
    // A one-digit N keeps Speed beside it, as before.
    await n.fill('2');
    const tops = await page.evaluate(() =>
      ['.controls .continue input', '#speed'].map(
        (s) => document.querySelector(s)!.getBoundingClientRect().top,
      ),
    );
    expect(Math.abs(tops[0] - tops[1]), 'Speed beside N = 2').toBeLessThan(12);
    expect(lab.errors).toEqual([]);
  });

  it('Go to… brings What differs, the rollouts and the presets under the sticky header', async () => {
    lab = await openLab(`${TINY}&steps=2`);
    const { page } = lab;
    await page.setViewportSize({ width: 400, height: 800 });
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n) => n >= 2));
    await page.getByTestId('what-differs').waitFor();
    const menu = page.getByRole('combobox', { name: 'Go to a part of the page' });
    for (const [part, selector] of [
      ['Rollouts', '.inspector'],
      ['Presets', '.preset-picker'],
      ['What differs', '[data-testid="what-differs"]'],
      ['Charts', 'section.board'],
    ]) {
      // Far down the page before the pick: more than two screens.
      const before = await page.locator(selector).evaluate((e) => e.getBoundingClientRect().top + scrollY);
      if (part === 'Rollouts' || part === 'Presets') expect(before, part).toBeGreaterThan(1600);
      await page.evaluate(() => scrollTo(0, 0));
      await menu.selectOption(part);
      await expect
        .poll(() => page.locator(selector).evaluate((e) => Math.round(e.getBoundingClientRect().top)))
        .toBeGreaterThanOrEqual(Math.floor(await barsHeight(lab!)));
      const top = await page.locator(selector).evaluate((e) => e.getBoundingClientRect().top);
      expect(top, part).toBeLessThan((await barsHeight(lab)) + 20);
    }
    expect(lab.errors).toEqual([]);
  });
});
