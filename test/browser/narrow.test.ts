/**
 * A phone's window (400 × 800 px): the sticky header stays at most 120 px whatever the number of
 * runs (it took about 285 px with 9 runs: one status line each), the runs folded into one line
 * that opens their list, and whatever the session's state (a finished one, N = 200, took 140 px,
 * reloaded 188 px: Continue now reads "Continue [N] more steps", the restored note is in the list); and the Go to… menu brings the rollouts and the presets, thousands of
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
/** How far Speed sits from N's row: under 12 px, beside it. */
const speedOffset = (l: Lab) =>
  l.page.evaluate(() => {
    const [n, speed] = ['.controls .continue input', '#speed'].map(
      (s) => document.querySelector(s)!.getBoundingClientRect().top,
    );
    return Math.abs(n - speed);
  });

/** A two-step session trained to its end in a 400 px window (the test's lab, closed after it). */
async function finishedAt400(): Promise<Lab> {
  const l = (lab = await openLab(`${TINY}&steps=2`));
  await l.page.setViewportSize({ width: 400, height: 800 });
  await trainEnabled(l.page);
  await l.page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(l, 'done', 120_000);
  return l;
}

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
    expect(await summary.textContent()).toMatch(/^ ?9 repeats: .* · \d+(–\d+)? steps? /);
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
    expect(await summary.textContent()).toMatch(/9 repeats: 9 done · 3 steps /);
    expect(await barsHeight(lab), 'done').toBeLessThanOrEqual(HEADER_MAX);
    expect(lab.errors).toEqual([]);
  });

  it('a finished session’s N shows its whole value: the default experiment’s 200, not "20"', async () => {
    lab = await finishedAt400();
    const { page } = lab;
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
    expect(await speedOffset(lab), 'Speed beside N = 2').toBeLessThan(12);
    expect(lab.errors).toEqual([]);
  });

  it('a finished session’s header, and a reloaded one’s, stays at most 120 px with N = 200', async () => {
    lab = await finishedAt400();
    const { page } = lab;
    // It measured 140 px: Continue for 200 more steps, N, then Speed on a row of its own.
    const n = page.getByLabel('More steps');
    const header = async (when: string) => {
      await n.fill('200'); // the default experiment's N
      // Said "Continue [200] more steps" in the row, named in full.
      const go = page.getByRole('button', { name: 'Continue for 200 more steps', exact: true });
      await go.waitFor();
      // What shows of it is "Continue", about 70 px (206 px before).
      expect((await go.boundingBox())!.width, when).toBeLessThan(100);
      expect((await page.locator('.controls .continue label').innerText()).trim(), when).toBe('more steps');
      expect(await speedOffset(lab!), `${when}: Speed beside N = 200`).toBeLessThan(12);
      expect(await barsHeight(lab!), when).toBeLessThanOrEqual(HEADER_MAX);
    };
    await header('finished');
    // Reloaded (it measured 188 px): the restored note goes with the runs' folded list.
    await page.reload();
    await page.locator('section[data-loaded="true"]').waitFor({ timeout: 15_000 });
    await page.getByTestId('restored-note').waitFor({ state: 'attached', timeout: 15_000 });
    await page.getByRole('button', { name: 'Run again', exact: true }).waitFor();
    // Once the backend is checked: until then "Checking which backend can run it…" takes a line
    // of its own under the controls' three rows (docs/charts.md#narrow-windows says so).
    await expect.poll(() => page.getByTestId('train-reasons').count(), { timeout: 30_000 }).toBe(0);
    await header('reloaded');
    const note = page.getByTestId('restored-note');
    expect(await note.isVisible()).toBe(false);
    await page.locator('.runs-summary').click();
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/^restored from .* — finished: Run again starts over/);
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
