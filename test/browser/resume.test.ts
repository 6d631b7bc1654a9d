/**
 * A run survives a reload: paused runs save their state to IndexedDB, the reloaded page shows the
 * recorded curves, and Train goes on from the saved step (not from 0), recording each step once.
 * States are kept with their payload as a Blob; the forms earlier builds stored are read too: before
 * the reload one run's state is rewritten as the state file's bytes (before states were kept
 * unsealed), the other's with its payload an ArrayBuffer (before it was a Blob).
 */
import { afterEach, expect, it } from 'vitest';
import { encodeRunState, sealRunState, type UnsealedRunState } from '../../src/train/run-state';
import { downloadCsv, openLab, RUNS, runsIn, stateSteps, stepCounts, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const atLeast = (lab: Lab, n: number) =>
  lab.page.waitForFunction(
    ([runs, n]) =>
      runs.every((r) => Number(document.querySelector(`[aria-label="${r} step"]`)?.textContent) >= n),
    [RUNS, n] as const,
    { timeout: 120_000, polling: 250 },
  );

it('resumes both runs after a reload from their saved state', async () => {
  lab = await openLab(
    '#v=1&task=sync&models.base=scratch&rollout.batchSize=1&rollout.groupSize=2&eval.every=0',
  );
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await atLeast(lab, 3);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await runsIn(lab, 'paused'); // stopped after the step in flight: the counters move no more

  // Pausing saves each run's state at the step it stopped at.
  let counts: number[] = [];
  await expect
    .poll(
      async () => {
        counts = await stepCounts(lab!);
        const saved = await stateSteps(lab!);
        return RUNS.every((r, i) => saved[`${i}:${r}`] === counts[i]);
      },
      { timeout: 120_000, interval: 250 },
    )
    .toBe(true);

  // The states as this build keeps them (the payload a Blob), then rewritten as earlier builds
  // kept them: run 0's as the encoded state file under `bytes`, run 1's payload an ArrayBuffer.
  const kept = await page.evaluate(
    () =>
      new Promise<{ record: Record<string, unknown>; payload: string; blob: boolean }[]>((ok, ko) => {
        const r = indexedDB.open('agentwise-states');
        r.onerror = () => ko(r.error);
        r.onsuccess = () => {
          const all = r.result.transaction('states').objectStore('states').getAll();
          all.onsuccess = async () => {
            r.result.close();
            const out = [];
            for (const record of all.result) {
              const payload = record.kept.state.payload as Blob | ArrayBuffer;
              const bytes = new Uint8Array(payload instanceof Blob ? await payload.arrayBuffer() : payload);
              let text = '';
              for (let i = 0; i < bytes.length; i += 0x8000)
                text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
              out.push({ record, payload: btoa(text), blob: payload instanceof Blob });
            }
            ok(out);
          };
        };
      }),
  );
  expect(kept.map((k) => k.blob)).toEqual(RUNS.map(() => true));
  const keyOf = (i: number) => `${i}:${RUNS[i]}`;
  const [first, second] = RUNS.map((_, i) => kept.find((k) => k.record.run === keyOf(i))!);
  const { kept: was, ...older } = first.record as { kept: { state: UnsealedRunState } };
  const payload = new Uint8Array(Buffer.from(first.payload, 'base64')).buffer;
  const file = encodeRunState(sealRunState({ ...was.state, payload }));
  await page.evaluate(
    ([older, file, second, payload]) =>
      new Promise<void>((ok, ko) => {
        const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
        const r = indexedDB.open('agentwise-states');
        r.onerror = () => ko(r.error);
        r.onsuccess = () => {
          const tx = r.result.transaction('states', 'readwrite');
          tx.objectStore('states').put({ ...older, bytes: bytes(file) });
          const k = second.kept as { state: object; check: string };
          tx.objectStore('states').put({
            ...second,
            kept: { ...k, state: { ...k.state, payload: bytes(payload) } },
          });
          tx.oncomplete = () => (r.result.close(), ok());
          tx.onerror = () => ko(tx.error);
        };
      }),
    [older, Buffer.from(file).toString('base64'), second.record, second.payload] as const,
  );

  await page.reload();
  await page.getByText('restored', { exact: false }).first().waitFor({ timeout: 30_000 });
  expect(await stepCounts(lab)).toEqual(counts);

  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await atLeast(lab, Math.max(...counts) + 2);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  const { header, rows } = await downloadCsv(page);
  const col = (k: string) => header.indexOf(k);
  RUNS.forEach((run, i) => {
    const mine = rows.filter((r) => r[0] === run);
    const steps = mine.map((r) => Number(r[col('step')]));
    // Every step once, the saved ones before the reload and the resumed ones after.
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, s) => s));
    expect(steps.length).toBeGreaterThanOrEqual(counts[i] + 2);
    // Wall time goes on from the saved run's, instead of restarting at 0.
    const time = mine.map((r) => Number(r[col('time_s')]));
    expect(time[counts[i]]).toBeGreaterThan(time[counts[i] - 1]);
  });
  expect(lab.errors).toEqual([]);
});
