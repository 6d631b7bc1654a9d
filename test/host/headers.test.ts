/** The page's headers: docs/hosting.md's nginx lines are the policy the build and preview enforce. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, ISOLATION_HEADERS, pageHeaders } from '../../src/host/headers';

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

  it('are the ones docs/hosting.md tells nginx to send', () => {
    const readme = readFileSync('docs/hosting.md', 'utf8');
    expect(readme).toContain(`add_header Content-Security-Policy "${contentSecurityPolicy()}" always;`);
    for (const [name, value] of Object.entries(ISOLATION_HEADERS))
      expect(readme).toContain(`add_header ${name} "${value}" always;`);
  });
});
