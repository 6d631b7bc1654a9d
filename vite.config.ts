import { defineConfig } from 'vite';
import type { Connect, Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { buildId, serviceWorker } from './scripts/service-worker.ts';
import { tfjsThreadedFactory } from './scripts/tfjs-threaded-factory.ts';
import { tfjsTapeWalk } from './scripts/tfjs-tape-walk.ts';
import { contentSecurityPolicy, headersFor } from './src/host/headers.ts';

/** The built index.html carries the CSP as its first tag, so a static host with no headers still enforces it. */
const cspMeta = (): Plugin => ({
  name: 'agentwise-csp-meta',
  apply: 'build',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy() },
      injectTo: 'head-prepend',
    },
  ],
});

/**
 * The page's headers on every file `npm start` and `npm run preview` serve, by path: the result
 * fetch worker gets its own CSP (src/host/headers.ts), every other file the page's.
 */
const pageHeaderMiddleware = (): Plugin => {
  type Server = { middlewares: Connect.Server };
  // Installed before Vite's own middlewares (a hook that returns nothing), so every file has them.
  const use = (dev: boolean) => (server: Server) => {
    server.middlewares.use((req, res, next) => {
      for (const [k, v] of Object.entries(headersFor(req.url ?? '', dev))) res.setHeader(k, v);
      next();
    });
  };
  return { name: 'agentwise-page-headers', configureServer: use(true), configurePreviewServer: use(false) };
};

/**
 * React, react-dom and the page's import of React's DOM client (src/ui/react-root.ts) in a chunk
 * of their own, so that react-dom loads from that chunk's top-level code, not the main chunk's.
 */
const reactChunk = {
  name: 'react',
  test: (id: string) =>
    /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/.test(id) ||
    /[\\/]src[\\/]ui[\\/]react-root\.ts$/.test(id),
};

/**
 * V8's explicit compile hint on the page's entry chunk and the chunks it imports (React's, those
 * the early scripts share with it): Chrome compiles all of their functions while it streams the
 * scripts, off the main thread, instead of lazily on the main thread at each function's first call.
 * The first chart drawn (recharts' code runs first then) spent about a third of its task
 * compiling: 36-42 ms of thread time, 24-27 ms with the hint (README, long tasks). First in the
 * file, after Vite's own additions (`order: 'post'`). Other engines read a comment.
 */
const compileHint = (): Plugin => ({
  name: 'agentwise-compile-hint',
  apply: 'build',
  generateBundle: {
    order: 'post',
    handler(_options, bundle) {
      const entry = Object.values(bundle).find((c) => c.type === 'chunk' && c.isEntry && c.name === 'index');
      if (entry?.type !== 'chunk') throw new Error('no index chunk in the build');
      const hinted = new Set([entry.fileName, ...entry.imports]);
      for (const chunk of Object.values(bundle))
        if (chunk.type === 'chunk' && hinted.has(chunk.fileName))
          chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
    },
  },
});

/**
 * The page's early scripts, each an entry of its own so that it need not wait for the main one:
 * src/ui/early-open.ts starts an `#open=` link's read, src/ui/early-load.ts loads React and the
 * pure modules whose loading costs most, in a task before the main chunk's.
 */
const EARLY: Record<string, string> = {
  'early-open': 'src/ui/early-open.ts',
  'early-load': 'src/ui/early-load.ts',
};

/**
 * The early scripts' tags, `async`: each runs as soon as it and its imports are here, not after
 * the page's main chunk (a megabyte) has loaded and compiled (docs/sharing.md#opening-speed). The
 * main chunk imports the same modules, so both share their one instance, whichever runs first.
 */
const earlyScript = (): Plugin => ({
  name: 'agentwise-early-script',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: (_html, { bundle }) =>
      Object.keys(EARLY).map((name) => {
        const chunk = Object.values(bundle ?? {}).find(
          (c) => c.type === 'chunk' && c.isEntry && c.name === name,
        );
        if (!chunk) throw new Error(`no ${name} chunk in the build`);
        return {
          tag: 'script',
          attrs: { type: 'module', async: true, crossorigin: true, src: `./${chunk.fileName}` },
          injectTo: 'head' as const,
        };
      }),
  },
});

export default defineConfig({
  // Relative URLs everywhere, so dist/ runs unchanged from any static host at any sub-path.
  base: './',
  plugins: [
    react(),
    cspMeta(),
    compileHint(),
    earlyScript(),
    pageHeaderMiddleware(),
    serviceWorker(),
    tfjsTapeWalk(),
  ],
  define: { __LAB_BUILD__: JSON.stringify(buildId()) },
  // Workers are ES modules so they can import tfjs backends lazily; tfjs's wasm backend loads in them.
  // The run workers take gradients: tfjs's tape walk is rewritten there (scripts/tfjs-tape-walk.ts).
  worker: { format: 'es', plugins: () => [tfjsThreadedFactory(), tfjsTapeWalk()] },
  // Pre-bundle tfjs up front so the first dev load does not stop to re-optimize and reload.
  optimizeDeps: {
    include: ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-webgpu'],
  },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    rollupOptions: {
      input: { index: 'index.html', ...EARLY },
      // Rolldown's [PLUGIN_TIMINGS] notice after every build (the workers' nested bundles count as
      // plugin time): nothing in it for a user of `npm start` or `npm test` to act on.
      checks: { bundlerTimings: false },
      output: { codeSplitting: { groups: [reactChunk] } },
    },
  },
  server: { port: 5173, strictPort: true },
  preview: { port: 4173, strictPort: true },
});
