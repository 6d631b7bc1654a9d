/**
 * The model benchmark (bench-workload.ts) in headless Chromium, per backend: train ms/step, KV
 * decode tok/s, dispatches and readbacks per step and per token (WebGPU's counted at the API), and
 * the WebGPU buffer pool after the runs. Runs on SwiftShader here; on a machine with a GPU, pass
 * Chromium's GPU flags with `--chrome-args`.
 *
 *   npm run bench:browser -- [--presets small,nano] [--backends webgpu,wasm] [--reps 3] [--rows 64]
 *                            [--kernels fused,plain] [--chrome PATH] [--chrome-args "--use-angle=vulkan ..."]
 *                            [--timeout 1800] [--no-build]
 *
 * `--kernels`: the fused kernels (wasm's SIMD module, webgpu's WGSL programs; the default) and/or
 * tfjs's plain ops, on each backend that has fused kernels.
 *
 * `--smoke`: nano, 2 rows, one rep on wasm, nothing written (npm test runs it). Builds
 * scripts/bench-browser/ with Vite into out/bench-browser/ (skipped with --no-build), serves it with
 * the browser tests' static server, writes bench/browser-results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { buildPage } from '../test/browser/build-page';
import { CHROME_ARGS, ensureChrome } from '../test/browser/chrome';
import { serveStatic } from '../test/browser/static-server';
import { arg, flag, watchdog } from './cli-args';
import { formatTable } from './bench-workload';
import type { BenchReply, BenchRequest } from './bench-browser/worker';

const smoke = flag('smoke');
const request: BenchRequest = {
  presets: arg('presets', smoke ? 'nano' : 'small,nano').split(',') as BenchRequest['presets'],
  // Smoke: wasm only; a WebGPU train step on SwiftShader takes ~20 s here (test/browser/webgpu-run covers that path).
  backends: arg('backends', smoke ? 'wasm' : 'webgpu,wasm').split(',') as BenchRequest['backends'],
  reps: Number(arg('reps', smoke ? '1' : '3')),
  rows: Number(arg('rows', smoke ? '2' : '64')),
  kernels: arg('kernels', 'fused').split(',') as BenchRequest['kernels'],
};
if (request.kernels.some((k) => k !== 'fused' && k !== 'plain')) throw new Error(`--kernels: fused, plain or both (fused,plain), not ${request.kernels.join(',')}`);
const timeoutS = Number(arg('timeout', smoke ? '300' : '1800'));
watchdog(timeoutS, 'bench:browser');
const outDir = resolve('out/bench-browser');

if (!flag('no-build')) await buildPage('scripts/bench-browser', outDir);
const server = await serveStatic(outDir);
const dir = resolve('out/bench-browser-profile');
const context = await chromium.launchPersistentContext(dir, {
  executablePath: arg('chrome', '') || ensureChrome(),
  headless: true,
  args: [...CHROME_ARGS, ...arg('chrome-args', '').split(' ').filter(Boolean)],
});
let reply: BenchReply;
let version = 'Chromium';
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => 'benchmark' in globalThis, null, { timeout: 30_000 });
  page.setDefaultTimeout(timeoutS * 1000);
  version = (await page.evaluate(() => navigator.userAgent)).match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? version;
  reply = await page.evaluate((r) => (globalThis as unknown as { benchmark(r: unknown): Promise<BenchReply> }).benchmark(r), request);
  if (errors.length) throw new Error(`bench:browser page errors: ${errors.join(' | ')}`);
} finally {
  await context.close();
  await server.close();
}

const machine = `${cpus().length} cores (${cpus()[0]?.model}), ${version}, wasm single thread${reply.adapter ? `, WebGPU adapter: ${reply.adapter}` : ''}`;
console.log(`\n${machine}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}, ${request.rows} rows\n`);
for (const [b, why] of Object.entries(reply.skipped)) console.log(`${b}: skipped, ${why}`);
console.log(formatTable(reply.results));
const bad = reply.results.filter((r) => !(r.trainMs > 0 && r.decodeTokPerS > 0));
if (bad.length) throw new Error(`bench:browser: no figures for ${bad.map((r) => `${r.preset}/${r.backend}`).join(', ')}`);
if (!smoke) {
  mkdirSync('bench', { recursive: true });
  const out = { machine, date: new Date().toISOString(), request, skipped: reply.skipped, results: reply.results };
  writeFileSync('bench/browser-results.json', JSON.stringify(out, null, 2) + '\n');
}
process.exit(0);
