/**
 * The Findings view in real headless Chromium, on the tiny sync experiment over 2 seeds: the four
 * run instances share a bounded set of workers (the rest wait in a visible queue), and once all
 * are done the page's findings table is exactly what the CLI's pure code (summarize +
 * compareSeeds) computes from the page's own exported metrics: the same numbers as `lab report`;
 * at 400 px each figure's numbers sit under its name, inside the window.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { compareSeeds, comparisonCsv } from '../../src/report/findings';
import { summarize } from '../../src/report/summary';
import { workerSlots } from '../../src/workers/run-start';
import { downloadCsv, openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('Findings: seeds=2 queue for workers, then mean ± CI, paired differences and verdicts, as lab report computes them', async () => {
  lab = await openLab(
    '#v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&seeds=2&steps=4&eval.every=2&eval.k=2&eval.questions=2',
  );
  const { page } = lab;
  await trainEnabled(page);
  // Before Train there is nothing to compare.
  expect(await page.getByTestId('findings').count()).toBe(0);
  await page.getByRole('button', { name: 'Train', exact: true }).click();

  // 2 runs × 2 seeds: at most workerSlots() workers at once, the others queued, visibly.
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const states = await page.$$eval('.run-status', (lis) => lis.map((li) => li.getAttribute('data-state')));
  expect(states).toHaveLength(4);
  expect(states.filter((s) => s === 'queued')).toHaveLength(Math.max(0, 4 - workerSlots(cores)));
  if (cores <= 2) await page.getByText('queued for a free worker (1 of 2)').waitFor();

  await runsIn(lab, 'done', 240_000);
  const findings = page.getByTestId('findings');
  await expect
    .poll(() => page.getByTestId('findings-status').textContent(), { timeout: 10_000 })
    .toMatch(/^All 4 repeats \(2 runs × 2 seeds\) done · 4 steps recorded per repeat/);
  // sync is the control: GRPO and Dr. MAS are the same run in every seed.
  const reward = findings.locator('tr[data-figure="reward (last 10)"]');
  expect(await reward.locator('td[data-verdict]').textContent()).toBe('identical on all 2 seeds');
  // The verdict leads its row, named in words (the short name, the CSV's, on hover).
  expect(await reward.locator('th, td').nth(1).getAttribute('data-verdict')).toBe('identical');
  expect(await reward.locator('th').textContent()).toBe('training reward, mean over the last 10 steps');
  // The same-batch charts are titled by the estimators' labels, their registry docs in the tooltip.
  const sameBatch = page.locator('figure[aria-label="E[A²] weighed by Dr. MAS"] figcaption');
  expect(await sameBatch.getAttribute('title')).toContain(
    'Dr. MAS (drmas): Dr. MAS agent-wise normalization (arXiv 2602.08847',
  );
  // N of the reward row is a control (lab report --tail N): 2 of the 4 steps.
  await findings.getByLabel('Training reward over the last').fill('2');
  await expect
    .poll(() => findings.locator('tr[data-figure="reward (last 2)"] td[data-verdict]').textContent())
    .toBe('identical on all 2 seeds');
  expect(await findings.locator('tr[data-figure="eval avg@2"] td.num').first().textContent()).toMatch(
    /^\d\.\d{3} ± \d\.\d{3}$/,
  );
  expect(await findings.locator('tr[data-figure="skipped updates"]').count()).toBe(1);
  expect(await findings.locator('tr[data-figure="alice |g| max"]').count()).toBe(1);

  // The page's findings, exported, equal the CLI's code (lab report --tail 2) run on the page's exported metrics.
  const [csv] = await Promise.all([
    page.waitForEvent('download'),
    findings.getByRole('button', { name: 'Download findings CSV' }).click(),
  ]);
  const { header, rows: lines } = await downloadCsv(page);
  const runs = [...new Set(lines.map((l) => `${l[0]}|${l[1]}`))];
  const summaries = runs.map((r) => {
    const [label, seed] = r.split('|');
    const history = lines
      .filter((l) => l[0] === label && l[1] === seed)
      .map((l) => Object.fromEntries(header.map((k, i) => [k, l[i] === '' ? NaN : Number(l[i])])));
    return summarize(label, Number(seed), history, ['alice', 'bob'], 2, 2); // eval k 2, reward tail 2 (the field above)
  });
  expect(summaries.map((s) => s.steps)).toEqual([4, 4, 4, 4]);
  // It names its experiment (no preset's: its runs and task) and its link on every row.
  const source = { experiment: 'GRPO vs Dr. MAS on sync, its settings in the link', link: page.url() };
  expect(readFileSync((await csv.path())!, 'utf8')).toBe(comparisonCsv(compareSeeds(summaries), source));

  // At 400 px each figure is a block: its name across the panel, then its verdict, each run's mean
  // and the paired difference, each under the name and named by its column, inside the window (the
  // table was 704 px wide in a 351 px box, the name squeezed to ~70 px, the numbers off to the side).
  const row = findings.locator('tr[data-figure="eval avg@2"]');
  const rowLayout = () =>
    row.evaluate((tr) => {
      const name = tr.querySelector('th')!.getBoundingClientRect();
      const cells = [...tr.querySelectorAll('td')].map((td) => {
        const r = td.getBoundingClientRect();
        const shown = !['none', 'normal'].includes(getComputedStyle(td, '::before').content);
        return { top: r.top, right: r.right, label: shown ? td.dataset.label : undefined };
      });
      const table = document.querySelector('[data-testid="findings"] .findings-table')!;
      return {
        name: { width: name.width, bottom: name.bottom, top: name.top },
        cells,
        table: table.getBoundingClientRect().width,
        box: table.parentElement!.clientWidth,
        window: document.documentElement.clientWidth,
      };
    });
  await page.setViewportSize({ width: 400, height: 800 });
  await expect.poll(async () => (await rowLayout()).table).toBeLessThanOrEqual(400);
  const narrow = await rowLayout();
  expect(narrow.table, 'table width vs its box at 400 px').toBeLessThanOrEqual(narrow.box + 1);
  expect(narrow.name.width, "the figure's name across the panel").toBeGreaterThan(300);
  expect(narrow.cells).toHaveLength(4); // a verdict, two runs' means, a paired difference
  for (const c of narrow.cells) {
    expect(c.right, `${c.label} inside the window`).toBeLessThanOrEqual(narrow.window);
    expect(c.top, `${c.label} under the name`).toBeGreaterThanOrEqual(narrow.name.bottom - 1);
  }
  expect(narrow.cells.map((c) => c.label)).toEqual([
    'verdict: Dr. MAS vs GRPO',
    'GRPO',
    'Dr. MAS',
    'Dr. MAS − GRPO (paired)',
  ]);
  // Wide, a table row as before: the numbers beside the name, no label in the cells.
  await page.setViewportSize({ width: 1440, height: 900 });
  const wide = await rowLayout();
  for (const c of wide.cells) {
    expect(c.top, 'a cell beside the name').toBeLessThan(wide.name.bottom - 1);
    expect(c.label).toBeUndefined();
  }
  expect(lab.errors).toEqual([]);
});

it('a reload while runs wait in the queue: the started runs resume as saved, the queued ones start from step 0', async () => {
  lab = await openLab('#v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&seeds=2&steps=5&eval.every=0');
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // The first two runs are done (and saved); the other two are queued (nothing saved) or training.
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('.run-status[data-state="done"]')].filter((li) =>
        li.textContent?.includes('saved after 5 steps'),
      ).length >= 2,
    null,
    { timeout: 120_000 },
  );
  await page.reload();
  await page.locator('.run-status .state', { hasText: 'restored' }).first().waitFor({ timeout: 30_000 });
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(lab, 'done', 240_000);
  await expect
    .poll(() => page.getByTestId('findings-status').textContent(), { timeout: 10_000 })
    .toMatch(/^All 4 repeats \(2 runs × 2 seeds\) done · 5 steps recorded per repeat/);
  expect(await page.getByTestId('session-alert').count()).toBe(0);
  const { header, rows: lines } = await downloadCsv(page);
  for (const run of ['GRPO #0', 'GRPO #1', 'Dr. MAS #0', 'Dr. MAS #1']) {
    // Every step once: the resumed runs keep theirs, the ones that never started computed theirs from 0.
    expect(lines.filter((l) => l[0] === run).map((l) => Number(l[header.indexOf('step')]))).toEqual([
      0, 1, 2, 3, 4,
    ]);
  }
  expect(lab.errors).toEqual([]);
});
