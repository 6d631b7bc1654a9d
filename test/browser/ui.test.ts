/**
 * The lab UI in real headless Chromium, training for real (wasm under `auto`) on a tiny sync
 * experiment: Train, per-run step counters, charts for both runs, Pause, Step, a live
 * hyper-parameter with its chart marker, the rollout inspector, CSV export and the URL round
 * trip; then a long-task measurement while two runs train (figures printed, loosely bounded).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALL_WASM_KERNELS,
  downloadCsv,
  observeLongTasks,
  openLab,
  RUNS,
  savedAtSteps,
  stepCounts,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';

const TINY = '#v=1&task=sync&rollout.batchSize=2&rollout.groupSize=4&eval.every=0';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const steps = stepCounts;

/** Waits until every run says `state` (the worker finished its step and stopped). */
const waitState = (l: Lab, state: string) =>
  l.page.waitForFunction(
    (st) => {
      const lis = [...document.querySelectorAll('.run-status')];
      return lis.length === 2 && lis.every((li) => li.getAttribute('data-state') === st);
    },
    state,
    { timeout: 60_000 },
  );

describe('training from the page', () => {
  it('trains both runs, charts them, pauses, steps, exports and round-trips the link', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    const train = page.getByRole('button', { name: 'Train', exact: true });
    await trainEnabled(page, 120_000);
    await train.click();
    await waitSteps(lab, (s) => s.every((n) => n >= 2));
    // auto picked wasm here, and the lab's fused SIMD kernels run the model in the workers.
    expect(await page.getByTestId('kernels').textContent()).toBe(ALL_WASM_KERNELS);

    // Charts: a line per agent for each run, in the run's colour.
    const colors = await page.$$eval('.legend [data-run-color]', (bs) =>
      bs.map((b) => b.getAttribute('data-run-color')),
    );
    expect(colors).toHaveLength(2);
    // Polled: a chart refreshes at its turn (chart-pump.ts), and its first drawing may predate the
    // other run's first frame, so a single read right after the first line appears can see one run.
    const strokesOf = (figure: string) => () =>
      page
        .locator(`figure[aria-label="${figure}"] .series`)
        .evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
    // A chart draws once it is on screen (chart-refresh.ts): bring the per-agent one there at each
    // poll, since cards that appear above it while the runs train (What differs, Findings) can push
    // it back off screen after one scroll (CI failed so at 90 s once, its chart never drawn).
    const perAgent = page.locator('figure[aria-label="μk · reward mean"]');
    for (const c of colors)
      await expect
        .poll(
          async () => {
            await perAgent.scrollIntoViewIfNeeded();
            return (await strokesOf('μk · reward mean')()).filter((s) => s === c).length;
          },
          {
            // Generous: on a loaded 2-core machine the chart pump's turn comes late (failed at 30 s
            // twice under a load average of 15; 25 s for the whole test when quiet).
            timeout: 90_000,
          },
        )
        .toBeGreaterThanOrEqual(2); // 2 agents, smoothed
    for (const c of colors) await expect.poll(strokesOf('Reward'), { timeout: 90_000 }).toContain(c);

    // Pause stops the counters.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await waitState(lab, 'paused');
    // A run's last save can be answered after it says 'paused' (steps and saves reach the status bar
    // at the next tick, run-data.ts TICK_MS): read the counters once each run's state is saved at them.
    await savedAtSteps(lab);
    const paused = await steps(lab);
    await page.waitForTimeout(1500);
    expect(await steps(lab)).toEqual(paused);
    // A paused run's throughput is not shown (its last step's said nothing about now).
    expect(new Set(await page.locator('.run-status .tps').allTextContents())).toEqual(new Set(['– tok/s']));

    // Step advances every run by exactly one.
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n, i) => n === paused[i] + 1), 60_000);
    await page.waitForTimeout(1500);
    expect(await steps(lab)).toEqual(paused.map((n) => n + 1));

    // Hover: the chart under the pointer shows a tooltip (the step, each run's value there); the
    // other charts show a cursor at the same step. Off-screen charts are not drawn, so the window is
    // made tall enough for the Reward and μk charts both to be on screen, from the top, under the What
    // differs card and Findings.
    await page.setViewportSize({ width: 1280, height: 1600 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const plot = page.locator('figure[aria-label="Reward"] .series-layer > rect');
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.9, box.y + box.height / 2);
    const tip = page.locator('figure[aria-label="Reward"] [role="tooltip"]');
    await tip.waitFor({ timeout: 10_000 });
    const tipLines = (await tip.locator('div').allTextContents()).map((t) => t.trim());
    const hovered = Number(/^step (\d+)$/.exec(tipLines[0])?.[1]);
    expect(hovered).toBeGreaterThanOrEqual(1);
    expect(hovered).toBeLessThanOrEqual(Math.max(...paused) + 1);
    for (const r of RUNS) {
      const line = tipLines.find((l) => l.startsWith(`${r}:`));
      expect(Number(line?.split(':')[1])).toBeGreaterThanOrEqual(0); // reward ∈ [0, 1]
      expect(Number(line?.split(':')[1])).toBeLessThanOrEqual(1);
    }
    // Polled: each other chart draws its cursor at its turn in the chart pump, after the tooltip's.
    await expect
      .poll(() => page.locator('figure[aria-label="μk · reward mean"] line.hover-cursor').count())
      .toBe(1);
    expect(await page.locator('[role="tooltip"]').count()).toBe(1);
    // A screen reader is told nothing under the pointer: the live region stays empty.
    const reading = page.locator('figure[aria-label="Reward"] [data-testid="chart-reading"]');
    expect(await reading.textContent()).toBe('');
    await page.mouse.move(1, 1);
    await tip.waitFor({ state: 'detached' });
    expect(await page.locator('line.hover-cursor').count()).toBe(0);
    // The same from the keyboard: focus shows the last step, arrows walk, Escape leaves.
    const tipStep = async () =>
      Number(/^step (\d+)$/.exec((await tip.locator('div').first().textContent()) ?? '')?.[1]);
    await plot.focus();
    await tip.waitFor();
    const last = await tipStep();
    expect(last).toBe(Math.max(...paused)); // paused + 1 steps taken; frames count them from 0
    // …and a screen reader hears the same: the step and each run's value, again at each move.
    const heard = new RegExp(`^step ${last}: ${RUNS.map((r) => `${r} −?\\d`).join('.*, ')}`);
    await expect.poll(() => reading.textContent()).toMatch(heard);
    await plot.press('ArrowLeft');
    await expect.poll(tipStep).toBe(last - 1);
    await expect.poll(() => reading.textContent()).toMatch(new RegExp(`^step ${last - 1}: `));
    await plot.press('Home');
    await expect.poll(tipStep).toBe(0);
    await plot.press('Escape');
    await tip.waitFor({ state: 'detached' });
    // A keyboard reading stays when the pointer leaves another chart: only that chart's own ends.
    const other = (await page
      .locator('figure[aria-label="μk · reward mean"] .series-layer > rect')
      .boundingBox())!;
    await page.mouse.move(other.x + other.width / 2, other.y + other.height / 2);
    await plot.press('End'); // the plot kept its focus: the keyboard reads it again
    await tip.waitFor();
    await page.mouse.move(1, 1);
    await page.waitForTimeout(300);
    expect(await tipStep()).toBe(last);
    await plot.press('Escape');
    await tip.waitFor({ state: 'detached' });

    // A live learning rate: no reset, the link follows, a marker appears on the charts.
    const lr = page.getByLabel('learning rate');
    await lr.fill('0.001');
    await lr.press('Enter');
    const marker = page.locator('figure.chart .recharts-label', { hasText: 'lr=0.001' });
    await marker.first().waitFor({ state: 'attached', timeout: 30_000 });
    expect(await page.evaluate(() => location.hash)).toContain('optim.lr=0.001');
    expect(await steps(lab)).toEqual(paused.map((n) => n + 1));

    // The rollout inspector shows turns with colour-coded advantages and per-token log-probs.
    const inspector = page.getByRole('region', { name: 'Rollouts' });
    await inspector.locator('.turn').first().waitFor();
    expect(await inspector.locator('.adv').first().textContent()).toMatch(/A = −?\d/); // the page's minus sign
    expect(await inspector.locator('.tok').first().getAttribute('title')).toMatch(/log p = −?\d/);

    // CSV export: the metric columns, one row per run per step.
    const { header, rows: exported } = await downloadCsv(page);
    expect(header.slice(0, 3)).toEqual(['run', 'seed', 'step']);
    expect(header).toContain('reward/mean');
    expect(header).toContain('agent/alice/amplification');
    const done = await steps(lab);
    for (const [i, r] of RUNS.entries()) {
      const rows = exported.filter((cells) => cells[0] === r);
      expect(rows.length).toBe(done[i]);
      expect(rows.length).toBeGreaterThanOrEqual(2);
    }

    // One chart as a PNG image.
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Reward as PNG' }).click(),
    ]);
    expect(png.suggestedFilename()).toBe('agentwise-reward.png');
    expect(
      readFileSync((await png.path())!)
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    // A structural change (a preset) resets the session once the user chooses a new one; the link
    // taken before it reopens the experiment.
    const link = await page.evaluate(() => location.href);
    const summary = await page.getByTestId('experiment-summary').textContent();
    await page.getByRole('button', { name: 'Synchronous control (identical by theory)' }).click();
    await page.getByRole('button', { name: 'Start a new session' }).click();
    await page.getByText('No runs yet').waitFor();
    expect(await page.getByRole('button', { name: 'Reset' }).isDisabled()).toBe(true);
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByTestId('experiment-summary').waitFor();
    expect(await page.evaluate(() => location.href)).toBe(link);
    expect(await page.getByTestId('experiment-summary').textContent()).toBe(summary);
    expect(await page.getByLabel('learning rate').inputValue()).toBe('0.001');
    expect(lab.errors).toEqual([]);
  });

  it('keeps the page responsive while two runs train (long tasks measured)', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page, 120_000);
    await observeLongTasks(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n) => n >= 1));
    await page.evaluate(() => ((window as unknown as { longTasks: number[] }).longTasks.length = 0)); // warm-up excluded
    const seconds = 10;
    const before = await steps(lab);
    await page.waitForTimeout(seconds * 1000);
    const after = await steps(lab);
    const { tasks, charts } = await page.evaluate(() => ({
      tasks: (window as unknown as { longTasks: number[] }).longTasks,
      charts: performance.getEntriesByName('chart').map((e) => e.duration),
    }));
    const sorted = [...tasks].sort((a, b) => a - b);
    const q = (p: number) =>
      sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]) : 0;
    const figures = {
      seconds,
      steps: after.map((n, i) => n - before[i]),
      longTasks: tasks.length,
      longTaskMs: {
        total: Math.round(tasks.reduce((a, b) => a + b, 0)),
        median: q(0.5),
        p90: q(0.9),
        max: q(1),
      },
      chartRefreshes: charts.length,
      chartRefreshMsMedian: Math.round([...charts].sort((a, b) => a - b)[charts.length >> 1] ?? 0),
    };
    console.log('[ui long tasks]', JSON.stringify(figures));
    // Behaviour, not speed: both runs advanced and the charts kept redrawing while they trained.
    // How long the main thread was blocked is a figure, printed above and bounded by `npm run
    // bench:ui` on a quiet machine: as a threshold here it failed whenever the machine was loaded.
    expect(after.every((n, i) => n > before[i])).toBe(true);
    expect(figures.chartRefreshes).toBeGreaterThan(0);
    expect(lab.errors).toEqual([]);
  });
});
