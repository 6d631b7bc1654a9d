/**
 * Runs survive a reload: train the tiny sync experiment for a few steps, pause, let the IndexedDB
 * writer flush, reload in the same profile and check that the step counters, chart lines and a
 * live-parameter marker come back; reopen it from Past sessions, delete it and check that the list stays empty after a reload; without
 * IndexedDB, one alert says so and training still works.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  TINY,
  openLab,
  runsIn,
  savedAtSteps,
  stepCounts,
  storedMarkers,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const steps = stepCounts;

/** Opens the tiny experiment (as `lab`, closed after the test), trains both runs to step 2 or more, pauses and waits until both are paused. */
async function trainTwoStepsAndPause(): Promise<Lab> {
  const l = (lab = await openLab(TINY));
  await trainEnabled(l.page, 60_000);
  await l.page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(l, (s) => s.every((n) => n >= 2), 60_000);
  await l.page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(l, 'paused', 30_000);
  return l;
}

describe('persistence', () => {
  it('deleting the live session stops its runs: nothing goes on training unrecorded under "saved"', async () => {
    lab = await trainTwoStepsAndPause();
    const { page } = lab;
    await savedAtSteps(lab); // each run's state and frames up to it are stored
    await page.getByRole('button', { name: /^Delete session / }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Delete session / }).count()).toBe(0);
    expect(await page.locator('.run-status').count()).toBe(0);
    expect(await page.getByText('No runs yet: press Train.').count()).toBe(1);
    await page.reload();
    await page.locator('section[data-loaded="true"]').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('Past sessions’ Delete and Open, when they fail: said beside them, no unhandled rejection, nothing stored lost', async () => {
    lab = await trainTwoStepsAndPause();
    const { page } = lab;
    await savedAtSteps(lab);
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    // Said in Past sessions, beside the buttons (the page's alert is out of sight of the panel).
    const alert = page.getByTestId('past-failed');
    const listed = () => page.getByRole('button', { name: /^Open session / }).count();
    // Delete asks the lock manager whether another tab writes the session: it fails here.
    await page.evaluate(() => {
      navigator.locks.query = () =>
        Promise.reject(new DOMException('the lock manager is unavailable', 'InvalidStateError'));
    });
    await page.getByRole('button', { name: /^Delete session / }).click();
    await expect
      .poll(() => alert.textContent())
      .toContain('Delete session failed: the lock manager is unavailable; nothing stored was lost');
    expect(await listed()).toBe(1);
    await page.evaluate(() => delete (navigator.locks as { query?: unknown }).query);
    // A record an older build wrote, without its runs' base-model notes: Open cannot draw it.
    await page.evaluate(
      () =>
        new Promise<void>((ok, ko) => {
          const r = indexedDB.open('agentwise-lab');
          r.onerror = () => ko(r.error);
          r.onsuccess = () => {
            const tx = r.result.transaction('sessions', 'readwrite');
            const store = tx.objectStore('sessions');
            const all = store.getAll();
            all.onsuccess = () => {
              for (const s of all.result as { runs: { base?: unknown }[] }[]) {
                for (const run of s.runs) delete run.base;
                store.put(s);
              }
            };
            tx.oncomplete = () => (r.result.close(), ok());
            tx.onerror = () => ko(tx.error);
          };
        }),
    );
    await page.getByRole('button', { name: /^Open session / }).click();
    await expect.poll(() => alert.textContent()).toMatch(/Open session failed: .+; nothing stored was lost/);
    expect(await page.locator('.run-status').count()).toBe(0);
    // Reloaded, the page's start brings the latest session back, and says why it cannot; it stays listed.
    await page.reload();
    await expect
      .poll(() => page.getByTestId('session-alert').textContent(), { timeout: 15_000 })
      .toMatch(/Bringing back the last session failed: .+; nothing stored was lost/);
    expect(await listed()).toBe(1);
    expect(lab.errors, 'no unhandled rejection').toEqual([]);
  });

  it('a reload brings back the newest session of the opened experiment, though another experiment trained since', async () => {
    lab = await trainTwoStepsAndPause();
    const { page } = lab;
    const before = await steps(lab);
    await savedAtSteps(lab);
    // Another experiment (a different group size) trains a session of its own, newer.
    const base = page.url().split('#')[0];
    // Each link loaded afresh (a hash change alone keeps the page, and its session, as they are).
    const load = async (hash: string) => {
      await page.goto('about:blank');
      await page.goto(`${base}${hash}`);
    };
    await load(`${TINY}&rollout.groupSize=4`);
    await trainEnabled(page, 60_000);
    expect(await page.getByTestId('restored-note').count()).toBe(0); // nothing of this one stored yet
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n) => n >= 1), 60_000);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await runsIn(lab, 'paused', 30_000);
    await savedAtSteps(lab);
    // Back to the first experiment's link: its session comes back, not "No runs yet".
    await load(TINY);
    await page.getByTestId('restored-note').waitFor({ timeout: 15_000 });
    expect(await steps(lab)).toEqual(before);
    expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(2);
    expect(lab.errors).toEqual([]);
  });

  it('restores the runs after a reload, and deletes them from Past sessions', async () => {
    lab = await trainTwoStepsAndPause();
    const { page } = lab;
    const before = await steps(lab);
    // A live change while paused: its chart marker is stored with the session.
    const lr = page.getByLabel('learning rate');
    await lr.fill('0.002');
    await lr.press('Enter');
    const marker = page.locator('figure[aria-label="Reward"] .recharts-label', { hasText: 'lr=0.002' });
    await marker.first().waitFor({ state: 'attached', timeout: 30_000 });
    // The writer stores the marker with the session within a second, and each run's state at its
    // step: wait for both (a fixed sleep raced the writer on a loaded machine).
    await expect
      .poll(() => storedMarkers(lab!), { timeout: 30_000 })
      .toContainEqual(expect.stringMatching(/=0\.002$/));
    await savedAtSteps(lab);

    await page.reload();
    await page.getByTestId('restored-note').waitFor({ timeout: 15_000 });
    expect(await steps(lab)).toEqual(before);
    // Each run says it was restored (Train goes on from it), not that it is done: it is at step 2 of 200.
    expect(await page.locator('.run-status .state').allTextContents()).toEqual(['restored', 'restored']);
    const lines = page.locator('figure[aria-label="Reward"] .series');
    await lines.first().waitFor({ timeout: 15_000 });
    expect(await lines.count()).toBeGreaterThanOrEqual(2);
    await marker.first().waitFor({ state: 'attached', timeout: 15_000 });
    expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(1);
    // One date format on the page: the list, the restored note and an opened result's banner say
    // when as "2 Dec 2026, 13:26 UTC" (opened-words.ts), never the browser's locale string.
    const UTC_WHEN = /\d{1,2}\u00a0[A-Z][a-z]{2}\u00a0\d{4}, \d\d:\d\d\u00a0UTC/; // no-break spaces but after the comma
    const listed = await page.locator('ul.past-sessions li').first().locator('span').first().innerText();
    expect(listed.split('\n')[0]).toMatch(new RegExp(`^${UTC_WHEN.source}$`));
    expect(await page.getByTestId('restored-note').textContent()).toMatch(
      new RegExp(`^restored from ${UTC_WHEN.source} — `),
    );
    expect(await page.getByRole('button', { name: /^Open session / }).getAttribute('aria-label')).toMatch(
      new RegExp(`^Open session ${UTC_WHEN.source} \\(`),
    );
    // Open sets the experiment (and so the link) to the session's and shows its curves again.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByRole('button', { name: /^Open session / }).click();
    await page.getByTestId('restored-note').waitFor({ timeout: 15_000 });
    expect(await steps(lab)).toEqual(before);
    expect(page.url()).toContain('task=sync');
    await marker.first().waitFor({ state: 'attached', timeout: 15_000 });

    await page.getByRole('button', { name: /^Delete session / }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Delete session / }).count()).toBe(0);
    // The deleted session leaves the screen too: its states are gone, Train starts over.
    expect(await page.getByTestId('restored-note').count()).toBe(0);
    expect(await page.locator('.run-status').count()).toBe(0);
    await page.reload();
    await page.locator('section[data-loaded="true"]').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(0);
    expect(await page.getByTestId('restored-note').count()).toBe(0);
    expect(lab.errors).toEqual([]);

    // Without IndexedDB, one alert says so and training goes on.
    await lab.context.addInitScript(() => Object.defineProperty(window, 'indexedDB', { value: undefined }));
    await page.reload();
    await page.getByText(/runs will not survive a reload/).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('alert').filter({ hasText: 'runs will not survive a reload' }).count()).toBe(
      1,
    );
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await expect.poll(async () => (await steps(lab!)).every((n) => n >= 1), { timeout: 30_000 }).toBe(true);
  });
});
