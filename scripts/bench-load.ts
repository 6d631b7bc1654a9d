/**
 * What a first visit costs: the built lab served from a sub-folder of a plain static server, in
 * headless Chromium.
 *
 *   npm run bench:load -- [--config HASH] [--reps 3]
 *
 * - Bytes: every file the page and its workers fetch until both runs train (service worker
 *   blocked, so only what training needs), by kind, raw and gzipped (gzip -9 of each file, as a
 *   compressing host would send it); then what the service worker precaches in the background.
 * - Time to the Train button (navigation start to Train enabled: page, run worker, tfjs, backend
 *   probe): cold (fresh profile) and warm (a reload once the service worker holds the build).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROME_ARGS, ensureChrome } from '../test/browser/chrome';
import { DIST, serveStatic } from '../test/browser/static-server';
import { trainEnabled } from '../test/browser/train-button';
import { arg, median } from './cli-args';
import { precacheManifest } from './service-worker';

const config = arg('config', '');
const reps = Number(arg('reps', '3'));
const chrome = ensureChrome();

const KINDS: Record<string, string> = { '.js': 'js', '.wasm': 'wasm', '.ckpt': 'models' };
type Sizes = Record<string, { files: number; bytes: number; gzip: number }>;

function sizes(files: string[]): Sizes {
  const out: Sizes = {};
  for (const f of new Set(files)) {
    const kind = KINDS[extname(f)] ?? 'html+css';
    const s = (out[kind] ??= { files: 0, bytes: 0, gzip: 0 });
    s.files += 1;
    s.bytes += statSync(f).size;
    s.gzip += gzipSync(readFileSync(f), { level: 9 }).length;
  }
  const all = Object.values(out);
  out.total = {
    files: all.reduce((a, s) => a + s.files, 0),
    bytes: all.reduce((a, s) => a + s.bytes, 0),
    gzip: all.reduce((a, s) => a + s.gzip, 0),
  };
  return out;
}

const trainReady = async (page: Page): Promise<number> => {
  await trainEnabled(page);
  return Math.round(await page.evaluate(() => performance.now()));
};

async function withProfile<T>(
  serviceWorkers: 'allow' | 'block',
  f: (c: BrowserContext, page: Page) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-load-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: chrome,
    headless: true,
    args: CHROME_ARGS,
    serviceWorkers,
  });
  try {
    return await f(context, context.pages()[0] ?? (await context.newPage()));
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const root = mkdtempSync(join(tmpdir(), 'agentwise-host-'));
mkdirSync(join(root, 'lab'));
symlinkSync(resolve(DIST), join(root, 'lab', 'agentwise'));
const host = await serveStatic(root);
const url = `${host.origin}/lab/agentwise/${config}`;
const fileOf = (path: string) => join(DIST, path.replace('/lab/agentwise/', '') || 'index.html');

try {
  // What training needs, with no service worker fetching the rest alongside.
  const needed = await withProfile('block', async (_, page) => {
    host.log.length = 0;
    await page.goto(url);
    await trainReady(page);
    const beforeTrain = host.log.map((r) => r.path);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    // Running: the base models are loaded (the first step itself fetches nothing more).
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.run-status')].every(
          (li) => li.getAttribute('data-state') === 'running',
        ),
      null,
      { timeout: 300_000 },
    );
    const toFile = (p: string) => fileOf(p.endsWith('/') ? `${p}index.html` : p);
    return {
      toTrainButton: sizes(beforeTrain.map(toFile)),
      toTraining: sizes(host.log.map((r) => toFile(r.path))),
    };
  });
  const precached = sizes(precacheManifest(DIST).map((e) => join(DIST, e.url)));
  console.log(JSON.stringify({ bytes: { ...needed, precachedBySw: precached } }));

  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < reps; i++) {
    await withProfile('allow', async (_, page) => {
      await page.goto(url);
      cold.push(await trainReady(page));
      await page.evaluate(async () => {
        for (;;) {
          if ((await navigator.serviceWorker.getRegistration())?.active?.state === 'activated') return;
          await new Promise((r) => setTimeout(r, 100));
        }
      });
      await page.reload();
      warm.push(await trainReady(page));
    });
  }
  console.log(
    JSON.stringify({
      trainButtonMs: { cold, warm, coldMedian: median(cold), warmMedian: median(warm) },
      cpus: cpus().length,
      loadavg: loadavg().map((x) => +x.toFixed(2)),
    }),
  );
} finally {
  await host.close();
  rmSync(root, { recursive: true, force: true });
}
