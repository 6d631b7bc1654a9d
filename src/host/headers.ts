/**
 * What the page asks of whoever serves it: one Content-Security-Policy and the two headers of
 * cross-origin isolation. The build writes the policy into index.html as a meta tag (static hosts
 * send no headers); `npm start` and `npm run preview` send it with the isolation headers; the
 * README shows them as nginx lines. Pure data, read by vite.config.ts, the service worker and tests.
 */

/**
 * Everything comes from the page's own origin. 'wasm-unsafe-eval' lets tfjs's wasm backend and
 * our fused kernels compile WebAssembly (and nothing else: no eval, no inline script); data: is
 * the empty favicon, blob: the chart PNG export's SVG image. blob: in worker-src and script-src:
 * tfjs's threaded wasm build (wasm threads, backends/threads.ts) starts each pthread worker from a
 * Blob URL of its worker script, which imports its factory's source text, another Blob URL; without
 * them the run worker's wasm backend never starts (it waits forever for its pthreads). A blob: URL
 * can only be made by script already running here, which script-src still limits to these files.
 */
const POLICY: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'", 'blob:'],
  'worker-src': ["'self'", 'blob:'],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'style-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'none'"],
};

/**
 * The dev server only: the React refresh preamble is an inline script, Vite injects CSS as inline
 * <style> tags, and hot reload talks over a WebSocket.
 */
const DEV_ADDS: Record<string, string[]> = {
  'script-src': ["'unsafe-inline'"],
  'style-src': ["'unsafe-inline'"],
  'connect-src': ['ws:'],
};

/** The policy as a header or meta value. */
export function contentSecurityPolicy(dev = false): string {
  return Object.entries(POLICY)
    .map(([directive, sources]) => [directive, ...sources, ...((dev && DEV_ADDS[directive]) || [])].join(' '))
    .join('; ');
}

/**
 * Cross-origin isolation (SharedArrayBuffer, so wasm threads): the page and its workers must be
 * served with both. Everything the lab loads is same-origin, so require-corp costs nothing.
 */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Every header a server that can set them should send with the page and its files. */
export const pageHeaders = (dev = false): Record<string, string> => ({
  'Content-Security-Policy': contentSecurityPolicy(dev),
  ...ISOLATION_HEADERS,
});

/** The worker that fetches `#open=<URL>`'s result file: its script's name holds this (src/workers/). */
export const RESULT_FETCH_WORKER = 'result-fetch.worker';

/**
 * That worker's own policy: the page's, and connect-src open to https (and http on localhost,
 * which browsers treat as secure), since a result may be hosted anywhere. A worker takes the
 * policy its script is served with, so the page and every other worker keep `connect-src 'self'`
 * (docs/hosting.md#opening-results-by-link).
 */
export const resultFetchPolicy = (dev = false): string =>
  contentSecurityPolicy(dev).replace(
    /connect-src [^;]*/,
    (d) => `${d} https: http://localhost:* http://127.0.0.1:*`,
  );

/** The headers for a file of the page by its URL path: the result fetch worker's policy is its own. */
export const headersFor = (path: string, dev = false): Record<string, string> =>
  path.includes(RESULT_FETCH_WORKER)
    ? { ...pageHeaders(dev), 'Content-Security-Policy': resultFetchPolicy(dev) }
    : pageHeaders(dev);
