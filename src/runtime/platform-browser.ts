/**
 * How a browser (page or dedicated worker) probes devices and loads tfjs backend modules. The
 * WebGPU module registers itself at import and reads `navigator.gpu` then (tfjs #7914), so it is
 * imported only after the probe has found an adapter.
 */
import * as tf from '@tensorflow/tfjs';
import wasmPlainUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import { isSoftware } from './backend';
import type { Platform } from './backend';
import type { AdapterInfo, ConcreteBackend, DeviceProbe } from './backend-types';

interface GpuAdapterLike {
  info?: Partial<AdapterInfo>;
  isFallbackAdapter?: boolean;
}
interface NavigatorGpu {
  gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> };
}

async function probeWebGPU(): Promise<DeviceProbe> {
  const gpu = (globalThis.navigator as NavigatorGpu | undefined)?.gpu;
  if (!gpu) return { available: false, software: false, reason: 'this browser exposes no WebGPU (navigator.gpu is missing)' };
  const adapter = await gpu.requestAdapter();
  if (!adapter) return { available: false, software: false, reason: 'no WebGPU adapter (requestAdapter returned null)' };
  const info = adapter.info ?? {};
  const a: AdapterInfo = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
  };
  const named = `${a.vendor} ${a.architecture} ${a.description}`.trim();
  const software = a.isFallbackAdapter || isSoftware(named);
  const reason = software
    ? `software adapter ${named || '(unnamed)'}${a.isFallbackAdapter ? ', isFallbackAdapter' : ''}`
    : undefined;
  return { available: true, software, adapter: a, ...(reason ? { reason } : {}) };
}

function probeWebGL(): DeviceProbe {
  if (typeof OffscreenCanvas === 'undefined') return { available: false, software: false, reason: 'no OffscreenCanvas here' };
  const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
  if (!gl) return { available: false, software: false, reason: 'no WebGL2 context' };
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext(); // free it: tfjs makes its own context
  const software = isSoftware(renderer);
  return { available: true, software, renderer, ...(software ? { reason: `software renderer ${renderer}` } : {}) };
}

export const browserPlatform: Platform = {
  async probe(backend: ConcreteBackend): Promise<DeviceProbe> {
    switch (backend) {
      case 'webgpu':
        return probeWebGPU();
      case 'webgl':
        return probeWebGL();
      case 'wasm':
        return typeof WebAssembly === 'object'
          ? { available: true, software: false }
          : { available: false, software: false, reason: 'no WebAssembly' };
      case 'cpu':
        return { available: true, software: false };
    }
  },
  async load(backend: ConcreteBackend): Promise<void> {
    if (backend === 'webgpu') await import('@tensorflow/tfjs-backend-webgpu');
    if (backend === 'wasm') {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      // Threaded wasm breaks in a minified Vite build and gained nothing on 2 cores (§5).
      tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      wasm.setWasmPaths({
        'tfjs-backend-wasm.wasm': wasmPlainUrl,
        'tfjs-backend-wasm-simd.wasm': wasmSimdUrl,
        'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedUrl,
      });
    }
  },
};
