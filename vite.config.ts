import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  // Relative URLs everywhere, so dist/ runs unchanged from any static host at any sub-path.
  base: './',
  plugins: [react()],
  // Workers are ES modules so they can import tfjs backends lazily.
  worker: { format: 'es' },
  // Pre-bundle tfjs up front so the first dev load does not stop to re-optimize and reload.
  optimizeDeps: {
    include: ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-webgpu'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  server: { port: 5173, strictPort: true },
  preview: { port: 4173, strictPort: true },
});
