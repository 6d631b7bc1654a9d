/**
 * How Node probes devices: no WebGL, WebGPU only if a `navigator.gpu` shim (the `webgpu` Dawn
 * package) was installed before tfjs loaded, WASM from node_modules, and the CPU backend.
 */
import { isSoftware } from './backend';
import type { Platform } from './backend';
import type { ConcreteBackend, DeviceProbe } from './backend-types';

interface NavigatorGpu {
  gpu?: { requestAdapter(): Promise<{ info?: { vendor?: string; architecture?: string } } | null> };
}

export const nodePlatform: Platform = {
  async probe(backend: ConcreteBackend): Promise<DeviceProbe> {
    switch (backend) {
      case 'webgpu': {
        const gpu = (globalThis.navigator as NavigatorGpu | undefined)?.gpu;
        if (!gpu)
          return { available: false, software: false, reason: 'no WebGPU in Node (no navigator.gpu shim)' };
        const adapter = await gpu.requestAdapter();
        if (!adapter) return { available: false, software: false, reason: 'no WebGPU adapter' };
        const named = `${adapter.info?.vendor ?? ''} ${adapter.info?.architecture ?? ''}`.trim();
        return { available: true, software: isSoftware(named), reason: `adapter ${named}` };
      }
      case 'webgl':
        return { available: false, software: false, reason: 'no WebGL in Node' };
      case 'wasm':
      case 'cpu':
        return { available: true, software: false };
    }
  },
  async load(backend: ConcreteBackend): Promise<void> {
    if (backend === 'wasm') await import('@tensorflow/tfjs-backend-wasm');
    if (backend === 'webgpu') await import('@tensorflow/tfjs-backend-webgpu');
  },
};
