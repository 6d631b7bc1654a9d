/**
 * The built lab on a plain static host (Node's http, no Vite, no headers) under a sub-path, as
 * GitHub Pages or a web folder would serve it: it loads, trains, and every request it makes (page,
 * run and env workers, tfjs and kernel wasm, base models) stays on the origin and is found.
 * "Copy link" gives the page's own address under the sub-path.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
});

/** A host whose dist/ copy lives at /labs/agentwise/; returns that folder's URL. */
async function hostInSubFolder(): Promise<string> {
  root = mkdtempSync(join(tmpdir(), 'agentwise-host-'));
  mkdirSync(join(root, 'labs'));
  symlinkSync(resolve(DIST), join(root, 'labs', 'agentwise'));
  host = await serveStatic(root);
  return `${host.origin}/labs/agentwise`;
}

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
    expect(paths.filter((p) => kind.test(p)).every((p) => p.startsWith('/labs/agentwise/assets/'))).toBe(true);
    expect(paths.some((p) => kind.test(p))).toBe(true);
  }
  const remote = lab.requests.filter((u) => /^https?:/.test(u) && !u.startsWith(`${host!.origin}/`));
  expect(remote).toEqual([]);
  expect(lab.requests.filter((u) => u.startsWith(`${host!.origin}/`)).every((u) => u.startsWith(`${base}/`))).toBe(true);

  await lab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host!.origin });
  await page.getByRole('button', { name: 'Copy link' }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await page.evaluate(() => location.href));
  expect(copied.startsWith(`${base}/#v=1&task=sync&`)).toBe(true);
  expect(lab.errors).toEqual([]);
});
