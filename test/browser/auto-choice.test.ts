/**
 * `auto` against a real software GPU: in Chromium with SwiftShader, WebGPU and WebGL are timed
 * (their sanity checks pass) instead of skipped, and wasm must win, both when SwiftShader's first
 * step outlasts the 3 s budget (no figure, left to finish unseen: the start does not hang) and
 * when a generous budget times every candidate's second step (test/browser/auto/page.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { buildPage } from './build-page';
import { CHROME_ARGS } from './chrome';
import { serveStatic, type StaticServer } from './static-server';
import type { BackendReport } from '../../src/runtime/backend-types';

let server: StaticServer;
let context: BrowserContext;
beforeAll(async () => {
  await buildPage('test/browser/auto', 'out/auto-choice');
  server = await serveStatic('out/auto-choice');
  context = await chromium
    .launch({ executablePath: inject('chromePath'), headless: true, args: CHROME_ARGS })
    .then((b) => b.newContext());
});
afterAll(async () => {
  await context?.browser()?.close();
  await server?.close();
});

async function chooseAuto(
  budgetMs: number,
): Promise<{ report: BackendReport; errors: string[]; page: Page }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on(
    'console',
    (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()),
  );
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => 'chooseAuto' in globalThis, null, { timeout: 30_000 });
  const report = await page.evaluate(
    (ms) => (globalThis as unknown as { chooseAuto(ms: number): Promise<BackendReport> }).chooseAuto(ms),
    budgetMs,
  );
  return { report, errors, page };
}

/** One line of figures per case (the README quotes them): ms per nano train step, or why none. */
const figures = (r: BackendReport) =>
  r
    .measurement!.timings.map(
      (t) =>
        `${t.backend} ${t.stepMs !== undefined ? `${Math.round(t.stepMs)} ms (warm-up ${Math.round(t.warmupMs!)} ms)` : (t.note ?? `first step ${Math.round(t.warmupMs!)} ms`)}`,
    )
    .join('; ');

it('with the 3 s budget, wasm is timed first and wins; SwiftShader gets what is left, and a step past it gives no figure', async () => {
  const { report, errors, page } = await chooseAuto(3000);
  console.log(`auto, 3 s budget: ${figures(report)}`);
  expect(report.backend).toBe('wasm');
  expect(report.attempts.map((a) => [a.backend, a.ok])).toEqual([
    ['webgpu', false],
    ['webgl', false],
    ['wasm', true],
  ]);
  const [wasm, ...gpus] = report.measurement!.timings;
  expect(wasm).toMatchObject({ backend: 'wasm', stepMs: expect.any(Number), warmupMs: expect.any(Number) });
  expect(gpus.map((t) => t.backend)).toEqual(['webgpu', 'webgl']);
  // SwiftShader's sanity checks pass; then each either has a figure or says why not (the budget).
  for (const t of gpus) if (t.warmupMs === undefined) expect(t.note).toMatch(/budget/);
  expect(report.attempts[0].reason).toMatch(
    /^passed the sanity check but (is slower|has no figure): .*vs wasm's \d+ ms per nano train step.*\(software adapter google swiftshader, isFallbackAdapter\); max \|Δ\| vs cpu/,
  );
  expect(report.attempts[2].reason).toMatch(
    /^fastest measured: \d+ ms per nano train step \(after a \d+ ms warm-up step\)/,
  );
  expect(errors).toEqual([]);
  await page.close();
});

it('with a budget that times every candidate twice, wasm is the least timed step (SwiftShader vs wasm: wasm wins)', async () => {
  const { report, errors, page } = await chooseAuto(120_000);
  console.log(`auto, 120 s budget: ${figures(report)}`);
  const timings = report.measurement!.timings;
  expect(timings.map((t) => t.backend)).toEqual(['wasm', 'webgpu', 'webgl']);
  for (const t of timings) expect(t.stepMs, t.backend).toBeGreaterThan(0);
  const least = timings.reduce((a, b) => (b.stepMs! < a.stepMs! ? b : a));
  expect(least.backend).toBe('wasm');
  expect(report.backend).toBe('wasm');
  expect(report.attempts[0].reason).toMatch(
    /^passed the sanity check but is slower: \d+ ms per nano train step \(after a \d+ ms warm-up step\), vs wasm's/,
  );
  expect(errors).toEqual([]);
  await page.close();
});
