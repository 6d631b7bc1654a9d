/**
 * The built lab on a plain static host (Node's http, no Vite, no headers) under a sub-path, as
 * GitHub Pages or a web folder would serve it: it loads, trains, and every request it makes (page,
 * run and env workers, tfjs and kernel wasm, base models) stays on the origin and is found.
 * "Copy link" gives the page's own address under the sub-path. After the first visit the service
 * worker opens and trains it offline, cross-origin isolated; a new build takes over on the next
 * load with a notice, and no file of the old build is asked for or kept.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import { afterEach, expect, it } from 'vitest';
import { TINY, openLab, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';
import { DIST, serveStatic } from './static-server';
import type { StaticServer } from './static-server';

let lab: Lab | undefined;
let host: StaticServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await lab?.close();
  await host?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  lab = host = root = undefined;
  for (const dir of builds.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const builds: string[] = [];

/** A host whose dist/ copy lives at /labs/agentwise/; returns that folder's URL. */
async function hostInSubFolder(): Promise<string> {
  root = mkdtempSync(join(tmpdir(), 'agentwise-host-'));
  mkdirSync(join(root, 'labs'));
  publish(DIST);
  host = await serveStatic(root);
  return `${host.origin}/labs/agentwise`;
}

/** Puts a build at the host's sub-folder (replacing what was there), as copying dist/ would. */
function publish(dist: string): void {
  const at = join(root!, 'labs', 'agentwise');
  if (existsSync(at)) unlinkSync(at);
  symlinkSync(resolve(dist), at);
}

/** Resolves once the page's service worker has installed (precached the build) and activated. */
const swActive = (l: Lab) =>
  expect
    .poll(
      () => l.page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.state),
      { timeout: 120_000 },
    )
    .toBe('activated');

it('trains from a sub-folder of a plain static host, with no request leaving the origin or missing', async () => {
  const base = await hostInSubFolder();
  lab = await openLab(TINY, base);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 2));

  const served = host!.log;
  expect(served.filter((r) => r.status === 404)).toEqual([]);
  const paths = served.map((r) => r.path);
  // The workers, the wasm binaries and the base models all came from the sub-folder.
  for (const kind of [/run\.worker-.*\.js$/, /env\.worker-.*\.js$/, /\.wasm$/, /alice-.*\.ckpt$/]) {
    expect(paths.filter((p) => kind.test(p)).every((p) => p.startsWith('/labs/agentwise/assets/'))).toBe(
      true,
    );
    expect(paths.some((p) => kind.test(p))).toBe(true);
  }
  const remote = lab.requests.filter((u) => /^https?:/.test(u) && !u.startsWith(`${host!.origin}/`));
  expect(remote).toEqual([]);
  expect(
    lab.requests.filter((u) => u.startsWith(`${host!.origin}/`)).every((u) => u.startsWith(`${base}/`)),
  ).toBe(true);

  await lab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host!.origin });
  await page.getByRole('button', { name: 'Copy link' }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await page.evaluate(() => location.href));
  expect(copied.startsWith(`${base}/#v=1&task=sync&`)).toBe(true);
  expect(lab.errors).toEqual([]);
});

it('opens and trains offline after the first visit, and takes a new build on the next load without mixing', async () => {
  const base = await hostInSubFolder();
  lab = await openLab(TINY, base);
  const { page, context } = lab;
  await trainEnabled(page);
  await swActive(lab);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false); // no headers from this host

  // Offline, the host gone: a new experiment opens (a full load) and trains, under the CSP of the
  // cached index.html's meta tag (this host sends no header) with no violation.
  await context.addInitScript(() => {
    const seen: string[] = ((window as unknown as { cspViolations: string[] }).cspViolations = []);
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await context.setOffline(true);
  await host!.close();
  await page.goto('about:blank');
  await page.goto(`${base}/${TINY.replace('groupSize=2', 'groupSize=4')}`);
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 2));
  // The service worker's COOP/COEP made the page isolated where the host sends no headers.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(await page.locator('meta[http-equiv=Content-Security-Policy]').count()).toBe(1);
  expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual(
    [],
  );
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  // A new build replaces the old one on the host. The next load finds it, it takes over, the page
  // says so, and from then on only the new build's files are asked for and kept.
  const next = mkdtempSync(join(tmpdir(), 'agentwise-build-'));
  builds.push(next);
  process.env.LAB_BUILD_ID = 'test-update';
  try {
    await build({ logLevel: 'error', build: { outDir: next, emptyOutDir: true } });
  } finally {
    delete process.env.LAB_BUILD_ID;
  }
  publish(next);
  host = await serveStatic(root!, Number(new URL(base).port));
  await context.setOffline(false);
  await page.reload();
  const notice = page.getByTestId('update-notice');
  await notice.waitFor({ timeout: 120_000 });
  expect(await notice.textContent()).toMatch(/^Lab updated to build test-update\./);
  await trainEnabled(page);
  const after = host!.log;
  expect(after.filter((r) => r.status === 404)).toEqual([]);
  expect(after.every((r) => r.path.startsWith('/labs/agentwise/'))).toBe(true);
  const cached = await page.evaluate(async () =>
    (
      await Promise.all(
        (await caches.keys()).map(async (name) =>
          (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname),
        ),
      )
    ).flat(),
  );
  expect(cached.length).toBeGreaterThan(10);
  const stale = cached.filter((p) => !existsSync(join(next, p.replace('/labs/agentwise/', ''))));
  expect(stale).toEqual([]);
  expect(lab.errors).toEqual([]);
});
