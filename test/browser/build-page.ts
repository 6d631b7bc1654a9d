/**
 * Builds a small standalone page (an index.html and its modules, workers included) with Vite for
 * the benchmarks and tests that run lab code in Chromium outside the app: bench:browser's
 * workload page and the WebGPU kernel check.
 */
import { resolve } from 'node:path';
import { build } from 'vite';
import { tfjsThreadedFactory } from '../../scripts/tfjs-threaded-factory';

export async function buildPage(root: string, outDir: string): Promise<void> {
  await build({
    configFile: false,
    root: resolve(root),
    base: './',
    logLevel: 'warn',
    worker: { format: 'es', plugins: () => [tfjsThreadedFactory()] },
    build: { outDir: resolve(outDir), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 8192 },
  });
}
