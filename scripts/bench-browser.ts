/**
 * The model benchmark (bench-workload.ts) in headless Chromium, per backend: train ms/step, KV
 * decode tok/s, dispatches and readbacks per step and per token (WebGPU's counted at the API), the
 * WebGPU buffer pool after the runs and its buffer copies per train step. Runs on SwiftShader here; on a machine with a GPU, pass
 * Chromium's GPU flags with `--chrome-args`.
 *
 *   npm run bench:browser -- [--presets small,nano] [--backends webgpu,wasm] [--reps 3] [--rows 64]
 *                            [--kernels fused,plain] [--chrome PATH] [--chrome-args "--use-angle=vulkan ..."]
 *                            [--threads 1,2] [--split all|gemm] [--gemm auto,4x8,3x12,6x8] [--timeout 1800] [--no-build]
 *                            [--vs-torch [--torch-threads 1,2] [--python PATH]]
 *
 * `--kernels`: the fused kernels (wasm's SIMD module, webgpu's WGSL programs; the default) and/or
 * tfjs's plain ops, on each backend that has fused kernels.
 *
 * `--threads`: wasm threads, one fresh worker per count (tfjs starts its backend once per worker).
 * The page is served cross-origin isolated (src/host/headers.ts), so tfjs loads its threaded SIMD
 * binary for counts above 1; the table's `thr` column is the count the backend reports running.
 * `--split gemm` splits only the fused GEMMs over those threads (as before attention and GELU were
 * split too; the default `all` is the lab's): an A/B of the attention and GELU split, run back to back.
 * `--gemm`: the a·b GEMMs' register tile on wasm's fused kernels (src/model/kernels/gemm-tile.ts):
 * `auto` (the lab's: each instance times them on its calls and keeps the fastest), `4x8`, `3x12` or
 * `6x8`, one row each, labelled with the tile: an A/B of the tiles, which give the same bits.
 *
 * `--vs-torch`: also runs bench/torch_ref.py (PyTorch on the CPU, the same model and workload) once
 * per preset and `--torch-threads` count just before the page, and prints the page's wasm rows (every
 * kernel set and thread count) beside it with the ratios: the lab per kernel set and thread count and
 * PyTorch, all from one run. A page has no CPU clock, so the ratios are of wall time.
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
import { ISOLATION_HEADERS } from '../src/host/headers';
import { arg, flag, watchdog } from './cli-args';
import { formatTable } from './bench-workload';
import type { BenchReply, BenchRequest } from './bench-browser/worker';
import { gptConfig } from '../src/core/gpt-config';
import { GEMM_TILES } from '../src/model/kernels/gemm-tile';
import { findTorchPython, formatVsTorch, runTorch, type TorchResult } from './torch-ref';

const smoke = flag('smoke');
const threadCounts = arg('threads', '1').split(',').map(Number);
if (threadCounts.some((n) => !(Number.isInteger(n) && n >= 1)))
  throw new Error(`--threads: whole numbers ≥ 1, comma-separated (1,2), not ${arg('threads', '')}`);
const request: Omit<BenchRequest, 'threads'> = {
  presets: arg('presets', smoke ? 'nano' : 'small,nano').split(',') as BenchRequest['presets'],
  // Smoke: wasm only; a WebGPU train step on SwiftShader takes ~20 s here (test/browser/webgpu-run covers that path).
  backends: arg('backends', smoke ? 'wasm' : 'webgpu,wasm').split(',') as BenchRequest['backends'],
  reps: Number(arg('reps', smoke ? '1' : '3')),
  rows: Number(arg('rows', smoke ? '2' : '64')),
  kernels: arg('kernels', 'fused').split(',') as BenchRequest['kernels'],
  split: arg('split', 'all') as BenchRequest['split'],
  gemm: arg('gemm', 'auto').split(',') as BenchRequest['gemm'],
};
if (request.gemm.some((t) => t !== 'auto' && !GEMM_TILES.includes(t)))
  throw new Error(`--gemm: auto, ${GEMM_TILES.join(', ')}, comma-separated, not ${request.gemm.join(',')}`);
if (request.split !== 'all' && request.split !== 'gemm')
  throw new Error(`--split: all (the lab's) or gemm (the GEMMs only), not ${String(request.split)}`);
if (request.kernels.some((k) => k !== 'fused' && k !== 'plain'))
  throw new Error(`--kernels: fused, plain or both (fused,plain), not ${request.kernels.join(',')}`);
const timeoutS = Number(arg('timeout', smoke ? '300' : '1800'));
watchdog(timeoutS, 'bench:browser');
const outDir = resolve('out/bench-browser');

const torchThreads = arg('torch-threads', '1').split(',').map(Number);
if (torchThreads.some((n) => !(Number.isInteger(n) && n >= 1)))
  throw new Error(
    `--torch-threads: whole numbers ≥ 1, comma-separated (1,2), not ${arg('torch-threads', '')}`,
  );
const torchPython = flag('vs-torch') ? findTorchPython(arg('python', '')) : null;
if (torchPython && 'skip' in torchPython) console.log(torchPython.skip);
/** PyTorch's figures per preset, one per --torch-threads count, measured just before the page. */
const torch: { preset: string; result: TorchResult }[] = [];
if (torchPython && 'python' in torchPython) {
  for (const preset of request.presets) {
    for (const threads of torchThreads) {
      const result = runTorch(torchPython.python, gptConfig(preset, { contextLength: 64 }), {
        reps: request.reps,
        rows: request.rows,
        threads,
      });
      torch.push({ preset, result });
      console.log(
        `${preset}/${result.implementation} (${threads} thread(s), ${result.blas ?? 'BLAS unknown'}): ${result.trainMs.toFixed(0)} ms/step, ${result.decodeTokPerS.toFixed(0)} tok/s KV`,
      );
    }
  }
}

if (!flag('no-build')) await buildPage('scripts/bench-browser', outDir);
const server = await serveStatic(outDir, 0, ISOLATION_HEADERS);
const dir = resolve('out/bench-browser-profile');
const context = await chromium.launchPersistentContext(dir, {
  executablePath: arg('chrome', '') || ensureChrome(),
  headless: true,
  args: [...CHROME_ARGS, ...arg('chrome-args', '').split(' ').filter(Boolean)],
});
const replies: BenchReply[] = [];
/** Per thread count, the 1-minute load average before and after its runs: the machine is shared. */
const loads: string[] = [];
let version = 'Chromium';
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => 'benchmark' in globalThis, null, { timeout: 30_000 });
  page.setDefaultTimeout(timeoutS * 1000);
  version =
    (await page.evaluate(() => navigator.userAgent)).match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? version;
  for (const threads of threadCounts) {
    const before = loadavg()[0];
    replies.push(
      await page.evaluate(
        (r) => (globalThis as unknown as { benchmark(r: unknown): Promise<BenchReply> }).benchmark(r),
        { ...request, threads },
      ),
    );
    loads.push(
      `${threads} thread${threads > 1 ? 's' : ''}: ${before.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
    );
  }
  if (errors.length) throw new Error(`bench:browser page errors: ${errors.join(' | ')}`);
} finally {
  await context.close();
  await server.close();
}

const reply: BenchReply = {
  results: replies.flatMap((r) => r.results),
  skipped: Object.assign({}, ...replies.map((r) => r.skipped)),
  adapter: replies[0].adapter,
  isolated: replies.every((r) => r.isolated),
};
const adapter = reply.adapter ? `, WebGPU adapter: ${reply.adapter}` : '';
const machine = `${cpus().length} cores (${cpus()[0]?.model}), ${version}, page ${reply.isolated ? '' : 'not '}cross-origin isolated${adapter}`;
console.log(
  `\n${machine}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(
      ' ',
    )} (1 min, before → after: ${loads.join('; ')}), ${request.rows} rows${request.split === 'gemm' ? ', only the GEMMs split over threads' : ''}\n`,
);
for (const [b, why] of Object.entries(reply.skipped)) console.log(`${b}: skipped, ${why}`);
console.log(formatTable(reply.results));
for (const t of torch)
  console.log(
    `\n${formatVsTorch(
      t.preset,
      reply.results.filter((r) => r.preset === t.preset && r.backend === 'wasm'),
      t.result,
    )}`,
  );
const bad = reply.results.filter((r) => !(r.trainMs > 0 && r.decodeTokPerS > 0));
if (bad.length)
  throw new Error(`bench:browser: no figures for ${bad.map((r) => `${r.preset}/${r.backend}`).join(', ')}`);
if (!smoke) {
  mkdirSync('bench', { recursive: true });
  const out = {
    machine,
    date: new Date().toISOString(),
    request: { ...request, threads: threadCounts },
    loads,
    skipped: reply.skipped,
    results: reply.results,
    ...(torch.length ? { torch } : {}),
  };
  writeFileSync('bench/browser-results.json', JSON.stringify(out, null, 2) + '\n');
}
process.exit(0);
