/**
 * The wasm thread setting in the app: a run started with 2 threads per run (the backend panel's
 * setting) reports 2 in the status line and records bitwise the metrics of the same experiment run
 * on 1 thread; only wall-clock figures differ. The setting is kept for the next visit, not in the link.
 * A host whose Content-Security-Policy refuses blob: workers (tfjs starts its pthreads from blob:
 * URLs) gets 1 thread, said in the status, instead of a backend that never starts.
 */
import { afterEach, expect, it } from 'vitest';
import { contentSecurityPolicy, ISOLATION_HEADERS } from '../../src/host/headers';
import { downloadCsv, openLab, TINY, trainEnabled, waitSteps } from './harness';
import { DIST, serveStatic } from './static-server';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const STEPS = 3;
/** Wall-clock metrics: the only ones the thread count may change. */
const WALL_CLOCK = /^(time_s|perf\/.*_(ms|per_s))$/;

/** Trains TINY for STEPS steps at `threads` threads per run; the status line's threads and the non-wall-clock CSV. */
async function train(
  threads: number,
): Promise<{ shown: string; link: string; kept: string | null; rows: Record<string, string>[] }> {
  lab = await openLab(`${TINY.replace('rollout.batchSize=1', 'rollout.batchSize=2')}&steps=${STEPS}`);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByLabel('wasm threads per run').selectOption(String(threads));
  await page
    .getByTestId('backend-status')
    .getByText(`wasm on ${threads} thread`)
    .waitFor({ timeout: 120_000 });
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= STEPS));
  const shown = (await page.locator('.backend-where').textContent()) ?? '';
  const { header, rows: lines } = await downloadCsv(page);
  const rows = lines.map((cells) =>
    Object.fromEntries(header.map((k, i) => [k, cells[i]]).filter(([k]) => !WALL_CLOCK.test(k))),
  );
  const link = page.url();
  const kept = await page.evaluate(() => localStorage.getItem('agentwise.wasm-threads'));
  expect(lab.errors).toEqual([]);
  await lab.close();
  lab = undefined;
  return { shown, link, kept, rows };
}

it('a run on 2 wasm threads says so and records bitwise what 1 thread records', async () => {
  const one = await train(1);
  const two = await train(2);
  expect([one.shown, two.shown]).toEqual(['CPU (WebAssembly, 1 thread)', 'CPU (WebAssembly, 2 threads)']);
  expect([one.kept, two.kept]).toEqual(['1', '2']);
  expect(two.link).not.toMatch(/thread/);
  expect(one.rows.length).toBe(2 * STEPS); // both runs, every step
  const loss = Object.keys(one.rows[0]).find((k) => k.endsWith('/pg_loss'))!;
  expect(one.rows.map((r) => Number(r[loss])).every(Number.isFinite)).toBe(true); // real values to compare
  expect(two.rows).toEqual(one.rows);
}, 600_000);

it('under a CSP without blob: workers, 2 threads asked start wasm on 1 thread instead of never', async () => {
  const strict = contentSecurityPolicy()
    .replace("'wasm-unsafe-eval' blob:", "'wasm-unsafe-eval'")
    .replace("worker-src 'self' blob:", "worker-src 'self'");
  expect(strict).not.toMatch(/(script|worker)-src[^;]*blob:/);
  const server = await serveStatic(DIST, 0, { ...ISOLATION_HEADERS, 'Content-Security-Policy': strict });
  try {
    lab = await openLab(TINY, server.origin);
    const { page } = lab;
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await trainEnabled(page);
    await page.getByLabel('wasm threads per run').selectOption('2');
    await page.getByTestId('backend-status').getByText('wasm on 1 thread').waitFor({ timeout: 120_000 });
    await expect.poll(() => page.getByTestId('threads-choice').textContent()).toMatch(/^2 \(2 asked/);
  } finally {
    await server.close();
  }
}, 300_000);
