/**
 * A live change travels in the link as a schedule: train, pause, change the learning rate live,
 * go on to the end, copy the link and open it in a fresh profile; trained there, its exported
 * metrics equal the sender's, bit for bit; with several seeds too, where the repeats of a run take
 * the change at one step (queued ones included). A typed live value is shown pending until Enter
 * applies it, and marker labels of changes at close steps never overlap.
 */
import { afterEach, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TINY, downloadCsv, openLab, runsIn, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

const labs: Lab[] = [];
afterEach(async () => {
  for (const l of labs.splice(0)) await l.close();
});
const open = async (hash: string) => {
  const l = await openLab(hash);
  labs.push(l);
  return l;
};

const STEPS = 8;
/** Small, but learning from every step: models from scratch, four rollouts per question, two questions. */
const EXPERIMENT = `${TINY.replace('batchSize=1', 'batchSize=2').replace('groupSize=2', 'groupSize=4')}&models.base=scratch&steps=${STEPS}`;
/** Trains `hash` in a fresh profile to the end; its exported metrics (and the lab). */
async function trainLink(hash: string) {
  const lab = await open(hash);
  await trainEnabled(lab.page);
  await lab.page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= STEPS), 240_000);
  return { lab, metrics: await science(lab.page) };
}

/** The page's exported metrics without wall-clock, memory and speed columns. */
async function science(page: Page): Promise<string[][]> {
  const { header, rows } = await downloadCsv(page);
  const keep = header.flatMap((k, i) => (/^(perf|mem)\//.test(k) || k === 'time_s' ? [] : [i]));
  return [header, ...rows].map((r) => keep.map((i) => r[i]));
}

/** Every pair of marker labels drawn in one chart that overlap. */
const overlappingLabels = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('figure.chart')].flatMap((chart) => {
      const boxes = [...chart.querySelectorAll('.marker-label')].map((t) => t.getBoundingClientRect());
      return boxes.flatMap((a, i) =>
        boxes
          .slice(i + 1)
          .filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
          .map(() => chart.getAttribute('data-chart')),
      );
    }),
  );

const markerTexts = (page: Page) =>
  page.evaluate(() => [
    ...new Set([...document.querySelectorAll('.marker-label')].map((t) => t.textContent)),
  ]);

it('replays a live change from the copied link in a fresh profile: the same metrics, bit for bit', async () => {
  const sender = await open(EXPERIMENT);
  const { page } = sender;
  await trainEnabled(page);
  // Slowed down, so Pause lands well before the end and the change has steps to act on.
  await page.locator('#speed').selectOption('3000');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(sender, (s) => s.every((n) => n >= 2));
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.locator('#speed').selectOption('0');
  expect((await waitSteps(sender, () => true)).every((n) => n < STEPS - 2)).toBe(true);

  // Typed, not applied: the field says so, and neither the link nor the charts have it.
  const lr = page.locator('#live-lr');
  await lr.fill('0.2');
  const field = page.locator('.live-field', { has: lr });
  expect(await field.getAttribute('data-pending')).toBe('true');
  expect(await field.locator('.live-pending').textContent()).toBe(
    'pending: press Enter to apply at the next step',
  );
  expect(page.url()).not.toContain('0.2');
  expect(await markerTexts(page)).toEqual([]);

  await lr.press('Enter');
  // Each run records the step it took the change at; the base value stays as it was.
  // The runs take it each at its own next step, so the link gains one entry per run, in either order.
  const runsWithChange = () =>
    [0, 1].filter((n) => new RegExp(`runs\\.${n}\\.live\\.\\d+\\.optim\\.lr=0\\.2`).test(page.url()));
  await expect.poll(runsWithChange, { timeout: 60_000 }).toEqual([0, 1]);
  expect(page.url()).not.toMatch(/[#&]optim\.lr=/);
  expect(await field.getAttribute('data-pending')).toBeNull();
  await expect.poll(() => markerTexts(page), { timeout: 30_000 }).toEqual(['lr=0.2']);

  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await waitSteps(sender, (s) => s.every((n) => n >= STEPS), 240_000);
  const sent = await science(page);
  await sender.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: new URL(page.url()).origin,
  });
  await page.getByRole('button', { name: 'Copy link' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toBe(page.url());

  const recipient = await trainLink(new URL(link).hash);
  expect(await markerTexts(recipient.lab.page)).toEqual(['lr=0.2']);
  expect(recipient.metrics.length).toBe(1 + 2 * STEPS);
  expect(recipient.metrics).toEqual(sent);
  // The change made a difference: the link without it trains other numbers.
  const control = await trainLink(EXPERIMENT);
  expect(control.metrics.slice(0, 3)).toEqual(sent.slice(0, 3));
  expect(control.metrics).not.toEqual(sent);
  expect([...sender.errors, ...recipient.lab.errors]).toEqual([]);
}, 600_000);

it('with several seeds, every repeat of a run takes a live change at one step, and the link replays them all', async () => {
  // One run over three seeds: with two workers, two repeats train (each at its own pace) and the
  // third waits in the queue; the change is made while they train.
  const hash = `${EXPERIMENT}&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&seeds=3`;
  const sender = await open(hash);
  const { page } = sender;
  const step = async () => Number(await page.getByLabel('GRPO #0 steps done').textContent());
  await trainEnabled(page);
  // Slowed down a little, so the change lands well before the end.
  await page.locator('#speed').selectOption('1000');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect.poll(step, { timeout: 120_000 }).toBeGreaterThanOrEqual(2);
  const lr = page.locator('#live-lr');
  await lr.fill('0.2');
  await lr.press('Enter');
  // One step in the link for the run, whatever the seeds.
  const entries = () => page.url().match(/runs\.0\.live\.\d+\.optim\.lr=0\.2/g) ?? [];
  await expect.poll(() => entries().length, { timeout: 60_000 }).toBe(1);
  // Well before the end: the repeats train with it.
  expect(Number(/runs\.0\.live\.(\d+)\./.exec(page.url())?.[1])).toBeLessThan(STEPS - 1);
  await page.locator('#speed').selectOption('0');
  await runsIn(sender, 'done', 480_000);
  expect(entries()).toHaveLength(1);
  const sent = await science(page);
  expect(sent.length).toBe(1 + 3 * STEPS);
  await sender.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: new URL(page.url()).origin,
  });
  await page.getByRole('button', { name: 'Copy link' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());

  const recipient = await open(new URL(link).hash);
  await trainEnabled(recipient.page);
  await recipient.page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(recipient, 'done', 480_000);
  expect(await science(recipient.page)).toEqual(sent);
  expect(await markerTexts(recipient.page)).toEqual(['lr=0.2']);
  expect([...sender.errors, ...recipient.errors]).toEqual([]);
}, 900_000);

it('draws the labels of changes at close steps apart (179 and 200)', async () => {
  const lab = await open(
    `${TINY}&steps=300&runs.0.live.179.optim.lr=0.003&runs.1.live.200.optim.lr=0.003&runs.1.live.190.rollout.temperature=0.9`,
  );
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 1));
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  // Polled: a chart redraws at its turn (chart-pump.ts), and one drawn before the other run's first
  // frame shows the first run's marker alone.
  await expect
    .poll(async () => (await markerTexts(page)).sort(), { timeout: 30_000 })
    .toEqual(['lr=0.003', 'temperature=0.9']);
  // Three labels in every chart with markers, none over another.
  const perChart = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('figure.chart')].map((c) => c.querySelectorAll('.marker-label').length),
    );
  await expect
    .poll(async () => (await perChart()).filter((n) => n > 0 && n !== 3), { timeout: 30_000 })
    .toEqual([]);
  expect((await perChart()).some((n) => n > 0)).toBe(true);
  expect(await overlappingLabels(page)).toEqual([]);
  expect(lab.errors).toEqual([]);
}, 300_000);
