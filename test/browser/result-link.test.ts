/**
 * `#open=<URL>` (docs/sharing.md#opening-one-by-link): the page, served with its CSP, opens a
 * result file from a second local origin that allows CORS, and keeps the link in the address bar;
 * the page itself still cannot reach that origin (only the fetch worker's policy lets it). The
 * same file from a host without CORS, a file over 50 MB, a missing file, a host that is not there
 * and a plain-http URL are
 * refused with a message, and the page stays as it was.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeResult } from '../../src/report/result-file';
import { smallBody } from '../report/result-fixture';
import { openLab } from './harness';
import type { Lab } from './harness';
import { serveStatic } from './static-server';
import type { StaticServer } from './static-server';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const text = async (l: Lab, testId: string) => (await l.page.getByTestId(testId).textContent()) ?? '';

describe('#open=<URL> opens a result hosted on another origin', () => {
  let cors: StaticServer;
  let plain: StaticServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-hosted-'));
    writeFileSync(join(dir, 'small.lab.json.gz'), writeResult(smallBody()));
    writeFileSync(join(dir, 'huge.lab.json.gz'), new Uint8Array(50 * 2 ** 20 + 1));
    cors = await serveStatic(dir, 0, { 'Access-Control-Allow-Origin': '*' });
    plain = await serveStatic(dir);
  });
  afterAll(async () => {
    await cors.close();
    await plain.close();
  });

  it('from a host that allows CORS: the runs, the banner and the link; the page itself still reaches only its own origin', async () => {
    const url = `${cors.origin}/small.lab.json.gz`;
    lab = await openLab(`#open=${url}`);
    const { page } = lab;
    await expect.poll(() => text(lab!, 'opened-banner'), { timeout: 30_000 }).toContain(`${url}: trained on`);
    await expect.poll(() => page.locator('.run-status').count()).toBe(4);
    expect(
      await page.locator('.run-status').evaluateAll((els) => els.map((e) => e.getAttribute('data-run'))),
    ).toEqual(['GRPO #0', 'GRPO #1', 'Dr. MAS #0', 'Dr. MAS #1']);
    expect(new URL(page.url()).hash).toBe(`#open=${url}`);
    expect(cors.log).toEqual([{ path: '/small.lab.json.gz', status: 200 }]);
    // The page's own connect-src is still 'self': a fetch from the page to that host is refused.
    const fetched = await page.evaluate(
      (u) =>
        fetch(u).then(
          () => 'fetched',
          (e: Error) => e.name,
        ),
      url,
    );
    expect(fetched).toBe('TypeError');
    expect(cors.log).toHaveLength(1);
    expect(lab.errors.filter((e) => !e.includes('Content Security Policy'))).toEqual([]);
  });

  it('refused, saying why: no CORS, over 50 MB, not found, not reachable, plain http', async () => {
    const cases: [string, string][] = [
      [
        `${plain.origin}/small.lab.json.gz`,
        'could not be fetched: the host is not reachable, or does not allow other sites to read it',
      ],
      [`${cors.origin}/huge.lab.json.gz`, 'not opened: it is larger than 50 MB'],
      // This host sends no CORS header with a 404, so the browser says no more than for no host at all.
      [`${cors.origin}/none.lab.json.gz`, 'could not be fetched: the host is not reachable'],
      ['http://127.0.0.1:1/x.lab.json.gz', 'could not be fetched: the host is not reachable'],
      ['http://example.com/x.lab.json.gz', 'a result is fetched over https only'],
    ];
    for (const [url, said] of cases) {
      lab = await openLab(`#open=${url}`);
      await expect.poll(() => text(lab!, 'session-alert'), { timeout: 30_000 }).toContain(said);
      expect(await lab.page.getByTestId('opened-banner').count(), url).toBe(0);
      expect(await lab.page.locator('.run-status').count(), url).toBe(0);
      await lab.close();
      lab = undefined;
    }
  });
});
