/**
 * wasm threads on a cross-origin isolated page (served with src/host/headers.ts's COOP/COEP): the
 * backend reports the threads asked (tfjs's threaded SIMD build, started as the lab's run worker
 * starts it), the fused kernels bind its shared heap and run their GEMMs on as many threads, and a
 * real forward + backward of the `nano` GPT, one AdamW step and a KV-cached decode give the same
 * loss, gradients, weights and tokens at 2 threads as at 1, with the fused kernels and with tfjs's
 * plain ops, within 1e-5 (fused: bitwise, with every split op split). Disposing the threaded backend ends the fused kernels' helper threads
 * (they no longer answer on their control block), and a backend started again in the same worker
 * (a new heap) gets new helpers and computes bitwise what the first did.
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { ISOLATION_HEADERS } from '../../src/host/headers';
import { buildPage } from './build-page';
import { CHROME_ARGS } from './chrome';
import { serveStatic, type StaticServer } from './static-server';
import type { ThreadsCheck } from './threads/page';
import {
  ATTN_BWD,
  ATTN_FWD,
  GELU_BWD,
  GELU_FWD,
  GEMM,
  GEMM_EP,
  GEMM_TN,
} from '../../src/model/kernels/kernel-thread-ops';

let server: StaticServer;
let context: BrowserContext;
beforeAll(async () => {
  await buildPage('test/browser/threads', 'out/threads-check');
  server = await serveStatic('out/threads-check', 0, ISOLATION_HEADERS);
  context = await chromium
    .launch({ executablePath: inject('chromePath'), headless: true, args: CHROME_ARGS })
    .then((b) => b.newContext());
});
afterAll(async () => {
  await context?.browser()?.close();
  await server?.close();
});

it('on an isolated page the wasm backend runs 2 threads and computes what 1 thread computes', async () => {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on(
    'console',
    (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()),
  );
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => 'checkThreads' in globalThis, null, { timeout: 30_000 });
  const { isolated, runs, plainVsFused, restart } = await page.evaluate(() =>
    (globalThis as unknown as { checkThreads(): Promise<ThreadsCheck> }).checkThreads(),
  );
  expect(isolated).toBe(true);
  expect(Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.threads]))).toEqual({
    'fused/1': 1,
    'fused/2': 2,
    'plain/1': 1,
    'plain/2': 2,
  });
  // The fused kernels bind the threaded build's shared heap and split their GEMMs over 2 threads.
  expect(Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.kernelThreads]))).toEqual({
    'fused/1': 1,
    'fused/2': 2,
    'plain/1': 0,
    'plain/2': 0,
  });
  console.log(JSON.stringify({ runs, plainVsFused, restart }));
  expect(plainVsFused).toBeGreaterThan(0); // two formulations round differently: the comparison sees differences
  for (const [k, r] of Object.entries(runs)) expect(r.maxDiff, k).toBeLessThan(1e-5);
  // At 2 threads every split op the fused set runs ran on both (GEMMs, the MLP's GEMM with GELU in its
  // epilogue, attention forward and backward), and bitwise. The separate GELU ops run only with the
  // matmul family off (their split: test/model/kernel-threads.test.ts).
  const splits = runs['fused/2'].splits;
  expect(
    [GEMM, GEMM_TN, GEMM_EP, ATTN_FWD, ATTN_BWD].every((op) => splits[op] > 0),
    String(splits),
  ).toBe(true);
  expect([splits[GELU_FWD], splits[GELU_BWD]]).toEqual([0, 0]);
  expect(runs['fused/1'].splits.every((n) => n === 0)).toBe(true);
  expect(runs['fused/2'].maxDiff).toBe(0);
  // The helper answered a ping while its backend lived and not once the backend was disposed.
  expect(restart).toEqual({
    answeredBefore: 1,
    answeredAfter: 0,
    kernelThreads: 2,
    newPool: true,
    maxDiff: 0,
  });
  expect(errors).toEqual([]);
  expect(server.log.filter((r) => r.status !== 200 && r.path !== '/favicon.ico')).toEqual([]);
});
