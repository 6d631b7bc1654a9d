/**
 * The fused WGSL ops (src/model/kernels/*-webgpu.ts) against the plain tfjs formulation on the cpu
 * backend, in Chromium on software WebGPU (SwiftShader): LayerNorm, linear (bias fused), the MLP
 * (matmul, bias and GELU in one program; GELU's gradient folded into w2's), matmul with transposed
 * gradients, causal self-attention, each forward and every input's gradient, and decoding's cached attention forward,
 * at the nano preset's sizes (test/browser/kernels/check.ts); and AdamW's one-dispatch staged update.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { inject } from 'vitest';
import { buildPage } from './build-page';
import { CHROME_ARGS } from './chrome';
import { serveStatic, type StaticServer } from './static-server';
import type { AdamWRun, KernelCheck } from './kernels/check';

/** The fused WGSL kernels' bound: 1e-4 against the CPU backend on WebGPU/SwiftShader. Measured: at most 1.7e-5 (the matmuls' 64–256-term sums). */
const TOLERANCE = 1e-4;

let server: StaticServer;
let context: BrowserContext;
beforeAll(async () => {
  await buildPage('test/browser/kernels', 'out/kernel-check');
  server = await serveStatic('out/kernel-check');
  context = await chromium
    .launch({ executablePath: inject('chromePath'), headless: true, args: CHROME_ARGS })
    .then((b) => b.newContext());
});
afterAll(async () => {
  await context?.browser()?.close();
  await server?.close();
});

/** Opens the check page and runs its function `name`; `errors` collects the page's errors meanwhile. */
async function runCheck<T>(name: 'checkKernels' | 'checkAdamW'): Promise<{ result: T; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Chromium asks for /favicon.ico, which this page has not: its 404 is the one failed load allowed.
  page.on(
    'console',
    (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()),
  );
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction((f) => f in globalThis, name, { timeout: 30_000 });
  const result = (await page.evaluate(
    (f) => (globalThis as unknown as Record<string, () => Promise<unknown>>)[f](),
    name,
  )) as T;
  return { result, errors };
}

it('every fused WebGPU op and its gradients match the cpu backend within 1e-4', async () => {
  const { result, errors } = await runCheck<KernelCheck>('checkKernels');
  const { diffs, fused } = result;
  expect(fused).toEqual(['attention', 'rowwise', 'gemm', 'adamw']); // the WGSL programs ran, not webgpu's plain ops
  const ops = ['layerNorm', 'linear', 'mlp', 'matmul', 'selfAttention', 'cachedAttention'];
  for (const op of ops)
    expect(
      Object.keys(diffs).some((k) => k.startsWith(`${op}/`)),
      op,
    ).toBe(true);
  expect(Object.keys(diffs)).toHaveLength(20); // y and every input's gradient; cached attention forward only
  for (const [k, d] of Object.entries(diffs)) expect(d, k).toBeLessThan(TOLERANCE);
  expect(errors).toEqual([]);
  expect(server.log.filter((r) => r.status !== 200 && r.path !== '/favicon.ico')).toEqual([]);
});

it('AdamW in one dispatch for all parameters (two with the norm and clip) matches the cpu backend over clipped, partial, reassigned, rolled-back, plain and resumed steps', async () => {
  const { result, errors } = await runCheck<{ diffs: Record<string, number>; cpu: AdamWRun; got: AdamWRun }>(
    'checkAdamW',
  );
  const { diffs, cpu, got } = result;
  // Steps: plain, clipped by the norm on the device, the same with one parameter without a gradient,
  // scaled after a weight was assigned from outside, v overflowing (rolled back), the next, tfjs's
  // ops clipped on the device, the kernel again, a new optimizer from the saved state.
  for (const run of [cpu, got]) {
    expect(run.bad.map((b) => b !== 0)).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(run.intact).toBe(true);
    expect(run.resumed).toBe(true);
  }
  // Every parameter's update in one compute dispatch, with the norm and clip two; a switch of kernels
  // moves the moments (a few more).
  expect(got.dispatches.slice(0, 6)).toEqual([1, 2, 2, 1, 1, 1]);
  expect(got.dispatches[8]).toBe(1);
  expect(got.norms.map((x) => x > 100)).toEqual([false, true, true, false, false, false, true, false, false]);
  expect(got.dispatches[6]).toBeGreaterThan(28); // tfjs's ops: several per parameter
  expect(Object.keys(diffs)).toEqual(['adamw/theta', 'adamw/m', 'adamw/v', 'adamw/norm']);
  // Bounded: the same tensors after every step of the one dispatch (θ, m, v, the spare pair, the
  // gathered buffer, the table), and no new GPU buffer from one such step to the next (around the
  // others the check reads a snapshot back or runs tfjs's ops, which take buffers of their own).
  expect(new Set([0, 1, 2, 3, 4, 5, 7, 8].map((i) => got.tensors[i]))).toEqual(new Set([got.tensors[0]]));
  expect(got.poolBytes[2]).toBe(got.poolBytes[1]);
  expect(got.poolBytes[5]).toBe(got.poolBytes[4]);
  for (const [k, d] of Object.entries(diffs)) expect(d, k).toBeLessThan(TOLERANCE);
  expect(errors).toEqual([]);
});
