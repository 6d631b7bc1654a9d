/**
 * How the wasm kernels' thread split pays at each size (src/model/kernels/kernel-threads.ts): in
 * headless Chromium on a cross-origin isolated page, each split op (a·b, a·b + bias with GELU, attention forward and
 * backward, GELU forward and backward) at sizes around the split threshold, timed on one thread and
 * split over `--threads`, alternating, with the µs per call and the ratio. Where the ratio is below 1,
 * splitting is slower than not: the threshold should sit above that size. Wall time (a page has no
 * CPU clock): on a shared machine take the `min` columns, the batches least disturbed.
 *
 *   npm run bench:split -- [--threads 2] [--reps 7] [--timeout 600] [--no-build] [--smoke]
 *
 * `--smoke`: one size per op, 2 reps (npm test runs it). Builds scripts/bench-split/ into out/bench-split/.
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { buildPage } from '../test/browser/build-page';
import { CHROME_ARGS, ensureChrome } from '../test/browser/chrome';
import { serveStatic } from '../test/browser/static-server';
import { ISOLATION_HEADERS } from '../src/host/headers';
import { arg, flag, watchdog } from './cli-args';
import type { SplitReply, SplitRequest } from './bench-split/worker';

const smoke = flag('smoke');
const request: SplitRequest = {
  threads: Number(arg('threads', '2')),
  reps: Number(arg('reps', smoke ? '2' : '7')),
  smoke,
};
if (!(Number.isInteger(request.threads) && request.threads >= 2))
  throw new Error(
    `--threads: a whole number ≥ 2 (the split needs a second thread), not ${arg('threads', '')}`,
  );
watchdog(Number(arg('timeout', smoke ? '240' : '600')), 'bench:split');

const outDir = resolve('out/bench-split');
if (!flag('no-build')) await buildPage('scripts/bench-split', outDir);
const server = await serveStatic(outDir, 0, ISOLATION_HEADERS);
const browser = await chromium.launch({
  executablePath: arg('chrome', '') || ensureChrome(),
  headless: true,
  args: CHROME_ARGS,
});
const before = loadavg()[0];
let reply: SplitReply;
try {
  const page = await browser.newPage();
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => 'sweep' in globalThis, null, { timeout: 30_000 });
  reply = await page.evaluate(
    (r) => (globalThis as unknown as { sweep(r: SplitRequest): Promise<SplitReply> }).sweep(r),
    request,
  );
} finally {
  await browser.close();
  await server.close();
}

const us = (x: number) => x.toFixed(x < 100 ? 1 : 0).padStart(8);
console.log(
  `\n${cpus().length} cores (${cpus()[0]?.model}), ${reply.threads} threads split vs 1, ${request.reps} batches each, load average ${before.toFixed(1)} → ${loadavg()[0].toFixed(1)}\n`,
);
console.log(
  `${'op'.padEnd(14)} ${'shape'.padEnd(20)} ${'work'.padStart(10)}   1 thr µs (min/med)   split µs (min/med)   1 ÷ split (min)`,
);
for (const r of reply.rows) {
  console.log(
    `${r.op.padEnd(14)} ${r.shape.padEnd(20)} ${String(r.work).padStart(10)}   ${us(r.oneMin)} ${us(r.oneMedian)}    ${us(r.splitMin)} ${us(r.splitMedian)}    ${(r.oneMin / r.splitMin).toFixed(2).padStart(6)}`,
  );
}
process.exit(0);
