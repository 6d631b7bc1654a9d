/**
 * Training on WebGPU in a run worker (software SwiftShader here, so the config is tiny): both runs
 * pass the model sanity check on webgpu, take two steps and send their metric frames to the page.
 */
import { afterEach, expect, it } from 'vitest';
import { downloadCsv, openLab, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('trains two steps of each run on WebGPU and receives their metric frames', async () => {
  lab = await openLab('#v=1&task=sync&backend=webgpu&rollout.batchSize=1&rollout.groupSize=2&eval.every=0');
  const { page } = lab;
  await page.getByTestId('backend-name').waitFor({ timeout: 120_000 });
  expect(await page.getByTestId('backend-name').textContent()).toBe('webgpu');
  await trainEnabled(page, 120_000);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.waitForFunction(
    () =>
      ['GRPO', 'Dr. MAS'].every(
        (r) => Number(document.querySelector(`[aria-label="${r} steps done"]`)?.textContent) >= 2,
      ),
    null,
    { timeout: 240_000, polling: 500 },
  );
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  // The frames reached the page: the CSV export holds their metrics, finite where they should be.
  const { header, rows } = await downloadCsv(page);
  const col = (k: string) => header.indexOf(k);
  for (const run of ['GRPO', 'Dr. MAS']) {
    const mine = rows.filter((r) => r[0] === run);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const r of mine) {
      expect(Number(r[col('agent/alice/calls')])).toBe(2);
      expect(Number.isFinite(Number(r[col('model/alice/grad_norm')]))).toBe(true);
      expect(Number(r[col('mem/gpu_bytes')])).toBeGreaterThan(0); // the tensors live on the GPU
    }
  }
  expect(lab.errors).toEqual([]);
  // Its own waits allow 8 minutes: two runs on software WebGPU took 37 s on a quiet 2-core CI
  // machine, and SwiftShader's first step is several times slower on a loaded one (auto-choice.test.ts).
}, 480_000);
