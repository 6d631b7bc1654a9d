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
