/**
 * Cluster runs in the page: event files dropped onto the drop zone are parsed in a worker and
 * charted as read-only runs beside the session's; then the main thread's long tasks while a
 * 100k-record file is imported (figures printed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeEventFile } from '../../src/interop/tensorboard';
import { encodeFileVersion, encodeScalars } from '../../src/interop/tb-event';
import { frameRecords } from '../../src/interop/tfrecord';
import { observeLongTasks, openLab } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** Files (name → bytes) in the page, as a drag from a folder would carry them. */
async function dragged(l: Lab, files: Record<string, Uint8Array>) {
  const payload = Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]);
  return l.page.evaluateHandle((entries) => {
    const dt = new DataTransfer();
    for (const [name, b64] of entries) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    return dt;
  }, payload);
}

/** Drops them onto the page's drop zone. */
async function drop(l: Lab, files: Record<string, Uint8Array>): Promise<void> {
  await l.page.dispatchEvent('[data-testid="drop-zone"]', 'drop', { dataTransfer: await dragged(l, files) });
}

describe('importing cluster runs on the page', () => {
  it('charts a dropped event file’s series, mapped to the lab’s keys, beside nothing else', async () => {
    lab = await openLab();
    const { page } = lab;
    const rows = Array.from({ length: 30 }, (_, step) => ({
      step,
      'critic/score/mean': 0.3 + step / 100,
      'actor/Qwen3-4B_VerifierAgent/grad_norm': 1 + Math.sin(step),
    }));
    await drop(lab, { 'events.out.tfevents.1700000000.node0': writeEventFile(rows, 1.7e9) });
    await expect.poll(() => page.getByTestId('import-notes').textContent(), { timeout: 30_000 }).toContain('30 steps');
    const reward = page.locator('figure[aria-label="Reward"] .series-line');
    await reward.first().waitFor({ timeout: 30_000 });
    expect(await reward.first().getAttribute('data-series')).toContain('(imported)');
    const grad = page.locator('figure[aria-label="Pre-clip grad norm"] .series-line');
    await grad.first().waitFor({ timeout: 30_000 });
    expect(await grad.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-series')))).toContain('events.out.tfevents.1700000000.node0 (imported) · verifier');
    expect(await page.getByTestId('import-notes').textContent()).toContain('agents inferred: Qwen3-4B_VerifierAgent → verifier');
    expect(lab.errors).toEqual([]);
  });

  it('imports a 100k-record event file in a worker (main-thread long tasks measured)', async () => {
    lab = await openLab();
    const { page } = lab;
    const tags = ['grad_norm', 'pg_loss', 'pg_clipfrac', 'ppo_kl'].flatMap((s) => ['SolverAgent', 'VerifierAgent', 'SearchAgent'].map((a) => `actor/Qwen3-4B_${a}/${s}`));
    const records = [encodeFileVersion(1.7e9)];
    for (let i = 0; i < 99_999; i++) records.push(encodeScalars(Math.floor(i / tags.length), 1.7e9 + i / 100, [[tags[i % tags.length], Math.cos(i)]]));
    const bytes = frameRecords(records);
    const dataTransfer = await dragged(lab, { 'events.out.tfevents.1700000000.big': bytes }); // before the clock starts
    const tasks = () => page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks.splice(0).map(Math.round));
    await observeLongTasks(page);
    // A small run first, so the chart board's first mount (not the import) is measured apart.
    await drop(lab, { 'events.out.tfevents.1700000000.small': writeEventFile([{ step: 0, 'actor/Qwen3-4B_SolverAgent/grad_norm': 1 }], 1.7e9) });
    await page.locator('figure[aria-label="Pre-clip grad norm"] .series-line').first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    const boardMount = await tasks();
    const t0 = Date.now();
    await page.dispatchEvent('[data-testid="drop-zone"]', 'drop', { dataTransfer });
    await expect.poll(() => page.getByTestId('import-notes').textContent(), { timeout: 60_000 }).toContain('100000 records');
    const ms = Date.now() - t0;
    await page.waitForTimeout(1000);
    const importing = await tasks();
    console.log('[import 100k]', JSON.stringify({ records: 100_000, bytes: bytes.length, msToNote: ms, longTaskMsImporting: importing, longTaskMsBoardMount: boardMount }));
    expect(lab.errors).toEqual([]);
  });
});
