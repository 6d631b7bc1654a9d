/**
 * The page's layout in real headless Chromium at a wide (1440 px), a narrow (800 px) and a phone's (400 px) window,
 * with two runs trained a few steps so the status bar holds its longest line (backend, threads,
 * speed, kernels): nothing widens the page past the window, every chart's CSV / PNG buttons stay
 * inside its card whatever the title's length, and the sticky header, status bar and chart legend
 * never cover one another when the page is scrolled (the header wraps at 800 px; the status bar
 * has a line per run; at 400 px the legend is not sticky, so no chart title goes under it), and
 * with many runs × seeds the sticky bar stays a strip; a long reason for Train being off (an
 * opened result's) keeps the header one row at 1440 px, the reason one line, and so does a
 * finished session's Run again and Continue for 200 more steps, Speed beside them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeResult } from '../../src/report/result-file';
import { smallBody } from '../report/result-fixture';
import { TINY, dropLoose, openLab, runsIn, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** Every chart whose tools (CSV, PNG, …) reach past its card's right edge, with by how many px. */
const toolsOutside = (l: Lab) =>
  l.page.$$eval('figure.chart', (figs) =>
    figs.flatMap((f) => {
      const tools = f.querySelector('.chart-tools')!.getBoundingClientRect();
      const card = f.getBoundingClientRect();
      return tools.right > card.right - 1
        ? [`${f.getAttribute('aria-label')}: ${Math.round(tools.right - card.right)} px`]
        : [];
    }),
  );

/** The sticky bars' boxes (top, bottom) after scrolling the charts under them. */
const stuck = (l: Lab) =>
  l.page.evaluate(() => {
    const box = (sel: string) => {
      const r = document.querySelector(sel)!.getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom) };
    };
    const copy = document.querySelector('header.top button[aria-label="Copy link"]')!.getBoundingClientRect();
    const atCopy = document.elementFromPoint(copy.x + copy.width / 2, copy.y + copy.height / 2);
    return {
      header: box('header.top'),
      status: box('[aria-label="Run status"]'),
      legend: box('.legend'),
      copyOnTop: atCopy?.getAttribute('aria-label') === 'Copy link',
    };
  });

describe('layout', () => {
  it('many runs × seeds: the sticky status bar stays a strip whose run list scrolls, not a wall over the page', async () => {
    lab = await openLab(`${TINY}&seeds=8`);
    const { page } = lab;
    await page.setViewportSize({ width: 800, height: 900 });
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await expect.poll(() => page.locator('.run-status').count(), { timeout: 30_000 }).toBe(16);
    const [bars, list] = await page.evaluate(() => {
      const l = document.querySelector('.runs-status')!;
      return [
        document.querySelector('.top-bars')!.getBoundingClientRect().height,
        [l.scrollHeight, l.clientHeight],
      ];
    });
    expect(bars, 'sticky block height').toBeLessThan(900 / 2);
    expect(list[0], 'the run list scrolls').toBeGreaterThan(list[1]);
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    expect(lab.errors).toEqual([]);
  });

  it('a long reason Train is off for keeps the header one row at 1440 px and the reason one line at 400', async () => {
    const name = 'a-long-result-name-as-a-cluster-job-writes-it-with-its-run-and-date.lab.json.gz';
    const path = join(mkdtempSync(join(tmpdir(), 'agentwise-layout-')), name);
    writeFileSync(path, writeResult(smallBody()));
    lab = await openLab();
    const { page } = lab;
    await page.setViewportSize({ width: 1440, height: 900 });
    await trainEnabled(page);
    await dropLoose(lab, { [name]: path });
    await page.getByTestId('opened-banner').waitFor();
    // Done elsewhere: no Run again or Continue (a finished session's) beside the reason.
    expect(await page.getByRole('button', { name: 'Run again', exact: true }).count()).toBe(0);
    const reasons = page.getByTestId('train-reasons');
    const measure = () =>
      page.evaluate(() => {
        const box = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
        const list = document.querySelector('[data-testid="train-reasons"]')!;
        return {
          header: box('header.top').height,
          bars: box('.top-bars').height,
          // The buttons' row: the heading, Train, Speed and Copy link side by side.
          rows: (() => {
            const tops = ['h1', '.controls .primary', '#speed', 'header.top .copy-link'].map(
              (s) => box(s).top,
            );
            return Math.max(...tops) - Math.min(...tops);
          })(),
          line: [list.clientHeight, parseFloat(getComputedStyle(list).lineHeight) || 16],
          cut: list.scrollWidth > list.clientWidth,
        };
      });
    const wide = await measure();
    // It took three rows (about 125 px) with the reason wrapped beside Speed.
    expect(wide.header, 'header at 1440').toBeLessThanOrEqual(64);
    expect(wide.rows, 'one row of controls: their tops px apart').toBeLessThan(24);
    expect(wide.line[0], 'the reason one line').toBeLessThan(wide.line[1] * 1.5);
    expect(wide.cut).toBe(true);
    // Whole on hover, and to a screen reader.
    expect(await reasons.getAttribute('title')).toContain(
      `${name} is a result opened read-only (Train it here, in its banner, trains its experiment here beside it)`,
    );
    expect(await reasons.textContent()).toContain('trains its experiment here beside it');

    await page.setViewportSize({ width: 400, height: 800 });
    const narrow = await measure();
    expect(narrow.line[0], 'the reason one line at 400').toBeLessThan(narrow.line[1] * 1.5);
    expect(narrow.bars, 'sticky block at 400').toBeLessThanOrEqual(170);
    expect(lab.errors).toEqual([]);
  });

  it('a finished session keeps the header one row at 1440 px: Speed beside Continue for 200 more steps', async () => {
    lab = await openLab(`${TINY}&steps=2`);
    const { page } = lab;
    await page.setViewportSize({ width: 1440, height: 900 });
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 120_000);
    // The header at its widest: Run again, Continue for N more steps with the default experiment's 200.
    await page.getByLabel('More steps').fill('200');
    await page.getByRole('button', { name: 'Continue for 200 more steps', exact: true }).waitFor();
    const boxes = await page.evaluate(() =>
      [
        'h1',
        '.controls .primary',
        '.controls .continue button',
        '.controls .continue input',
        '#speed',
        'header.top .copy-link',
        'header.top .jump-menu',
        'header.top .past-sessions',
      ].map((sel) => {
        const r = document.querySelector(sel)!.getBoundingClientRect();
        return { sel, top: r.top, bottom: r.bottom, left: r.left, right: r.right };
      }),
    );
    // Speed went under the buttons, a second row (the header 64 px high instead of 41).
    const tops = boxes.map((b) => b.top);
    expect(Math.max(...tops) - Math.min(...tops), 'one row: their tops px apart').toBeLessThan(24);
    // Nothing is hidden to make it fit: every part is inside the window, and none covers another.
    for (const b of boxes) expect([b.sel, b.left >= 0 && b.right <= 1440]).toEqual([b.sel, true]);
    const byLeft = [...boxes].sort((a, b) => a.left - b.left);
    for (let i = 1; i < byLeft.length; i++)
      expect(byLeft[i].left, `${byLeft[i].sel} after ${byLeft[i - 1].sel}`).toBeGreaterThanOrEqual(
        byLeft[i - 1].right - 1,
      );
    expect(await page.$eval('header.top', (e) => e.getBoundingClientRect().height)).toBeLessThanOrEqual(48);
    expect(lab.errors).toEqual([]);
  });

  for (const width of [1440, 800, 400]) {
    it(`at ${width} px: no sideways scroll, chart tools inside their cards, sticky bars apart`, async () => {
      lab = await openLab(TINY);
      const { page } = lab;
      await page.setViewportSize({ width, height: 900 });
      await trainEnabled(page);
      await page.getByRole('button', { name: 'Train', exact: true }).click();
      await waitSteps(lab, (s) => s.every((n) => n >= 2));
      // The status bar's longest form (below 600 px the details hide and the words are cut instead).
      if (width > 600) await page.getByTestId('kernels').waitFor();
      else await page.locator('.backend-words').waitFor();
      await page.getByRole('button', { name: 'Pause', exact: true }).click();
      await runsIn(lab, 'paused');

      const widths = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ]);
      expect(widths[0], 'page width vs window').toBeLessThanOrEqual(widths[1]);
      expect(await toolsOutside(lab)).toEqual([]);
      // Where it runs and how fast are read whole, never cut by an ellipsis; below 600 px the figure
      // comes first and the place wraps to a second line beside the runs' summary (it was cut:
      // "test step: 24 ms · CPU (Web…").
      for (const part of width > 600 ? ['.backend-words'] : ['.backend-figure', '.backend-where']) {
        const words = await page.$eval(part, (e) => [e.scrollWidth, e.clientWidth, e.textContent]);
        expect(words[0], `backend words cut: ${words[2]}`).toBeLessThanOrEqual(Number(words[1]) + 1);
      }
      expect(await page.$eval('.backend-figure', (e) => e.textContent)).toMatch(/test step: \d+ ms$/);

      // What differs is read at every width before the charts (at 400 px it sat below some 20 of
      // them, 4,600 px down), on the first screens; no sweep, so no Map.
      await page.getByTestId('what-differs').waitFor(); // it follows the runs up to 2 s late
      const top = (sel: string) => page.$eval(sel, (e) => e.getBoundingClientRect().top + window.scrollY);
      expect(await page.getByTestId('sweep-map').count()).toBe(0);
      expect(await top('[data-testid="what-differs"]')).toBeLessThan(await top('figure.chart'));
      expect(await top('[data-testid="what-differs"]'), 'What differs within two screens').toBeLessThan(1800);

      await page.locator('figure.chart').last().scrollIntoViewIfNeeded();
      const s = await stuck(lab);
      // The sticky block is opaque: the page scrolling under it never shows between its bars.
      expect(await page.$eval('.top-bars', (e) => getComputedStyle(e).backgroundColor)).not.toBe(
        'rgba(0, 0, 0, 0)',
      );
      expect(s.copyOnTop, 'Copy link is not covered').toBe(true);
      expect(s.status.top).toBeGreaterThanOrEqual(s.header.bottom - 1);
      if (width <= 600) {
        // The legend is not sticky in a narrow window (it stays above the board), so a chart's
        // title scrolled to just under the sticky bars is read whole: nothing sticky covers it (the
        // legend, three rows stuck under the header, hid it and a quarter of the window).
        const covered = await page.evaluate(() => {
          const bars = document.querySelector('.top-bars')!.getBoundingClientRect().bottom;
          const title = document.querySelectorAll('figure.chart figcaption')[4];
          window.scrollBy(0, title.getBoundingClientRect().top - bars - 4);
          const r = title.getBoundingClientRect();
          return [0.1, 0.5, 0.9].flatMap((f) => {
            const at = document.elementFromPoint(r.left + f * r.width, r.top + Math.min(8, r.height / 2));
            return at && title.contains(at) ? [] : [at?.className || at?.tagName || 'nothing'];
          });
        });
        expect(covered, 'what covers the chart title under the bars').toEqual([]);
        expect(await page.$eval('.legend', (e) => getComputedStyle(e).position)).toBe('static');
        expect(lab.errors).toEqual([]);
        return;
      }
      // Wider, it sticks under the bars.
      expect(s.legend.top).toBeGreaterThanOrEqual(s.status.bottom - 1);
      expect(s.legend.top, 'the legend sticks under the bars').toBeLessThanOrEqual(s.status.bottom + 2);
      // The legend's toggles can be clicked where they stick.
      const grpo = page.locator('.legend button', { hasText: 'GRPO' }).first();
      const b = (await grpo.boundingBox())!;
      expect(
        await page.evaluate(
          ([x, y]) => document.elementFromPoint(x, y)?.closest('.legend') !== null,
          [b.x + b.width / 2, b.y + b.height / 2],
        ),
      ).toBe(true);
      expect(lab.errors).toEqual([]);
    });
  }
});
