/**
 * A sweep carried by a link, trained by the page: `sweep.optim.lr=0.001,0.002` over a tiny sync
 * experiment (2 cells × GRPO and Dr. MAS × 2 seeds, 3 steps, wasm). The cells' runs share the
 * page's bounded worker queue; once they are done the Map shows both dial values with a
 * paired-difference row, and its CSV and JSON are what the pure sweep-map code gives for the
 * frames each cell's runs recorded (exported per cell, picked for the board in the Map). The same
 * sweep run by `lab sweep` on the same backend gives the same numbers: every run's summary, bit
 * for bit, and `lab report` prints the Map's CSV. Copy link carries the sweep; a sweep over the
 * page's limit is refused, pointing to lab sweep.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { encodeLink } from '../../src/core/url';
import { csvText, nanAsNull } from '../../src/report/findings';
import { REWARD_TAIL } from '../../src/report/summary';
import { decodeSweepLink, MAX_LINK_RUNS } from '../../src/rl/sweep';
import type { SweepFile } from '../../src/rl/sweep';
import { cellSummaries, loadSweep, sweepMapCells } from '../../src/report/sweep-map';
import { workerSlots } from '../../src/workers/run-start';
import { agentsOf } from '../../src/ui/sweep-open';
import { cli as runCli, csvCells, textCells } from '../cli/map-sweep';
import { clipboardWrite, openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';

// wasm, as lab sweep trains (auto could pick WebGPU, whose numbers differ in the last bits).
const EXPERIMENT =
  'v=1&task=sync&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&seeds=2&steps=3&backend=wasm';
const LINK = `${EXPERIMENT}&sweep.optim.lr=0.001,0.002`;

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** The same sweep run by `lab sweep`: its folder read as the Map reads one, and `lab report`'s table. */
let cli: { cells: unknown; report: string[][] } = { cells: null, report: [] };
beforeAll(() => {
  const out = join(mkdtempSync(join(tmpdir(), 'agentwise-link-sweep-')), 'lr');
  const grid = ['--grid', 'optim.lr=0.001,0.002', '--steps', '3'];
  const run = runCli(['sweep', '--config', EXPERIMENT, ...grid, '--out', out, '--workers', '2', '--quiet']);
  expect(run.status, run.stderr).toBe(0);
  const r = runCli(['report', out]);
  expect(r.status, r.stderr).toBe(0);
  const read = (path: string) =>
    existsSync(join(out, path)) ? readFileSync(join(out, path), 'utf8') : undefined;
  cli = {
    cells: JSON.parse(JSON.stringify(loadSweep(out, read, agentsOf, REWARD_TAIL).cells, nanAsNull)),
    report: textCells(r.stdout.trimEnd().split('\n').slice(1).join('\n')),
  };
}, 600_000);

/** The file a click downloads, as text. */
async function downloaded(lab: Lab, click: () => Promise<void>): Promise<string> {
  const [file] = await Promise.all([lab.page.waitForEvent('download'), click()]);
  return readFileSync((await file.path())!, 'utf8');
}

it('trains a link sweep on the page’s workers and maps it from the cells’ own frames', async () => {
  lab = await openLab(`#${LINK}`);
  const { page } = lab;
  const map = page.getByTestId('sweep-map');
  // The address bar and Copy link keep the sweep.
  const opened = decodeSweepLink(LINK);
  expect(opened.ok).toBe(true);
  const canonical = encodeLink(opened.config, opened.sweep);
  expect(canonical).toContain('&sweep.optim.lr=0.001,0.002');
  await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#${canonical}`);
  const origin = new URL(page.url()).origin;
  await clipboardWrite(lab, 'denied');
  await page.getByRole('button', { name: 'Copy link' }).click();
  expect(await page.getByRole('textbox', { name: 'Link to this experiment' }).inputValue()).toBe(
    `${origin}/#${canonical}`,
  );
  expect(await map.getByTestId('link-sweep').textContent()).toContain(
    'This link carries a sweep: optim.lr = 0.001,0.002 (2 cells, 8 runs).',
  );
  expect(await map.getByTestId('link-sweep-unstored').textContent()).toContain('not stored');

  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // Every cell's runs in the one queue: at most workerSlots() workers, cell 0's runs first.
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  // The runs' lines come once the session starts (a task after the click), all eight at once.
  await expect.poll(() => page.locator('.run-status').count(), { timeout: 20_000 }).toBe(8);
  const states = await page.$$eval('.run-status', (lis) =>
    lis.map((li) => `${li.getAttribute('data-cell')}:${li.getAttribute('data-state')}`),
  );
  expect(states).toHaveLength(8);
  expect(states.filter((s) => s.endsWith(':queued'))).toHaveLength(Math.max(0, 8 - workerSlots(cores)));
  // Cell after cell: no run of a later cell trains while one of an earlier cell waits.
  const cellsOf = (queued: boolean) =>
    states.filter((s) => s.endsWith(':queued') === queued).map((s) => Number(s.split(':')[0]));
  expect(Math.max(...cellsOf(false))).toBeLessThanOrEqual(Math.min(...cellsOf(true)));
  expect(await page.locator('.run-status strong').first().textContent()).toBe('optim.lr = 0.001 · GRPO #0');

  await runsIn(lab, 'done', 300_000);
  await expect
    .poll(() => map.getByTestId('map-status').textContent(), { timeout: 30_000 })
    .toContain('this link’s sweep: 2 cells (2 recorded) × 2 runs × 2 seeds, 3 steps');
  expect(await map.getByTestId('map-x').inputValue()).toBe('optim.lr');
  expect(await map.getByTestId('map-legend').textContent()).toContain('Dr. MAS − GRPO');
  // Both dial values along x, each point a paired difference with its verdict.
  const reward = map.locator('figure[data-map-chart="reward (last 10)"] circle[data-verdict] title');
  expect(await reward.allTextContents()).toEqual([
    'Dr. MAS − GRPO at optim.lr = 0.001: 0 ± 0 (identical)',
    'Dr. MAS − GRPO at optim.lr = 0.002: 0 ± 0 (identical)',
  ]);

  const csv = csvCells(
    await downloaded(lab, () => map.getByRole('button', { name: 'Download map CSV' }).click()),
  );
  const json = JSON.parse(
    await downloaded(lab, () => map.getByRole('button', { name: 'Download map JSON' }).click()),
  ) as { sweep: SweepFile; cells: { params: Record<string, unknown>; summaries: unknown[] }[] };
  expect(csv[0]).toEqual(['figure', 'optim.lr', 'steps', 'seeds', 'Dr. MAS − GRPO', 'verdict']);
  expect(csv.find((r) => r[0] === 'reward (last 10)' && r[1] === '0.002')?.slice(2)).toEqual([
    '3',
    '2',
    '0.000 ± 0.000',
    'identical',
  ]);

  // Each cell on the board in turn: its runs' exported frames summarized as lab report does.
  const cells = [];
  for (const [i, cell] of json.sweep.cells.entries()) {
    await map.getByTestId('map-cell').selectOption(String(i));
    const exported = JSON.parse(
      await downloaded(lab, () => page.getByRole('button', { name: 'Download JSON', exact: true }).click()),
    ) as { experiment: typeof opened.config; runs: { label: string; rows: Record<string, number>[] }[] };
    expect(exported.experiment.optim.lr).toBe(cell.params['optim.lr']);
    expect(exported.runs.map((r) => [r.label, r.rows.length])).toEqual([
      ['GRPO #0', 3],
      ['GRPO #1', 3],
      ['Dr. MAS #0', 3],
      ['Dr. MAS #1', 3],
    ]);
    const rows = exported.runs.flatMap((r) => r.rows.map((metrics) => ({ run: r.label, metrics })));
    const summaries = cellSummaries(exported.experiment, agentsOf(exported.experiment), rows, REWARD_TAIL);
    expect(JSON.parse(JSON.stringify(summaries, nanAsNull))).toEqual(json.cells[i].summaries);
    cells.push({ params: cell.params, summaries });
  }
  // The grad norms differ between the two learning rates: each cell's numbers are its own runs'.
  expect(json.cells[0].summaries).not.toEqual(json.cells[1].summaries);
  expect(csvCells(csvText(sweepMapCells(json.sweep.grid, cells)))).toEqual(csv);
  // The same sweep run by lab sweep on the same backend: the same numbers, and lab report prints this table.
  expect(json.cells).toEqual(cli.cells);
  expect(csv).toEqual(cli.report);
  expect(lab.errors).toEqual([]);
}, 600_000);

it(`refuses a link sweep over ${MAX_LINK_RUNS} runs, naming its key and pointing to lab sweep`, async () => {
  lab = await openLab(`#v=1&task=sync&seeds=8&sweep.optim.lr=0.001,0.002,0.003`);
  const alert = lab.page.getByTestId('url-alert');
  await alert.waitFor({ timeout: 30_000 });
  const text = await alert.textContent();
  expect(text).toContain('sweep.optim.lr');
  expect(text).toContain(`3 cells × 2 runs × 8 seeds is 48 runs; the page trains at most ${MAX_LINK_RUNS}`);
  expect(text).toContain('lab sweep (npm run lab -- sweep --config');
  expect(await lab.page.getByTestId('link-sweep').count()).toBe(0);
}, 120_000);
