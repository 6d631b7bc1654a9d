/**
 * A lost GPU device mid-run: both runs train on (software) WebGPU, their devices are destroyed
 * after step 1, and each goes on on wasm from its state after the last completed step. The page
 * says so in an alert, and the recorded steps continue without a gap or a repeat.
 */
import { afterEach, expect, it } from 'vitest';
import { ALL_WASM_KERNELS, downloadCsv, openLab, RUNS, stepCounts, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('goes on on wasm from the last completed step when the GPU device is lost', async () => {
  lab = await openLab('#v=1&task=sync&backend=webgpu&rollout.batchSize=1&rollout.groupSize=2&eval.every=0');
  const { page } = lab;
  await trainEnabled(page, 120_000);
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction(
    (runs) =>
      runs.every((r) => Number(document.querySelector(`[aria-label="${r} steps done"]`)?.textContent) >= 1),
    RUNS,
    { timeout: 240_000, polling: 500 },
  );
  await page.evaluate(() =>
    (
      globalThis as unknown as { agentwiseLab: { simulateDeviceLoss(): void } }
    ).agentwiseLab.simulateDeviceLoss(),
  );
  // Each run's worker reports its own loss, when its step in flight ends: wait for both alerts.
  await page.waitForFunction(
    (runs) =>
      runs.every((r) =>
        [...document.querySelectorAll('[role="alert"]')].some((a) =>
          a.textContent?.includes(`${r}: GPU device lost`),
        ),
      ),
    RUNS,
    { timeout: 60_000, polling: 250 },
  );
  const alerts = await page.getByRole('alert').allTextContents();
  for (const run of RUNS) expect(alerts.join('\n')).toContain(`${run}: GPU device lost (destroyed`);
  expect(alerts.join('\n')).toMatch(/after step 1; the run goes on from there on wasm/);
  expect(await page.getByTestId('kernels').textContent()).toBe(ALL_WASM_KERNELS);

  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await page.waitForFunction(
    (runs) =>
      runs.every((r) => Number(document.querySelector(`[aria-label="${r} steps done"]`)?.textContent) >= 3),
    RUNS,
    { timeout: 120_000, polling: 500 },
  );
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  expect((await stepCounts(lab)).every((n) => n >= 3)).toBe(true);

  // Steps 0, 1 (webgpu) then 2, … (wasm): each exactly once, every value finite.
  const { header, rows } = await downloadCsv(page);
  const col = (k: string) => header.indexOf(k);
  for (const run of RUNS) {
    const steps = rows.filter((r) => r[0] === run).map((r) => Number(r[col('step')]));
    expect(steps.slice(0, 3)).toEqual([0, 1, 2]);
    expect(new Set(steps).size).toBe(steps.length);
    const gpu = rows.filter((r) => r[0] === run).map((r) => Number(r[col('mem/gpu_bytes')]));
    expect(gpu[0]).toBeGreaterThan(0); // trained on the GPU…
    expect(gpu[2]).toBe(0); // …then on wasm
    for (const r of rows.filter((x) => x[0] === run))
      expect(Number.isFinite(Number(r[col('model/alice/grad_norm')]))).toBe(true);
  }
  expect(lab.errors.filter((e) => !/device|GPU|WebGPU/i.test(e))).toEqual([]);
}, 420_000); // two runs on software WebGPU on 2 cores: its waits alone add up to 7 minutes
