import { defineConfig } from 'vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { buildId, serviceWorker } from './scripts/service-worker';
import { contentSecurityPolicy, pageHeaders } from './src/host/headers';

/** The built index.html carries the CSP as its first tag, so a static host with no headers still enforces it. */
const cspMeta = (): Plugin => ({
  name: 'agentwise-csp-meta',
  apply: 'build',
  transformIndexHtml: () => [
    { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy() }, injectTo: 'head-prepend' },
  ],
});

export default defineConfig({
  // Relative URLs everywhere, so dist/ runs unchanged from any static host at any sub-path.
  base: './',
  plugins: [react(), cspMeta(), serviceWorker()],
  define: { __LAB_BUILD__: JSON.stringify(buildId()) },
  // Workers are ES modules so they can import tfjs backends lazily.
  worker: { format: 'es' },
  // Pre-bundle tfjs up front so the first dev load does not stop to re-optimize and reload.
  optimizeDeps: {
    include: ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-webgpu'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  server: { port: 5173, strictPort: true, headers: pageHeaders(true) },
  preview: { port: 4173, strictPort: true, headers: pageHeaders() },
});
