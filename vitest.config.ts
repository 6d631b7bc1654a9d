// Two test projects: `unit` (Node; pure layers plus tfjs on cpu/wasm) and `browser`
// (real headless Chromium driven by playwright-core against the built app in dist/).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**'],
          environment: 'node',
          setupFiles: ['test/fc-seed.ts'],
          testTimeout: 60_000,
          // The files of a worker share one module graph instead of a fresh process each: importing
          // tfjs and the lab's modules again for each of ~150 files was half of the phase's CPU
          // (test/model, train, tasks and report: 110 → 56 s of CPU, 2026-12-02). A file that
          // changes global state (tf.setBackend, process.env, kernel flavour) sets what it needs
          // itself rather than relying on a fresh start.
          isolate: false,
          // Relaxed SIMD valid from the start in every worker, as the CLI has it (enableRelaxedSimd):
          // with shared modules, a file that enabled it would otherwise change the kernels of the
          // files after it, and a validation cached before it would refuse them. Inlining as well,
          // so the tests compile the kernels as the CLI does.
          execArgv: ['--experimental-wasm-relaxed-simd', '--experimental-wasm-inlining'],
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One Chromium at a time: software WebGPU already uses both cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
