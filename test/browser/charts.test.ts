/**
 * The chart board in real Chromium with real training: a flat chart (KL and clip fraction under
 * one optimizer step per batch) moves under "More charts" with its reason; amplification's
 * reference line runs along the lines of agents that carry their trajectory's score; the log-y toggle
 * redraws the y axis on a log scale; a chart's PNG has its title and both runs' names drawn in
 * the image (measured in its pixels, not read from the DOM); and the page fits narrow windows,
 * where no chart title is cut off.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FLAT_MIN_STEPS } from '../../src/core/flat';
import { agentSameBatchKey } from '../../src/core/metrics';
import { RUNS, TINY, openLab, runsIn, stepCounts, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

/** The board's longest title on the default runs (a same-batch chart of Dr. MAS). */
const LONG_TITLE = 'Correlation of Dr. MAS with the run’s own';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

async function trainTo(l: Lab, steps: number) {
  await trainEnabled(l.page);
  await l.page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(l, (s) => s.every((n) => n >= steps));
  await l.page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(l, 'paused');
}

/** The y axis's ticks of a chart: value (its label) and pixel height. */
const yTicks = (l: Lab, chart: string) =>
  l.page.$$eval(`figure[aria-label="${chart}"] .recharts-yAxis-tick-labels text`, (ts) =>
    ts.map((t) => ({ v: Number(t.textContent), y: Number(t.getAttribute('y')) })),
  );

/**
 * Every chart title the board cuts short: wider than the box that shows it (an ellipsis or an
 * overflow), named with both widths.
 */
const cutTitles = (l: Lab) =>
  l.page.$$eval('figure.chart .chart-title', (ts) =>
    ts
      .filter((t) => t.scrollWidth > t.clientWidth)
      .map(
        (t) => `${t.closest('figure')!.getAttribute('aria-label')}: ${t.scrollWidth} > ${t.clientWidth} px`,
      ),
  );

/** A chart's title: how many lines its text takes, and its hover text. */
const titleOf = (l: Lab, chart: string) =>
  l.page.locator(`figure[aria-label="${chart}"] .chart-title`).evaluate((t) => {
    const text = document.createRange();
    text.selectNodeContents(t.firstChild!); // the title's text, before its "?" help button
    return {
      text: t.firstChild!.textContent,
      lines: new Set([...text.getClientRects()].map((r) => Math.round(r.top))).size,
      hover: t.getAttribute('title'),
    };
  });

/**
 * In the page: decodes a PNG and measures its ink. The title band (the image's top rows) must hold
 * ink as wide as the title measured with canvas text metrics in the same font; right of each
 * run's colour swatch in the legend band, ink as wide as that run's name.
 */
function measurePng(a: { png: string; title: string; runs: { name: string; color: string }[] }) {
  return (async () => {
    const img = new Image();
    img.src = `data:image/png;base64,${a.png}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    const at = (x: number, y: number) => px.slice((y * c.width + x) * 4, (y * c.width + x) * 4 + 3);
    const ink = (x: number, y: number) => at(x, y).reduce((s, v) => s + v, 0) < 700;
    const inkSpan = (y0: number, y1: number, x0: number, x1: number) => {
      let lo = Infinity;
      let hi = -Infinity;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++)
          if (ink(x, y)) {
            lo = Math.min(lo, x);
            hi = Math.max(hi, x);
          }
      return hi >= lo ? hi - lo + 1 : 0;
    };
    const family = getComputedStyle(document.documentElement).fontFamily;
    const width = (text: string, font: string) => {
      ctx.font = font;
      return ctx.measureText(text).width;
    };
    // 2×: the title's 14 px line starts 10 px down.
    const title = { ink: inkSpan(20, 56, 0, c.width), measured: width(a.title, `600 28px ${family}`) };
    const hex = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
    const runs = a.runs.map(({ name, color }) => {
      const rgb = hex(color);
      // The swatch: the first row below the title holding the run's colour, and its right end.
      for (let y = 56; y < c.height; y++) {
        let right = -1;
        for (let x = 0; x < c.width / 2 + 200 && x < c.width; x++) {
          const p = at(x, y);
          if (p.every((v, i) => Math.abs(v - rgb[i]) < 40)) right = x;
          else if (right >= 0) break;
        }
        if (right < 0) continue;
        // The name: ink right of the swatch, up to the first gap wider than a space.
        let end = right + 4;
        for (let x = right + 4, gap = 0; x < c.width && gap < 14; x++)
          if (inkSpan(y - 14, y + 12, x, x + 1) > 0 && !at(x, y).every((v, i) => Math.abs(v - rgb[i]) < 40)) {
            end = x;
            gap = 0;
          } else gap++;
        return {
          name,
          ink: inkSpan(y - 14, y + 12, right + 4, end + 1),
          measured: width(name, `24px ${family}`),
        };
      }
      return { name, ink: 0, measured: width(name, `24px ${family}`) };
    });
    return { size: [c.width, c.height], title, runs };
  })();
}

describe('chart board', () => {
  it('a flat chart moves under More charts with its reason; the log toggle redraws the axis; the PNG names title and runs', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await page.setViewportSize({ width: 1440, height: 900 });
    await trainTo(lab, FLAT_MIN_STEPS);

    // One optimizer step per batch: KL and clip fraction are flat, and say why.
    const kl = page.locator('.more-charts li[data-more-chart="kl"]');
    await kl.waitFor({ timeout: 30_000 });
    expect(await kl.textContent()).toMatch(
      /^KL \(π_old ‖ π\): constant 0 over \d+ steps: one optimizer step per batch/,
    );
    expect(await page.locator('.more-charts li[data-more-chart="clipfrac"]').textContent()).toMatch(
      /^Clip fraction: constant 0 over \d+ steps/,
    );
    expect(await page.locator('figure[aria-label="KL (π_old ‖ π)"]').count()).toBe(0);
    await page.locator('figure[aria-label="Reward"]').waitFor();
    await page.getByRole('button', { name: 'Show these charts' }).click();
    await page.locator('figure[aria-label="KL (π_old ‖ π)"]').waitFor();

    // Help popover: the registry's sentence and formula.
    await page.getByRole('button', { name: 'What is Amplification?' }).click();
    expect(await page.getByRole('note', { name: 'About Amplification' }).textContent()).toContain(
      '(σk² + (μk − μ)²) / σ²',
    );

    // Amplification's dashed line is where it reads "not at all", (G − 1)/G (σ the unbiased
    // spread): on sync every agent's rows carry their trajectory's score, so at G = 2 every line
    // runs along it, at 0.5 (it was drawn at 1).
    const amp = page.locator('figure[aria-label="Amplification"]');
    await amp.scrollIntoViewIfNeeded();
    const alongRef = () =>
      amp.evaluate((f) => {
        const ref = f.querySelector('.recharts-reference-line line');
        const ys = [...f.querySelectorAll('path.series-line')].flatMap((p) =>
          [...(p.getAttribute('d') ?? '').matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1])),
        );
        const at = Number(ref?.getAttribute('y1'));
        return {
          level: ref?.getAttribute('y'),
          points: ys.length > 0,
          off: ys.filter((y) => Math.abs(y - at) > 0.5).length,
        };
      });
    await expect.poll(alongRef, { timeout: 30_000 }).toEqual({ level: '0.5', points: true, off: 0 });

    // Log y on the grad norm: ticks at 1, 2, 5 × 10^e, evenly spaced in log(value).
    const chart = 'Pre-clip grad norm';
    await page.locator(`figure[aria-label="${chart}"] .recharts-yAxis-tick-labels`).waitFor();
    // A chart spanning more than two decades starts on log ('auto', plot.ts); unticked, it is linear.
    const box = page.locator(`figure[aria-label="${chart}"]`).getByLabel('log y');
    if (await box.isChecked()) {
      expect(await page.locator(`figure[aria-label="${chart}"] [data-log]`).getAttribute('data-log')).toBe(
        'auto',
      );
      await box.uncheck();
      await expect.poll(() => box.isChecked()).toBe(false);
    }
    const linear = await yTicks(lab, chart);
    await box.check();
    await expect.poll(async () => JSON.stringify(await yTicks(lab!, chart))).not.toBe(JSON.stringify(linear));
    // Polled too: `linear` may have been read before the chart's redraw with the last frame (its
    // turn in chart-pump.ts), and that redraw, still linear, differs from it as well.
    const mantissa = (v: number) => Number((v / 10 ** Math.floor(Math.log10(v))).toFixed(6));
    const logTicks = async () => {
      const ticks = await yTicks(lab!, chart);
      return ticks.length >= 2 && ticks.every(({ v }) => [1, 2, 5].includes(mantissa(v)));
    };
    await expect.poll(logTicks, { timeout: 30_000 }).toBe(true);
    const log = await yTicks(lab, chart);
    expect(log.length).toBeGreaterThanOrEqual(2);
    for (const { v } of log) expect([1, 2, 5]).toContain(mantissa(v));
    const perDecade = log.slice(1).map((t, i) => (log[i].y - t.y) / Math.log10(t.v / log[i].v));
    for (const d of perDecade) expect(d).toBeCloseTo(perDecade[0], 0);

    // The Reward chart's PNG: its title and both runs' names drawn into the image.
    const colors = await page.$$eval('.legend [data-run-color]', (bs) =>
      bs.map((b) => b.getAttribute('data-run-color')!),
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Reward as PNG' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('agentwise-reward.png');
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    const png = Buffer.concat(chunks).toString('base64');
    const m = await page.evaluate(measurePng, {
      png,
      title: 'Reward',
      runs: RUNS.map((name, i) => ({ name, color: colors[i] })),
    });
    const width = await page
      .locator('figure[aria-label="Reward"] svg.recharts-surface')
      .evaluate((s) => s.getBoundingClientRect().width);
    expect(m.size[0], '2× the chart').toBeGreaterThanOrEqual(2 * width);
    expect(m.title.ink, 'title band').toBeGreaterThan(0);
    expect(
      Math.abs(m.title.ink - m.title.measured),
      `title ink ${m.title.ink} vs ${m.title.measured}`,
    ).toBeLessThan(8);
    for (const r of m.runs)
      expect(Math.abs(r.ink - r.measured), `${r.name}: ink ${r.ink} vs ${r.measured}`).toBeLessThan(8);

    // The same layout as SVG, whose words stay text: a readable y axis name (not the key), what the
    // data spans (the axis rounds past it), and the experiment's name and link, cut to the width.
    const [svgFile] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Reward as SVG' }).click(),
    ]);
    const texts = [
      ...readFileSync((await svgFile.path())!, 'utf8').matchAll(/<text [^>]*>([^<]*)<\/text>/g),
    ].map((t) => t[1].replace(/&amp;/g, '&'));
    const last = Math.max(...(await stepCounts(lab)));
    expect(texts).toContain('Reward');
    expect(texts).not.toContain('reward/mean');
    expect(texts.find((t) => t.startsWith('Data: '))).toMatch(
      new RegExp(`^Data: steps 0–${last - 1}; reward/mean from -?[\\d.]+ to -?[\\d.]+\\.$`),
    );
    expect(texts.join(' ')).toContain('Experiment: GRPO vs Dr. MAS on sync, its settings in the link.');
    const link = texts.slice(texts.findIndex((t) => t.startsWith('Link: '))).join('');
    expect(link.startsWith(`Link: ${page.url()}`), link).toBe(true); // the axes' tick labels follow
    expect(lab.errors).toEqual([]);
  });

  it('a chart is one keyboard stop past its buttons: Tab from SVG lands on the plot, which reads a step', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await page.setViewportSize({ width: 1440, height: 900 });
    await trainTo(lab, 2);
    const figure = page.locator('figure[aria-label="Reward"]');
    await figure.locator('.series-layer > rect').waitFor(); // drawn at the chart's turn
    await figure.getByRole('button', { name: 'Download Reward as SVG' }).focus();
    await page.keyboard.press('Tab');
    // recharts' accessibility layer made its <svg> a stop first: role="application", no name, and
    // arrows there read nothing (the page draws its own hover, SeriesLayer).
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Reward: the arrow keys read the values step by step',
    );
    expect(await figure.locator('[role="application"], svg[tabindex]').count()).toBe(0);
    await expect
      .poll(() => figure.getByTestId('chart-reading').textContent())
      .toMatch(new RegExp(`^step \\d+: ${RUNS.map((r) => `${r} −?\\d`).join('.*, ')}`));
    expect(lab.errors).toEqual([]);
  });

  it('a keyboard reading at the newest step follows the runs as the chart redraws; moved off it, it stays', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await page.setViewportSize({ width: 1440, height: 900 });
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n) => n >= 3));
    const figure = page.locator('figure[aria-label="Reward"]');
    const reading = figure.getByTestId('chart-reading');
    const readStep = async () => Number(/^step (\d+):/.exec((await reading.textContent()) ?? '')?.[1]);
    // Focused while the runs train (the focus stays on the plot): it reads the newest step drawn…
    await figure.locator('.series-layer > rect').focus();
    await expect.poll(readStep).toBeGreaterThanOrEqual(1);
    const first = await readStep();
    // …and the chart's next turns draw later steps, which the reading goes on to.
    await expect.poll(readStep, { timeout: 30_000 }).toBeGreaterThan(first + 2);
    // One step back from the end: the reading stays there while the lines grow past it.
    await page.keyboard.press('ArrowLeft');
    const held = await readStep();
    await waitSteps(lab, (s) => s.every((n) => n >= held + 8));
    await page.waitForTimeout(1500); // the chart's next turn, at most a second away
    expect(await readStep()).toBe(held);
    expect(lab.errors).toEqual([]);
  });

  it('narrow and wide windows: no sideways scroll, a short sticky header, charts first at 800 px, titles whole', async () => {
    // Exactly two steps, with Step: What differs, above the charts, grows with the batches it has
    // read, so a pause that lands a few steps late (the counters are up to a tick behind) moved them down.
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page);
    for (const n of [1, 2]) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await waitSteps(lab, (s) => s.every((x) => x >= n));
      await runsIn(lab, 'paused');
    }
    // The backend in plain words; the details (backend name, threads, kernels) on hover.
    expect(await page.locator('.backend-words').textContent()).toMatch(
      /^Running on this computer's CPU \(WebAssembly, \d+ threads?\), test step: \d+ ms$/,
    );
    const hover = await page.locator('.backend-chip').getAttribute('title');
    expect(hover).toContain('kernels: fused wasm SIMD');
    // The figure is the backend check's step, and the hover says it is not a run's.
    expect(hover).toMatch(
      /Test step: one \w+ train step on 256 tokens, timed to choose this backend\. Not a run's step/,
    );
    for (const [width, height] of [
      [400, 800],
      [800, 900],
      [1440, 900],
    ]) {
      await page.setViewportSize({ width, height });
      await page.evaluate(() => window.scrollTo(0, 0));
      // Measured once the layout has settled: the charts re-fit their width in a resize observer a
      // frame after the window changes, and for that frame they keep the old one.
      await page
        .waitForFunction(
          () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
          null,
          { timeout: 10_000 },
        )
        .catch(() => {}); // a real overflow stays and is named by the assertion below
      const m = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        header: document.querySelector('.top-bars')!.getBoundingClientRect().height,
        chartTop: document.querySelector('figure.chart')!.getBoundingClientRect().top,
      }));
      expect(m.scroll, `page width at ${width} px`).toBeLessThanOrEqual(m.client);
      expect(m.header, `sticky header at ${width} px`).toBeLessThanOrEqual(0.15 * height);
      if (width <= 900) expect(m.chartTop, `first chart at ${width} px`).toBeLessThan(height);
      // No title is cut off: a long one wraps, whole, and its hover text is its metric key.
      expect(await cutTitles(lab), `titles cut at ${width} px`).toEqual([]);
      const long = await titleOf(lab, LONG_TITLE);
      expect(long.text).toBe(LONG_TITLE);
      expect(long.hover).toBe(agentSameBatchKey('·', 'drmas', 'corr'));
      // At 400 px it is longer than its card is wide, so it takes a second line rather than an ellipsis.
      if (width === 400) expect(long.lines, 'lines of the long title at 400 px').toBeGreaterThan(1);
    }
    expect(lab.errors).toEqual([]);
  });
});
