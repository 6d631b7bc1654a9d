/**
 * A page killed between a run's two writes. The page stores each run's frames about once a second;
 * the run's worker writes its state after every step, carrying the frames the page has not stored
 * yet (src/core/carried-frames.ts). Killed with the frames ahead of the state, the run goes on
 * from its state, computing the steps after it again; killed with the state ahead (the renderer
 * crashed before its next flush), the run goes on from the state and its carried frames fill the
 * gap. Either way every run's exported steps are 0…steps-1, each once. A page that records the
 * session no more (its database refused the frames) writes no state either, so a reload goes on
 * from the last state whose frames are stored, not from step 0. And a state file torn mid-write
 * (its header whole, its payload not): the run goes on from its other file, a step before; a
 * foreign file beside it is passed over.
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
  storedSteps,
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

/**
 * Trains at one step a second until every run has `n` steps, pauses, and waits until "saved after N steps"
 * shows each run's step (its state and the frames up to it stored: a whole session so far).
 */
async function trainSlowlyAndPause(l: Lab, n: number): Promise<number[]> {
  await trainEnabled(l.page);
  await l.page
    .getByRole('combobox', { name: 'Speed', exact: true })
    .selectOption({ label: '1 s between steps' });
  await l.page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(l, (s) => s.every((k) => k >= n));
  await l.page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(l, 'paused');
  await savedAtSteps(l);
  return stepCounts(l);
}

it("a page killed between a step's two writes goes on from the state before: one step again, none missing", async () => {
  const TORN = 5; // the first state not written: each run's state after step TORN - 1
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const { page } = lab;
  // Once window.tearAt is set, the page's answer to a run's `saving` at step ≥ tearAt never
  // reaches its worker: the worker waits to write that state, while the page stores the frames
  // before it, as a page killed between the two writes leaves them. window.torn lists the steps
  // of the states held back.
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<typeof post>) {
      const w = window as { tearAt?: number; torn?: number[] };
      const msg = args[0] as { type?: string; step?: number };
      if (msg?.type === 'frames-stored' && w.tearAt !== undefined && msg.step! >= w.tearAt)
        return void (w.torn ??= []).push(msg.step!);
      return post.apply(this, args);
    } as typeof post;
  });
  await page.reload(); // the init script runs from this load on
  await page.evaluate((at) => ((window as { tearAt?: number }).tearAt = at), TORN);
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.waitForFunction((n) => (window as { torn?: number[] }).torn?.length === n, RUNS.length, {
    timeout: 120_000,
  });
  // Between the two writes: the frames of steps 0…TORN-1 are stored (within a second), the states are at TORN - 1.
  await expect.poll(() => storedSteps(lab!), { timeout: 10_000 }).toEqual([everyStep(TORN), everyStep(TORN)]);
  const states = await stateSteps(lab);
  expect(KEYS.map((k) => states[k])).toEqual([TORN - 1, TORN - 1]);

  await page.reload(); // killed here
  const note = page.getByTestId('restored-note');
  await note.waitFor({ timeout: 30_000 });
  expect(await stepCounts(lab)).toEqual([TORN, TORN]);
  expect(await note.textContent()).not.toContain('start over');
  await trainToTheEnd(lab);
  // Each run went on from the state before the one not written: one step computed again.
  expect(await resumedAt(lab)).toEqual([TORN - 1, TORN - 1]);
  expect(lab.errors).toEqual([]);
});

it('a browser killed before its frames were stored: the states carry them, and the runs go on from the states', async () => {
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const url = lab.page.url();
  await trainEnabled(lab.page);
  await lab.page
    .getByRole('combobox', { name: 'Speed', exact: true })
    .selectOption({ label: '1 s between steps' });
  await lab.page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((k) => k >= 3));
  // Kill the browser right after a step's frame came: its state is written at once, while the page
  // stores the frame with the next flush, a second after it queued it. No pagehide, no last flush.
  const before = await stepCounts(lab);
  await waitSteps(lab, (s) => s.some((k, r) => k > before[r]));
  const after = (lab = await lab.crashAndReopen(url));
  const { page } = after;
  const note = page.getByTestId('restored-note');
  await note.waitFor({ timeout: 30_000 });
  // The restored curves end where the frames were stored; the states, further on, are used.
  const restored = await stepCounts(after);
  const states = await stateSteps(after);
  const saved = KEYS.map((k) => states[k]);
  expect(restored.some((n, r) => n < saved[r])).toBe(true);
  expect(await note.textContent()).not.toContain('start over');
  await page.getByRole('combobox', { name: 'Speed', exact: true }).selectOption({ label: 'full speed' });
  await trainToTheEnd(after);
  // Each run went on from its newest state (or the one before, had the crash torn the newest):
  // the frames it carried filled the steps between, none computed twice, none missing.
  const at = await resumedAt(after);
  at.forEach((s, r) => expect([saved[r], saved[r] - 1]).toContain(s));
  expect(after.errors).toEqual([]);
});

it('frames the page cannot store travel with the states until it records no more: a reload goes on from the last state', async () => {
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
  const whole = await trainSlowlyAndPause(lab, 1);
  expect(whole.every((n) => n >= 1 && n < STEPS)).toBe(true);

  // From here on the page stores no frame. The workers' states carry them until the page, its
  // database failing, records no more and says so ("runs will not survive a reload"); then they
  // write no state either.
  await page.evaluate(() => ((window as { tornFrames?: boolean }).tornFrames = true));
  await page.getByRole('combobox', { name: 'Speed', exact: true }).selectOption({ label: 'full speed' });
  await page.getByRole('button', { name: 'Resume', exact: true }).click(); // the paused runs go on
  await runsIn(lab, 'done', 120_000);
  const states = await stateSteps(lab);
  const saved = KEYS.map((k) => states[k]);
  expect(await savedSteps(lab)).toEqual(saved);
  saved.forEach((s, r) => expect(s).toBeGreaterThanOrEqual(whole[r]));

  await page.reload();
  const note = page.getByTestId('restored-note');
  await note.waitFor({ timeout: 30_000 });
  // The recorded steps come back, and no run is said to start over: each goes on from its last
  // state, the frames it carried filling the steps after those recorded.
  expect(await stepCounts(lab)).toEqual(whole);
  expect(await note.textContent()).not.toContain('start over');
  await trainToTheEnd(lab);
  expect(await resumedAt(lab)).toEqual(saved);
  expect(lab.errors).toEqual([]);
});

it('a state file torn mid-write: the run goes on from its other file, one step before, none missing', async () => {
  lab = await openLab(`${TINY}&steps=${STEPS}`);
  const { page } = lab;
  const whole = await trainSlowlyAndPause(lab, 3);

  await page.reload(); // the workers, and their locks on the files, are gone
  await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
  // Run 0's newest state file loses its last byte's worth, as a write cut short leaves it: its
  // header says the step, its payload fails the check.
  const torn = await page.evaluate(async (key) => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('agentwise-states');
    let newest: { handle: FileSystemFileHandle; step: number } | null = null;
    for await (const session of dir.values())
      for await (const handle of (session as FileSystemDirectoryHandle).values()) {
        if (decodeURIComponent(handle.name.slice(0, handle.name.lastIndexOf('.'))) !== key) continue;
        const file = await (handle as FileSystemFileHandle).getFile();
        const n = new DataView(await file.slice(0, 16).arrayBuffer()).getUint32(4, true);
        const { step } = JSON.parse(await file.slice(16, 16 + n).text()) as { step: number };
        if (step > (newest?.step ?? -1)) newest = { handle: handle as FileSystemFileHandle, step };
      }
    const file = await newest!.handle.getFile();
    const w = await newest!.handle.createWritable({ keepExistingData: true });
    const last = new Uint8Array(await file.slice(file.size - 4).arrayBuffer());
    last[0] ^= 0xff;
    await w.write({ type: 'write', position: file.size - 4, data: last });
    await w.close();
    return newest!.step;
  }, KEYS[0]);
  expect(torn).toBe(whole[0]);

  // A file the lab did not write beside them, named as no URI encoding is: passed over. (The
  // page's listing of saved states threw on it, so Train found none and every run started over.)
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('agentwise-states');
    for await (const session of dir.values()) {
      const handle = await (session as FileSystemDirectoryHandle).getFileHandle('%E0%A4%A.a', {
        create: true,
      });
      const w = await handle.createWritable();
      await w.write(new Uint8Array(64).fill(7));
      await w.close();
    }
  });

  await trainToTheEnd(lab);
  // Run 0 went on from its other file, the step before; run 1 from its newest.
  expect(await resumedAt(lab)).toEqual([whole[0] - 1, whole[1]]);
  expect(lab.errors).toEqual([]);
});
