/**
 * A Vite plugin that writes dist/sw.js after the app is built: it lists every file of the build
 * with a revision (Vite's content hash for assets/, a sha-256 of the content for the rest) and
 * bundles the worker's side of src/host/service-worker.ts (`serve`) with that list. Workbox's
 * precache does the caching; this is only the manifest step that vite-plugin-pwa would do, without
 * its 560 build-time packages.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { build } from 'vite';
import type { Plugin, ResolvedConfig } from 'vite';

export const SW_FILE = 'sw.js';
/** The worker's entry, two lines written here: it calls `serve`, so the page's side is left out of sw.js. */
const ENTRY = '\0agentwise-sw-entry';

/**
 * src/host/service-worker.ts holds both sides, and each bundle must leave out the side it never
 * calls: workbox-window in sw.js, the precache in the page. Workbox's modules run nothing on import
 * but a version check, yet their package.json does not say so (no `sideEffects`), so both builds are
 * told here; a module of theirs then goes into a bundle only for what it uses.
 */
const workboxTreeShaking: Plugin['transform'] = {
  filter: { id: /[\\/]node_modules[\\/]workbox-/ },
  handler: (code) => ({ code, moduleSideEffects: false }),
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** The precache manifest of a built folder: URLs relative to sw.js, which sits at its root. */
export function precacheManifest(outDir: string): { url: string; revision: string | null }[] {
  return filesUnder(outDir)
    .map((f) => relative(outDir, f).split(sep).join('/'))
    .filter((url) => url !== SW_FILE)
    .sort()
    .map((url) => ({
      url,
      // Vite names everything under assets/ by its content hash already.
      revision: url.startsWith('assets/')
        ? null
        : createHash('sha256')
            .update(readFileSync(join(outDir, url)))
            .digest('hex')
            .slice(0, 16),
    }));
}

export function serviceWorker(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'agentwise-service-worker',
    apply: 'build',
    transform: workboxTreeShaking,
    configResolved(c) {
      config = c;
    },
    async closeBundle() {
      const outDir = resolve(config.root, config.build.outDir);
      const module = resolve(config.root, 'src/host/service-worker.ts');
      await build({
        configFile: false,
        logLevel: 'warn',
        plugins: [
          {
            name: 'agentwise-service-worker-entry',
            resolveId: (id) => (id === ENTRY ? id : null),
            load: (id) =>
              id === ENTRY ? `import { serve } from ${JSON.stringify(module)};\nserve();\n` : null,
            transform: workboxTreeShaking,
          },
        ],
        // Workbox keeps its dev-only checks and logs behind process.env.NODE_ENV.
        define: {
          __PRECACHE__: JSON.stringify(precacheManifest(outDir)),
          'process.env.NODE_ENV': '"production"',
        },
        build: {
          outDir,
          emptyOutDir: false,
          copyPublicDir: false,
          target: 'es2022',
          minify: true,
          rolldownOptions: { input: ENTRY },
          lib: {
            entry: ENTRY,
            formats: ['iife'],
            name: 'agentwiseServiceWorker',
            fileName: () => SW_FILE,
          },
        },
      });
    },
  };
}

/**
 * The build's name, shown in the "updated" notice: $LAB_BUILD_ID, else the git commit (with
 * "+dirty" for uncommitted changes), else "unversioned".
 */
export function buildId(): string {
  if (process.env.LAB_BUILD_ID) return process.env.LAB_BUILD_ID;
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return 'unversioned';
  }
}
