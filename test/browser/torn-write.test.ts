/**
 * A page closed between a run's two writes: its worker has saved the run's state to IndexedDB, but
 * the page had not yet recorded the frames up to it. The test makes every write of the page's
 * recorder abort from a point on (as a closed page's transactions do) while the workers go on
 * saving states, then reloads: the states are ahead of the recorded steps. Train must not resume
 * from them as if the session were whole: the runs start over, and every run's exported steps are
 * 0…steps-1, each once.
 */
import { afterEach, expect, it } from 'vitest';
import {
  RUNS,
  TINY,
  downloadCsv,
  openLab,
  runsIn,
  savedAtSteps,
  savedSteps,
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

const STEPS = 12; // past the save every 10 steps, and saved again when done

it('a state saved ahead of its recorded frames is not resumed from: the runs start over, no step missing', async () => {
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
  expect(whole.every((n) => n >= 1 && n < 10)).toBe(true);

  // From here on the page records nothing; the workers save their states at step 10 and when done.
  await page.evaluate(() => ((window as { tornFrames?: boolean }).tornFrames = true));
  await speed.selectOption({ label: 'full speed' });
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await runsIn(lab, 'done', 120_000);
  await expect.poll(() => savedSteps(lab!), { timeout: 30_000 }).toEqual([STEPS, STEPS]);

  await page.reload();
  const note = page.getByTestId('restored-note');
  await note.waitFor({ timeout: 30_000 });
  // The recorded steps come back; the states (at step 12) are ahead of them, and the page says so.
  expect(await stepCounts(lab)).toEqual(whole);
  expect(await note.textContent()).toContain(`${RUNS.join(', ')} start over from step 0`);
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // The session is done (the restored runs already say 'done': they carry no workers).
  await page.locator('.controls[data-state="done"]').waitFor({ timeout: 240_000 });
  // Polled: the session can say done before the last step's frame reaches the counters.
  await expect.poll(() => stepCounts(lab!), { timeout: 30_000 }).toEqual([STEPS, STEPS]);
  const { header, rows } = await downloadCsv(page);
  const step = header.indexOf('step');
  for (const run of RUNS)
    expect(rows.filter((r) => r[0] === run).map((r) => Number(r[step]))).toEqual(
      Array.from({ length: STEPS }, (_, i) => i),
    );
  expect(lab.errors).toEqual([]);
});
