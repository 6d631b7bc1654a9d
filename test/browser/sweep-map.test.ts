/**
 * The Map in the page: a sweep folder written by the real CLI (sync-own, alice's reward scaled
 * ×1 and ×4, shared and per-agent models, GRPO vs Dr. MAS, 2 seeds, 3 steps) opened with the
 * folder picker draws a chart per figure and facet, the facets side by side, a filled point
 * exactly where the CI excludes 0; its CSV download is `lab report`'s table for the folder, cell
 * for cell; a chart exports as a PNG; with Dr. MAS picked as the baseline the pair drawn and
 * downloaded is GRPO − Dr. MAS, the same differences with the sign turned, and the downloads say
 * so; lines by the other dial regroup the same points; a folder without sweep.json is refused in words.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, csvCells, textCells, tinyScaleSweep } from '../cli/map-sweep';
import { openLab } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('the Map', () => {
  let out = '';
  beforeAll(() => {
    const r = tinyScaleSweep();
    expect(r.status, r.stderr).toBe(0);
    out = r.out;
  }, 600_000);

  it("opens a CLI sweep folder, draws the effect against the dial, and its CSV is lab report's table", async () => {
    lab = await openLab();
    const { page } = lab;
    // No sweep yet: the Map comes when asked for (Other tools).
    await page.getByTestId('ask-map').click();
    const map = page.getByTestId('sweep-map');
    await map.getByTestId('open-sweep').setInputFiles(out);
    await expect
      .poll(() => map.getByTestId('map-status').textContent(), { timeout: 30_000 })
      .toContain('scale: 4 cells (4 recorded) × 2 runs × 2 seeds, 3 steps');
    expect(await map.getByTestId('map-x').inputValue()).toBe('reward.scale.alice');
    expect(await map.getByTestId('map-legend').textContent()).toContain('Dr. MAS − GRPO');

    const report = cli(['report', out]);
    expect(report.status, report.stderr).toBe(0);
    const table = textCells(report.stdout.trimEnd().split('\n').slice(1).join('\n'));
    const figures = [...new Set(table.slice(1).map((r) => r[0]))];
    expect(figures).toContain('alice own success (last 10)');
    // A chart per figure and facet; the two facets of a figure side by side (same top, other left).
    const charts = map.locator('figure[data-map-chart]');
    await expect.poll(() => charts.count()).toBe(figures.length * 2);
    const own = map.locator('figure[data-map-chart="alice own success (last 10)"]');
    expect(await own.evaluateAll((fs) => fs.map((f) => f.getAttribute('data-facet')))).toEqual([
      'models.assignment = shared',
      'models.assignment = per-agent',
    ]);
    const [a, b] = [await own.nth(0).boundingBox(), await own.nth(1).boundingBox()];
    expect(a!.y).toBe(b!.y);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    // A point per cell and figure, filled exactly where the table's verdict is higher or lower.
    const verdicts = await charts
      .locator('circle[data-verdict]')
      .evaluateAll((cs) =>
        cs.map((c) => `${c.getAttribute('data-verdict')}:${c.getAttribute('fill') !== '#fff'}`),
      );
    expect(verdicts.sort()).toEqual(
      table
        .slice(1)
        .map((r) => `${r[6]}:${r[6] === 'higher' || r[6] === 'lower'}`)
        .sort(),
    );

    // Each point says its numbers on hover.
    expect(await own.nth(0).locator('circle[data-verdict] title').first().textContent()).toMatch(
      /^Dr\. MAS − GRPO at reward\.scale\.alice = 1: -?[\d.e-]+ ± [\d.e-]+ \((identical|same|higher|lower)\)$/,
    );

    // What a click downloads: the map's CSV or JSON, or the first own-success chart's PNG.
    const download = async (what: 'CSV' | 'JSON' | 'PNG') =>
      (
        await Promise.all([
          page.waitForEvent('download'),
          (what === 'PNG'
            ? own.nth(0).getByRole('button', { name: /as PNG$/ })
            : map.getByRole('button', { name: `Download map ${what}` })
          ).click(),
        ])
      )[0];
    const csv = await download('CSV');
    expect(csvCells(readFileSync((await csv.path())!, 'utf8'))).toEqual(table);

    const png = await download('PNG');
    const bytes = readFileSync((await png.path())!);
    expect([...bytes.subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    expect(png.suggestedFilename()).toBe(
      'agentwise-map-alice-own-success-last-10-models-assignment-shared.png',
    );

    // Lines by the other dial: one chart per figure (one pair, no dial left), a line per assignment,
    // the same points regrouped; then back to a line per run.
    await map.getByTestId('map-lines').selectOption('models.assignment');
    await expect.poll(() => charts.count()).toBe(figures.length);
    expect(await own.evaluateAll((fs) => fs.map((f) => f.getAttribute('data-facet')))).toEqual([
      'Dr. MAS − GRPO',
    ]);
    expect(await map.getByTestId('map-legend').textContent()).toMatch(
      /models\.assignment = shared\s*models\.assignment = per-agent/,
    );
    const regrouped = await charts
      .locator('circle[data-verdict]')
      .evaluateAll((cs) => cs.map((c) => c.getAttribute('data-verdict')));
    expect(regrouped.sort()).toEqual(verdicts.map((v) => v.split(':')[0]).sort());
    await map.getByTestId('map-lines').selectOption('runs');
    await expect.poll(() => charts.count()).toBe(figures.length * 2);

    // Baseline Dr. MAS: the pair is GRPO − Dr. MAS, the same seeds' differences with the sign
    // turned, drawn and downloaded, and the downloads say so in their names.
    expect(await map.getByTestId('map-baseline').inputValue()).toBe('GRPO');
    await map.getByTestId('map-baseline').selectOption('Dr. MAS');
    await expect
      .poll(async () => (await map.getByTestId('map-legend').textContent())?.trim())
      .toBe('GRPO − Dr. MAS');
    expect(await map.getByTestId('map-status').textContent()).toContain('differences from Dr. MAS, paired');
    const flip = { higher: 'lower', lower: 'higher' } as Record<string, string>;
    const ownRow = table.find((r) => r[0] === 'alice own success (last 10)' && r[1] === 'shared')!;
    const [mean, half] = ownRow[5].split(' ± ').map(Number);
    const point = (await own.nth(0).locator('circle[data-verdict] title').first().textContent())!;
    const drawn = /^GRPO − Dr\. MAS at reward\.scale\.alice = 1: (\S+) ± (\S+) \((\w+)\)$/.exec(point);
    expect(drawn, point).not.toBeNull();
    expect(Number(drawn![1])).toBeCloseTo(-mean, 3);
    expect(Number(drawn![2])).toBeCloseTo(half, 3);
    expect(drawn![3]).toBe(flip[ownRow[6]] ?? ownRow[6]);
    const flipped = await download('CSV');
    expect(flipped.suggestedFilename()).toMatch(/^agentwise-map-scale-from-dr-mas-[\d-]+t[\d-]+\.csv$/);
    const [head, ...rows] = csvCells(readFileSync((await flipped.path())!, 'utf8'));
    expect(head).toEqual([...table[0].slice(0, 5), 'GRPO − Dr. MAS', 'verdict']);
    expect(rows.map((r) => r.slice(0, 5))).toEqual(table.slice(1).map((r) => r.slice(0, 5)));
    rows.forEach((r, i) => {
      const [m, h] = r[5].split(' ± ').map(Number);
      const [m0, h0] = table[i + 1][5].split(' ± ').map(Number);
      expect([Math.abs(m + m0), Math.abs(h - h0), r[6]]).toEqual([
        0,
        0,
        flip[table[i + 1][6]] ?? table[i + 1][6],
      ]);
    });
    const json = await download('JSON');
    const saved = JSON.parse(readFileSync((await json.path())!, 'utf8')) as {
      baseline: string;
      table: string[][];
    };
    expect([saved.baseline, saved.table[0][5]]).toEqual(['Dr. MAS', 'GRPO − Dr. MAS']);
    const flippedPng = await download('PNG');
    expect(flippedPng.suggestedFilename()).toBe(
      'agentwise-map-alice-own-success-last-10-models-assignment-shared-from-dr-mas.png',
    );
    expect(lab.errors).toEqual([]);
  }, 300_000);

  it('refuses a folder that is not a sweep, saying what to pick', async () => {
    const plain = join(mkdtempSync(join(tmpdir(), 'agentwise-map-bad-')), 'notes');
    mkdirSync(plain);
    writeFileSync(join(plain, 'config.json'), '{}');
    lab = await openLab();
    await lab.page.getByTestId('ask-map').click();
    const map = lab.page.getByTestId('sweep-map');
    await map.getByTestId('open-sweep').setInputFiles(plain);
    await expect
      .poll(() => map.getByTestId('map-error').textContent())
      .toBe('no sweep.json among the picked files: pick the folder lab sweep or lab merge wrote (its --out)');
  }, 120_000);

  // The figure in docs/sweeps.md: MAP_DIR=<a sweep folder> npx vitest run --project browser test/browser/sweep-map.test.ts
  it.runIf(process.env.MAP_DIR)(
    'screenshot of a sweep folder’s map (docs/img/map.png)',
    async () => {
      lab = await openLab();
      await lab.page.setViewportSize({ width: 1280, height: 900 });
      await lab.page.getByTestId('ask-map').click();
      const map = lab.page.getByTestId('sweep-map');
      await map.getByTestId('open-sweep').setInputFiles(process.env.MAP_DIR!);
      await expect.poll(() => map.getByTestId('map-status').count(), { timeout: 120_000 }).toBe(1);
      await map.getByTestId('map-figure').selectOption(process.env.MAP_FIGURE ?? 'bob own success (last 10)');
      await map.screenshot({ path: 'docs/img/map.png' });
    },
    300_000,
  );
});
