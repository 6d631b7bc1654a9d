/**
 * `#open=<URL>` (docs/sharing.md#opening-one-by-link): the page, served with its CSP, opens a
 * result file from a second local origin that allows CORS, and keeps the link in the address bar;
 * the page itself still cannot reach that origin (only the fetch worker's policy lets it). The
 * same file from a host without CORS, a file over 50 MB, a missing file, a host that is not there,
 * a plain-http URL and a `view` the page has not are refused with a message in the link's alert
 * (a bad experiment link's: first on the page, on a phone's first screen too, with a heading that
 * says what is shown instead, and a dismiss), the page stays as it was, and the address bar keeps
 * the link. An embed link (`&view=chart:reward`,
 * `view=findings`) in an iframe on a third origin shows that one panel alone, and nothing else of
 * the page.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeResult } from '../../src/report/result-file';
import { smallBody } from '../report/result-fixture';
import { clipboardWrite, dropLoose, openLab, savedAtSteps, stepCounts, trainEnabled } from './harness';
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
  let blog: StaticServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-hosted-'));
    writeFileSync(join(dir, 'small.lab.json.gz'), writeResult(smallBody()));
    writeFileSync(
      join(dir, 'other.lab.json.gz'),
      writeResult({ ...smallBody(), runs: smallBody().runs.slice(0, 2) }),
    );
    writeFileSync(join(dir, 'huge.lab.json.gz'), new Uint8Array(50 * 2 ** 20 + 1));
    cors = await serveStatic(dir, 0, { 'Access-Control-Allow-Origin': '*' });
    plain = await serveStatic(dir);
    // A blog post on a third origin, embedding the lab page's chart and Findings.
    const post = mkdtempSync(join(tmpdir(), 'agentwise-blog-'));
    const open = `${inject('baseUrl')}/#open=${cors.origin}/small.lab.json.gz`;
    writeFileSync(
      join(post, 'index.html'),
      `<!doctype html><title>post</title><link rel="icon" href="data:,"><p>Our runs:</p>` +
        `<iframe id="chart" src="${open}&view=chart:reward" width="640" height="420"></iframe>` +
        `<iframe id="findings" src="${open}&view=findings" width="640" height="600"></iframe>`,
    );
    blog = await serveStatic(post);
  });
  afterAll(async () => {
    await cors.close();
    await plain.close();
    await blog.close();
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
    // Export TensorBoard loads its writer, a chunk of its own, on the click: where that load fails
    // (offline, or the page deployed anew since), the alert says so, not an unhandled rejection.
    await page.route(/\/assets\/tensorboard-[\w-]+\.js$/, (r) => r.abort());
    await page.getByRole('button', { name: 'Export TensorBoard', exact: true }).click();
    await expect
      .poll(() => text(lab!, 'session-alert'))
      .toMatch(
        /^Export TensorBoard failed: its writer could not be loaded \(.+\); reload the page and try again/,
      );
    expect(lab.errors.filter((e) => !/Content Security Policy|Failed to load resource/.test(e))).toEqual([]);
  });

  it('Copy link says what it copied: the result’s #open= link, or, for a dropped file (no link), its experiment’s', async () => {
    const url = `${cors.origin}/small.lab.json.gz`;
    lab = await openLab(`#open=${url}`);
    const { page } = lab;
    await expect.poll(() => text(lab!, 'opened-banner'), { timeout: 30_000 }).toContain(`${url}: trained on`);
    const origin = new URL(page.url()).origin;
    await clipboardWrite(lab, 'granted');
    await lab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const copy = page.getByRole('button', { name: 'Copy link', exact: true });
    expect(await copy.getAttribute('title')).toBe('Copy the link that opens this result (its #open= link)');
    await copy.click();
    await expect.poll(() => copy.textContent(), { timeout: 15_000 }).toBe('Copied result link');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${origin}/#open=${url}`);

    // The same file dropped: no link of its own, so its experiment's, and the button says so.
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-dropped-'));
    writeFileSync(join(dir, 'small.lab.json.gz'), writeResult(smallBody()));
    await page.goto(`${origin}/`);
    await page.getByTestId('drop-zone').waitFor();
    await dropLoose(lab, { 'small.lab.json.gz': join(dir, 'small.lab.json.gz') });
    await expect.poll(() => text(lab!, 'opened-banner')).toContain('small.lab.json.gz: trained on');
    expect(await copy.getAttribute('title')).toMatch(
      /^This result was opened from a file, which has no link: Copy link gives the experiment it ran/,
    );
    await copy.click();
    await expect.poll(() => copy.textContent(), { timeout: 15_000 }).toBe('Copied experiment link');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.startsWith(`${origin}/#v=`), copied).toBe(true);
    expect(copied).not.toContain('open=');
    expect(lab.errors.filter((e) => !e.includes('Content Security Policy'))).toEqual([]);
  });

  it("the read the page's first script starts is the link's, taken once: links opened after load fetch their own files", async () => {
    const url = `${cors.origin}/small.lab.json.gz`;
    const other = `${cors.origin}/other.lab.json.gz`;
    const before = cors.log.length;
    lab = await openLab(`#open=${url}`);
    const { page } = lab;
    // Its own module script, async: it runs as soon as it is here, not after the main chunk (the
    // other early script loads React and the costliest pure modules, vite.config.ts).
    expect(
      await page
        .locator('script[type="module"][async]')
        .evaluateAll((s) => s.map((e) => e.getAttribute('src'))),
    ).toEqual([
      expect.stringMatching(/^\.\/assets\/early-open-[\w-]+\.js$/),
      expect.stringMatching(/^\.\/assets\/early-load-[\w-]+\.js$/),
    ]);
    await expect.poll(() => text(lab!, 'opened-banner'), { timeout: 30_000 }).toContain(`${url}: trained on`);
    await expect.poll(() => page.locator('.run-status').count()).toBe(4);
    expect(cors.log.slice(before)).toEqual([{ path: '/small.lab.json.gz', status: 200 }]);
    // Another link, then the first again: each is fetched and opened, the address bar following.
    for (const [next, runs] of [
      [other, 2],
      [url, 4],
    ] as const) {
      await page.evaluate((h) => (window.location.hash = h), `#open=${next}`);
      await expect
        .poll(() => text(lab!, 'opened-banner'), { timeout: 30_000 })
        .toContain(`${next}: trained on`);
      await expect.poll(() => page.locator('.run-status').count()).toBe(runs);
      expect(new URL(page.url()).hash).toBe(`#open=${next}`);
    }
    expect(cors.log.slice(before).map((l) => l.path)).toEqual([
      '/small.lab.json.gz',
      '/other.lab.json.gz',
      '/small.lab.json.gz',
    ]);
    expect(lab.errors.filter((e) => !e.includes('Content Security Policy'))).toEqual([]);
  });

  it('refused, saying why, the link kept in the address bar: no CORS, over 50 MB, not found, not reachable, plain http, a bad view', async () => {
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
      [`${cors.origin}/small.lab.json.gz&view=chart:nope!`, 'view=chart:nope!: not chart:<chart id>'],
    ];
    for (const [i, [url, said]] of cases.entries()) {
      lab = await openLab(`#open=${url}`);
      // The first at a phone's width: the alert is still on its first screen.
      if (i === 0) await lab.page.setViewportSize({ width: 400, height: 800 });
      // Said in the link's alert (a bad experiment link's), above the page, not among the session's errors.
      await expect.poll(() => text(lab!, 'open-refused'), { timeout: 30_000 }).toContain(said);
      const alert = lab.page.getByTestId('url-alert');
      expect(await alert.locator('strong').textContent(), url).toBe(
        'This result link could not be opened; showing the default experiment instead.',
      );
      expect(await text(lab, 'open-refused'), url).toMatch(/\.$/);
      expect(await lab.page.getByTestId('session-alert').count(), url).toBe(0);
      if (i === 0) {
        const box = (await alert.boundingBox())!;
        expect(box.y + box.height, 'the whole alert is on the first screen').toBeLessThanOrEqual(800);
        expect(await lab.page.evaluate(() => window.scrollY)).toBe(0);
      }
      expect(await lab.page.getByTestId('opened-banner').count(), url).toBe(0);
      expect(await lab.page.locator('.run-status').count(), url).toBe(0);
      // Whether refused before fetching or after, the link stays for its user to mend.
      expect(new URL(lab.page.url()).hash, url).toBe(`#open=${url}`);
      // Dismissed, it goes; the link stays.
      await alert.getByRole('button', { name: 'dismiss' }).click();
      await expect.poll(() => alert.count()).toBe(0);
      expect(new URL(lab.page.url()).hash, url).toBe(`#open=${url}`);
      await lab.close();
      lab = undefined;
    }
  });

  it('embedded in an iframe on another origin: view=chart:reward shows that chart alone, view=findings Findings alone', async () => {
    lab = await openLab('', blog.origin);
    const chart = lab.page.frameLocator('#chart');
    await expect
      .poll(
        () =>
          chart
            .locator('figure[data-chart]')
            .evaluateAll((fs) => fs.map((f) => f.getAttribute('data-chart'))),
        {
          timeout: 30_000,
        },
      )
      .toEqual(['Reward']);
    await expect
      .poll(() => chart.locator('figure[data-chart="Reward"]').getAttribute('data-points'))
      .toBe('12');
    // Nothing else of the page: no controls, no sidebar, no other panel; the banner's line says where it ran.
    for (const other of ['.controls', '.sidebar', '[data-testid="findings"]', '.inspector'])
      expect(await chart.locator(other).count(), other).toBe(0);
    const line = await chart.getByTestId('opened-banner').textContent();
    expect(line).toContain(': trained on ');
    // Made elsewhere: the line claims nothing about this browser either way.
    expect(line).not.toMatch(/trained here/i);
    // Sized to its frame: the chart fits the iframe's width.
    const width = await chart
      .locator('figure[data-chart="Reward"]')
      .evaluate((f) => f.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(300);
    expect(width).toBeLessThanOrEqual(640);

    const findings = lab.page.frameLocator('#findings');
    await expect.poll(() => findings.getByTestId('findings').count(), { timeout: 30_000 }).toBe(1);
    expect(await findings.locator('figure[data-chart]').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });
});

describe('a link that opens nothing, over a session brought back', () => {
  it('the alert names the stored session on screen, not "the default experiment"', async () => {
    lab = await openLab();
    const { page } = lab;
    await trainEnabled(page, 120_000);
    // A session of the default experiment, stored: what a load under its experiment brings back.
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await expect
      .poll(async () => Math.min(...(await stepCounts(lab!))), { timeout: 120_000 })
      .toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await savedAtSteps(lab);
    const base = page.url().split('#')[0];
    for (const [link, heading] of [
      ['#open=garbage', 'This result link could not be opened'],
      ['#v=1&task=nonsense', 'This link could not be opened'],
    ]) {
      // Loaded afresh: a hash change alone lets the page answer it first, in place.
      await page.goto('about:blank');
      await page.goto(`${base}${link}`);
      const note = page.getByTestId('restored-note');
      await expect.poll(() => note.count(), { timeout: 30_000 }).toBe(1);
      const when = /restored from (.+?) —/.exec((await note.textContent()) ?? '')![1];
      await expect
        .poll(() => page.getByTestId('url-alert').locator('strong').first().textContent())
        .toBe(`${heading}; showing your session of ${when} (the default experiment) instead.`);
    }
    expect(lab.errors).toEqual([]);
  });
});
