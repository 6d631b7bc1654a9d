/**
 * Checkpoints through the page: download every run's weights, start new runs from them (asked
 * first while runs are on screen), and refuse a corrupt file with an alert naming it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { TINY, openLab, runsIn, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

it('downloads checkpoints, starts runs from them, and names a corrupt upload', async () => {
  lab = await openLab(TINY);
  const { page } = lab;
  await trainEnabled(page, 120_000);
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  // Both runs through their step and paused: the files below must all be of step 1 (GRPO's counter
  // alone left Dr. MAS possibly mid-step, its checkpoint then of step 0, unlike the names expected).
  await waitSteps(lab, (s) => s.every((n) => n >= 1), 120_000);
  await runsIn(lab, 'paused', 60_000);

  // Two runs × two models: four files, named after run, step and model.
  const downloads: { name: string; path: string }[] = [];
  page.on('download', async (d) => downloads.push({ name: d.suggestedFilename(), path: (await d.path())! }));
  await page.getByRole('button', { name: 'Download checkpoints' }).click();
  await expect.poll(() => downloads.length, { timeout: 60_000 }).toBe(4);
  const grpo = downloads.filter((d) => d.name.startsWith('agentwise-grpo-'));
  expect(grpo.map((d) => d.name).sort()).toEqual([
    'agentwise-grpo-step-1-alice.ckpt',
    'agentwise-grpo-step-1-bob.ckpt',
  ]);

  const input = page.getByLabel('Start from checkpoints');
  const files = (ds: typeof downloads) =>
    ds.map((d) => ({ name: d.name, mimeType: 'application/octet-stream', buffer: readFileSync(d.path) }));
  /** Picks files with runs on screen: the page asks first, since the runs start over from them. */
  const pick = async (f: Parameters<typeof input.setInputFiles>[0], answer: string) => {
    await input.setInputFiles(f);
    const ask = page.getByRole('alertdialog');
    await ask.waitFor();
    expect(await ask.textContent()).toContain('Start from these checkpoints: the runs start over from them');
    await page.getByRole('button', { name: answer }).click();
  };

  // Keep the current runs: the files are dropped, the runs stay.
  await pick(files(downloads), 'Keep the current runs');
  expect(await page.getByTestId('uploads').count()).toBe(0);
  expect(await page.locator('.run-status').count()).toBe(2);
  expect(await page.getByLabel('GRPO steps done').textContent()).toBe('1');

  // All four back (every run's files): refused naming both files for a model and what to give.
  await pick(files(downloads), 'Start a new session');
  await page.getByTestId('uploads').waitFor();
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page
    .getByRole('alert')
    .filter({
      hasText:
        /agentwise-(grpo|dr-mas)-step-1-alice\.ckpt and agentwise-(grpo|dr-mas)-step-1-alice\.ckpt are both checkpoints for model alice: every run starts from one checkpoint per model, so give one run's files/,
    })
    .first()
    .waitFor({ timeout: 120_000 });

  // Start from GRPO's weights: every run reports its models as uploaded.
  await pick(files(grpo), 'Start a new session');
  await page.getByTestId('uploads').waitFor();
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('.run-status')].every((li) =>
        /alice: checkpoint file agentwise-grpo-step-1-alice\.ckpt/.test(li.getAttribute('title') ?? ''),
      ),
    null,
    { timeout: 120_000 },
  );
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  // A corrupt file is refused by the workers, naming it.
  const bad = join(tmpdir(), 'broken-alice.ckpt');
  writeFileSync(bad, 'AGWGPT01garbage');
  await pick(bad, 'Start a new session');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'broken-alice.ckpt' })
    .first()
    .waitFor({ timeout: 120_000 });
});
