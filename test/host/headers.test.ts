/** The page's headers: docs/hosting.md's nginx lines are the policy the build and preview enforce. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  contentSecurityPolicy,
  headersFor,
  ISOLATION_HEADERS,
  pageHeaders,
  resultFetchPolicy,
} from '../../src/host/headers';

describe('page headers', () => {
  it("allow only the own origin, plus wasm compilation and tfjs's blob: pthread workers, in production", () => {
    const csp = contentSecurityPolicy();
    expect(csp).toMatch(/(^|; )default-src 'self'(;|$)/);
    expect(csp).toMatch(/(^|; )script-src 'self' 'wasm-unsafe-eval' blob:(;|$)/);
    expect(csp).toMatch(/(^|; )worker-src 'self' blob:(;|$)/);
    expect(csp).not.toMatch(/'unsafe-inline'|'unsafe-eval'|https?:|ws:|\*/);
  });

  it('add inline script and style and the hot-reload socket for the dev server only', () => {
    const dev = contentSecurityPolicy(true);
    expect(dev).toMatch(/script-src 'self' 'wasm-unsafe-eval' blob: 'unsafe-inline'/);
    expect(dev).toMatch(/connect-src 'self' ws:/);
    expect(pageHeaders(true)['Content-Security-Policy']).toBe(dev);
    expect(pageHeaders()['Cross-Origin-Embedder-Policy']).toBe('require-corp');
  });

  it("give the result fetch worker alone connect-src https: (and http on localhost); every other file the page's", () => {
    const fetcher = headersFor('/assets/result-fetch.worker-KrR2X1pj.js');
    expect(fetcher['Content-Security-Policy']).toBe(resultFetchPolicy());
    expect(resultFetchPolicy()).toBe(
      contentSecurityPolicy().replace(
        "connect-src 'self'",
        "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
      ),
    );
    expect(fetcher['Cross-Origin-Embedder-Policy']).toBe('require-corp');
    for (const path of ['/', '/index.html', '/assets/run.worker-x.js', '/assets/import.worker-y.js'])
      expect(headersFor(path)).toEqual(pageHeaders());
  });

  it('are the ones docs/hosting.md tells nginx to send', () => {
    const readme = readFileSync('docs/hosting.md', 'utf8');
    expect(readme).toContain(`add_header Content-Security-Policy "${contentSecurityPolicy()}" always;`);
    expect(readme).toContain(`add_header Content-Security-Policy "${resultFetchPolicy()}" always;`);
    for (const [name, value] of Object.entries(ISOLATION_HEADERS))
      expect(readme).toContain(`add_header ${name} "${value}" always;`);
  });
});
