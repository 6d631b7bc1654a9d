/**
 * One colour per estimator (src/core/estimators.ts): Dr. MAS is the same blue in a two-run session,
 * in a three-run one where it comes third (Step-level took blue there before), and as an imported
 * run, in the status bar, the legend, the chart lines and Findings.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ESTIMATORS } from '../../src/core/estimators';
import { writeEventFile } from '../../src/interop/tensorboard';
import { TINY, dropPaths, openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const BLUE = ESTIMATORS.drmas.color;
const GRPO = ESTIMATORS.grpo.color;

/** The colour of the run labelled `label` in the legend and in the status bar's swatch, as hex. */
async function shown(l: Lab, label: string) {
  const legend = await l.page
    .locator('.legend-item', { hasText: label })
    .first()
    .getAttribute('data-run-color');
  const swatch = await l.page
    .locator(`.run-status[data-run^="${label}"] .swatch`)
    .first()
    .evaluate((e) => getComputedStyle(e).backgroundColor);
  return { legend, swatch: hex(swatch) };
}

const hex = (rgb: string) =>
  '#' +
  rgb
    .match(/\d+/g)!
    .slice(0, 3)
    .map((n) => Number(n).toString(16).padStart(2, '0'))
    .join('');

/** Trains the link's experiment for one step, every run (a third waits for a free core). */
async function oneStep(hash: string): Promise<Lab> {
  const l = await openLab(`${hash}&steps=1`);
  await trainEnabled(l.page);
  await l.page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(l, 'done', 120_000);
  return l;
}

describe('one colour per estimator', () => {
  it('Dr. MAS is one blue in a two-run and a three-run session: status bar, legend and lines', async () => {
    lab = await oneStep(TINY);
    expect(await shown(lab, 'Dr. MAS')).toEqual({ legend: BLUE, swatch: BLUE });
    expect(await shown(lab, 'GRPO')).toEqual({ legend: GRPO, swatch: GRPO });
    await lab.close();

    // Dr. MAS third, after a Step-level run: it was green here, and Step-level blue.
    lab = await oneStep(
      `${TINY}&runs.1.estimator=global-step&runs.1.label=Step-level&runs.2.estimator=drmas`,
    );
    expect(await lab.page.locator('.run-status').count()).toBe(3);
    expect(await shown(lab, 'Dr. MAS')).toEqual({ legend: BLUE, swatch: BLUE });
    const step = await shown(lab, 'Step-level');
    expect(step.legend).toBe(ESTIMATORS['global-step'].color);
    // The chart draws Dr. MAS's lines in the same colour.
    const strokes = () =>
      lab!.page
        .locator('figure[aria-label="Reward"] .series-line')
        .evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
    await expect.poll(strokes, { timeout: 20_000 }).toContain(BLUE);
    expect(lab.errors).toEqual([]);
  });

  it('an imported Dr. MAS run is drawn in the same blue, and so is its column in Findings', async () => {
    // A folder per run and seed, as a cluster writes them: drmas/seed1…3 and grpo/seed1…3.
    const root = join(mkdtempSync(join(tmpdir(), 'agentwise-colors-')), 'logs');
    for (const group of ['grpo', 'drmas'])
      for (const seed of [1, 2, 3]) {
        const folder = join(root, group, `seed${seed}`);
        mkdirSync(folder, { recursive: true });
        const rows = Array.from({ length: 5 }, (_, step) => ({
          step,
          'critic/score/mean': step / 10 + seed,
        }));
        writeFileSync(join(folder, 'events.out.tfevents.1700000000.node0'), writeEventFile(rows, 1.7e9));
      }
    lab = await openLab();
    await dropPaths(lab, [root]);
    await expect
      .poll(() => lab!.page.getByTestId('import-notes').textContent(), { timeout: 30_000 })
      .toContain('stored in this browser');
    const legend = (label: string) =>
      lab!.page.locator('.legend-item', { hasText: label }).first().getAttribute('data-run-color');
    expect(await legend('drmas (imported)')).toBe(BLUE);
    expect(await legend('grpo (imported)')).toBe(GRPO);
    const column = lab.page.locator(
      '[data-comparison="findings-imported"] th[data-run="drmas (imported)"] .swatch',
    );
    expect(await column.getAttribute('data-run-color')).toBe(BLUE);
    expect(lab.errors).toEqual([]);
  });
});
