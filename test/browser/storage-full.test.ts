/**
 * Storage full, or gone. The page is opened with the test seam `?storage-fault=quota:5-15`
 * (src/storage/storage-fault.ts): from step 5 every write of the page's recorder and of each run's
 * worker is refused with a QuotaExceededError, as a full disk's is, until the runs pass step 15.
 * Training must go on, the status bar must say what is not being saved, what was stored before
 * must stay, and once there is room again the refused steps must land: after a reload every step
 * is there once. Meanwhile "Download the run states" gives each run's state as the CLI's state
 * file, at the step it paused at. Then storage gone: with `?storage-fault=closed:5` the run states'
 * database is closed under the workers as the browser closes it when it clears the site's storage;
 * recording stops with one alert, the status bar says nothing is being saved and offers the
 * downloads, training goes on, and what was stored before stays.
 */
import { afterEach, expect, it } from 'vitest';
import {
  RUNS,
  TINY,
  everyStep,
  exportedSteps,
  openLab,
  runsIn,
  savedAtSteps,
  savedSteps,
  carriedFrom,
  stateSteps,
  stepCounts,
  storedSteps,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { decodeRunState } from '../../src/train/run-state';

/** The next `n` downloads `click` starts: each file's suggested name and bytes. */
async function downloads(page: Page, n: number, click: () => Promise<void>) {
  const got: Promise<{ name: string; bytes: Uint8Array }>[] = [];
  const all = new Promise<void>((ok) =>
    page.on('download', (d) => {
      got.push(d.path().then((p) => ({ name: d.suggestedFilename(), bytes: readFileSync(p) })));
      if (got.length === n) ok();
    }),
  );
  await click();
  await all;
  return Promise.all(got);
}

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('storage full from step 5: training goes on, the status bar says what is not saved, nothing stored is lost', async () => {
  const STEPS = 24;
  lab = await openLab(`?storage-fault=quota:5-15${TINY}&steps=${STEPS}`);
  const { page } = lab;
  await trainEnabled(page);
  const speed = page.getByRole('combobox', { name: 'Speed', exact: true });
  await speed.selectOption({ label: '1 s between steps' });
  await page.getByRole('button', { name: 'Train', exact: true }).click();

  // The frames are refused from about step 5; the status bar names the first step not saved. (A
  // run saves after every step, so the line may first name only the states refused from step 5.)
  const unsaved = page.getByTestId('unsaved');
  await expect.poll(() => unsaved.textContent(), { timeout: 120_000 }).toMatch(/the steps from \d+ on/);
  const from = Number(/the steps from (\d+) on/.exec((await unsaved.textContent())!)?.[1]);
  expect(from).toBeGreaterThanOrEqual(4); // a batch holds both runs' frames: one may be a step behind
  expect(from).toBeLessThanOrEqual(5);
  expect(await unsaved.textContent()).toContain('are not being saved. Training goes on in this tab');
  // The states from step 5 on are refused too, and the line names the runs whose states they are.
  await waitSteps(lab, (s) => s.every((n) => n >= 11), 120_000);
  await expect
    .poll(() => unsaved.textContent(), { timeout: 30_000 })
    .toContain(`the run states of ${RUNS.join(', ')}`);
  // Training went on; nothing is said to have failed; what was stored before the fault is there.
  expect(await page.locator('.run-status .state').allTextContents()).toEqual(['training', 'training']);
  for (const steps of await storedSteps(lab)) {
    expect(steps).toEqual(everyStep(steps.length)); // each run's steps before the fault, whole
    expect(steps.length).toBeGreaterThanOrEqual(from);
    expect(steps.length).toBeLessThanOrEqual(5);
  }
  expect(await page.getByRole('button', { name: 'Delete old sessions' }).count()).toBe(1);

  // Paused, the run states that cannot be stored download as the CLI's state files, at the runs' step.
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(lab, 'paused', 30_000);
  const at = await stepCounts(lab);
  const files = await downloads(page, RUNS.length, () =>
    page.getByRole('button', { name: 'Download the run states', exact: true }).click(),
  );
  expect(files.map((f) => f.name).sort()).toEqual(['0-GRPO.run', '1-Dr_MAS.run']);
  for (const [i, label] of RUNS.entries()) {
    const { manifest } = decodeRunState(files.find((f) => f.name.startsWith(`${i}-`))!.bytes);
    expect([manifest.label, manifest.step]).toEqual([label, at[i]]);
    expect(manifest.models.length).toBeGreaterThan(0);
  }
  await page.getByRole('button', { name: 'Resume', exact: true }).click();

  // Past step 15 there is room again: the refused frames land, the next save goes through.
  await speed.selectOption({ label: 'full speed' });
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  await savedAtSteps(lab);
  await expect.poll(() => unsaved.count(), { timeout: 15_000 }).toBe(0);
  for (const steps of await storedSteps(lab)) expect(steps).toEqual(everyStep(STEPS));
  // Asked once for persistent storage; Past sessions says what the browser answered.
  await page.getByTestId('kept').waitFor({ timeout: 15_000 });

  await page.reload();
  await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
  expect(await stepCounts(lab)).toEqual([STEPS, STEPS]);
  expect(await exportedSteps(page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
  expect(lab.errors).toEqual([]);
});

it("the run states' database closed under the runs from step 5: recording stops, said once, and training goes on", async () => {
  const STEPS = 10;
  lab = await openLab(`?storage-fault=closed:5${TINY}&steps=${STEPS}`);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  // Polled: the session can say done before the last step's frame reaches the counters.
  await expect.poll(() => stepCounts(lab!), { timeout: 30_000 }).toEqual([STEPS, STEPS]);

  // Said once, in the alert area; no run reports a failed save at each step after it.
  expect(await page.getByTestId('persist-alert').textContent()).toBe(
    "runs will not survive a reload: a run state could not be saved: the browser closed the run states' database (its storage was cleared)",
  );
  expect(await page.getByTestId('session-alert').count()).toBe(0);
  const unsaved = page.getByTestId('unsaved');
  expect(await unsaved.textContent()).toContain('Nothing is being saved in this browser');
  await unsaved.getByRole('button', { name: 'Download the run states', exact: true }).waitFor();

  // What was stored before stays: each run's frames from step 0 on, whole, and a state whose
  // carried frames (src/core/carried-frames.ts) start where the stored ones end, or before.
  const frames = await storedSteps(lab);
  const [states, carried] = [await stateSteps(lab), await carriedFrom(lab)];
  RUNS.forEach((r, i) => {
    expect(frames[i]).toEqual(everyStep(frames[i].length));
    expect(frames[i].length).toBeLessThanOrEqual(5);
    expect(states[`${i}:${r}`]).toBeGreaterThanOrEqual(1);
    expect(states[`${i}:${r}`]).toBeLessThanOrEqual(4);
    expect(carried[`${i}:${r}`]).toBeLessThanOrEqual(frames[i].length);
  });
  // "saved after N steps" stays where the last state was written.
  expect((await savedSteps(lab)).every((n) => n <= 4)).toBe(true);
  expect(lab.errors).toEqual([]);
});
