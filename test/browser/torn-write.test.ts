/**
 * A page whose frames cannot be stored while its runs train on: a run's worker writes its state
 * only once the page says the frames before it are stored, so the states are held back rather
 * than stored ahead of the frames, which would leave a gap nothing can fill. The test makes every
 * write of the page's recorder abort from a point on (as a closed page's transactions do) and then
 * reloads: each run goes on from the last state whose frames are stored, not from step 0, and every
 * run's exported steps are 0…steps-1, each once.
 */
import { afterEach, expect, it } from 'vitest';
import {
  RUNS,
  TINY,
  everyStep,
  exportedSteps,
  openLab,
  resumedAt,
  runsIn,
  savedAtSteps,
  savedSteps,
  stateSteps,
  stepCounts,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const STEPS = 12;
/** The state keys of RUNS in agentwise-states (stateKey: run index, label). */
const KEYS = RUNS.map((r, i) => `${i}:${r}`);

/** Train at full speed on a restored session, to the end: every run's exported steps, each once. */
async function trainToTheEnd(l: Lab): Promise<void> {
  await trainEnabled(l.page);
  await l.page.getByRole('button', { name: 'Train', exact: true }).click();
  // The session is done (the restored runs already say 'done': they carry no workers).
  await l.page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  // Polled: the session can say done before the last step's frame reaches the counters.
  await expect.poll(() => stepCounts(l), { timeout: 30_000 }).toEqual([STEPS, STEPS]);
  expect(await exportedSteps(l.page)).toEqual([everyStep(STEPS), everyStep(STEPS)]);
}

it('frames that cannot be stored hold the states back: a reload goes on from the last whole save, not step 0', async () => {
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const { page } = lab;
  // Once window.tornFrames is set, every readwrite transaction of the page's recorder (the one
  // holding the frames store) aborts right after its requests: nothing of it is stored.
  await page.addInitScript(() => {
    const open = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof open>) {
      const tx = open.apply(this, args);
      const names = typeof args[0] === 'string' ? [args[0]] : [...args[0]];
      if (
        (window as { tornFrames?: boolean }).tornFrames &&
        args[1] === 'readwrite' &&
        names.includes('frames')
      )
        queueMicrotask(() => tx.abort());
      return tx;
    } as typeof open;
  });
  await page.reload(); // the init script runs from this load on
  await trainEnabled(page);
  const speed = page.getByRole('combobox', { name: 'Speed', exact: true });
  await speed.selectOption({ label: '1 s between steps' });
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 1));
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(lab, 'paused');
  // "saved @N" shows once the state and the frames up to it are stored: a whole session so far.
  await savedAtSteps(lab);
  const whole = await stepCounts(lab);
  expect(whole.every((n) => n >= 1 && n < STEPS)).toBe(true);

  // From here on the page records nothing, and the workers, told so, write no state ahead of it.
  await page.evaluate(() => ((window as { tornFrames?: boolean }).tornFrames = true));
  await speed.selectOption({ label: 'full speed' });
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(lab, 'done', 120_000);
  expect(await savedSteps(lab)).toEqual(whole);
  const states = await stateSteps(lab);
  expect(KEYS.map((k) => states[k])).toEqual(whole);

  await page.reload();
  const note = page.getByTestId('restored-note');
  await note.waitFor({ timeout: 30_000 });
  // The recorded steps come back, and no run is said to start over.
  expect(await stepCounts(lab)).toEqual(whole);
  expect(await note.textContent()).not.toContain('start over');
  await trainToTheEnd(lab);
  expect(await resumedAt(lab)).toEqual(whole);
  expect(lab.errors).toEqual([]);
});
