/**
 * The built page under its Content-Security-Policy (sent as a header by `npm run preview` and as
 * the meta tag of dist/index.html): it loads cross-origin isolated, trains and exports every kind
 * of file with no violation (zod's eval probe was one, before it was made jitless), while inline
 * scripts and requests to other origins are refused.
 */
import { afterEach, expect, it } from 'vitest';
import { contentSecurityPolicy, ISOLATION_HEADERS } from '../../src/host/headers';
import { TINY, openLab, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

declare global {
  interface Window {
    cspViolations: string[];
  }
}

it('loads, trains and exports under the CSP with no violation; inline scripts and other origins are refused', async () => {
  lab = await openLab(TINY);
  const { page } = lab;
  await lab.context.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.cspViolations.push(
        `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
      ),
    );
  });
  const res = await page.reload();
  const headers = res!.headers();
  expect(headers['content-security-policy']).toBe(contentSecurityPolicy());
  for (const [k, v] of Object.entries(ISOLATION_HEADERS)) expect(headers[k.toLowerCase()]).toBe(v);
  expect(await page.locator('meta[http-equiv=Content-Security-Policy]').getAttribute('content')).toBe(
    contentSecurityPolicy(),
  );
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);

  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await waitSteps(lab, (s) => s.every((n) => n >= 2));
  await page.getByRole('button', { name: 'Pause', exact: true }).click();

  const names: string[] = [];
  page.on('download', (d) => names.push(d.suggestedFilename()));
  // Charts refresh on screen only (src/ui/chart-pump.ts), and a PNG needs the chart drawn: bring
  // it into view as a user would (its PNG button stays disabled until then, so a click would
  // wait for it forever without scrolling).
  const reward = page.locator('[data-chart="Reward"]');
  await reward.scrollIntoViewIfNeeded();
  await expect
    .poll(async () => Number(await reward.getAttribute('data-points')), { timeout: 60_000 })
    .toBeGreaterThan(0);
  const buttons = [
    'Download CSV',
    'Download JSON',
    'Share result',
    'Download Reward as PNG',
    'Download checkpoints',
  ];
  for (const name of buttons) await page.getByRole('button', { name }).click();
  await expect.poll(() => names.length, { timeout: 60_000 }).toBe(8); // CSV, JSON, result, PNG, 2 runs × 2 models
  const png = names.find((n) => n.endsWith('.png'));
  expect(png).toBe('agentwise-reward.png');
  expect(await page.evaluate(() => window.cspViolations)).toEqual([]);
  expect(lab.errors).toEqual([]);

  // The policy is really enforced: no inline script, no request to another origin. (Playwright's
  // own evaluate bypasses the CSP, so the script is put into the page as a page would.)
  const refused = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.inlineRan = true';
    document.head.append(script);
    const fetched = await fetch('https://example.com/').then(
      () => 'fetched',
      (e: Error) => e.name,
    );
    return { inlineRan: 'inlineRan' in window, fetched };
  });
  expect(refused).toEqual({ inlineRan: false, fetched: 'TypeError' });
  const violations = await page.evaluate(() =>
    window.cspViolations.map((v) => v.split(' ').slice(0, 2).join(' ')),
  );
  // Each twice: the header's policy and the meta tag's each refuse it.
  expect(violations).toEqual([
    'script-src-elem inline',
    'script-src-elem inline',
    'connect-src https://example.com/',
    'connect-src https://example.com/',
  ]);
});
