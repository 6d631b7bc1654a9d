/**
 * A plain static file server on Node's http, standing in for any static host (GitHub Pages, a
 * university web folder, an intranet share): files by path, a folder's index.html, 404 for the
 * rest, no headers beyond the content type and no server logic. It logs every request with its
 * status, so a test can assert that nothing 404'd.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

/** The build folder the browser tests serve: LAB_DIST (`vite build --outDir …`) or dist/. */
export const DIST = process.env.LAB_DIST ?? 'dist';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface Served {
  path: string;
  status: number;
}

export interface StaticServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  origin: string;
  log: Served[];
  close(): Promise<void>;
}

/** The file a path names, 'slash' for a folder named without its trailing slash, or null. */
function fileFor(root: string, urlPath: string): string | 'slash' | null {
  const rel = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
  const path = join(root, rel);
  if (path !== root && !path.startsWith(root + sep)) return null; // no way out of the root
  try {
    const s = statSync(path);
    if (s.isFile()) return path;
    if (s.isDirectory() && !urlPath.endsWith('/')) return 'slash';
    if (s.isDirectory() && statSync(join(path, 'index.html')).isFile()) return join(path, 'index.html');
  } catch {
    // missing: 404 below
  }
  return null;
}

/** Serves `root` on `port` (a free one unless given: give the old one to bring a closed host back). */
export async function serveStatic(
  root: string,
  port = 0,
  headers: Record<string, string> = {},
): Promise<StaticServer> {
  const log: Served[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = req.method === 'GET' || req.method === 'HEAD' ? fileFor(root, path) : null;
    log.push({ path, status: file === 'slash' ? 301 : file ? 200 : 404 });
    if (file === 'slash') {
      // As nginx and python's http.server do, so the page's relative URLs resolve inside the folder.
      res.writeHead(301, { location: `${path}/` }).end();
      return;
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
