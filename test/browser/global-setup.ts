/**
 * Browser-test setup: make sure a Chromium exists, then serve the built app (dist/, built by
 * `npm run test:browser`) with Vite's preview server on a free port.
 */
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { preview } from 'vite';
import { ensureChrome } from './chrome';
import { DIST } from './static-server';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    chromePath: string;
  }
}

export default async function setup(project: TestProject) {
  // LAB_DIST serves another build folder, so two people testing at once on one machine do not
  // overwrite each other's build.
  const outDir = DIST;
  if (!existsSync(`${outDir}/index.html`))
    throw new Error(`${outDir}/ is missing: run \`npm run test:browser\` (it builds first).`);
  const chromePath = ensureChrome();
  const server = await preview({
    preview: { port: 0, strictPort: false, host: '127.0.0.1' },
    build: { outDir },
    logLevel: 'warn',
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('preview server has no URL');
  project.provide('baseUrl', url.replace(/\/$/, ''));
  project.provide('chromePath', chromePath);
  return async () => {
    await server.close();
  };
}
