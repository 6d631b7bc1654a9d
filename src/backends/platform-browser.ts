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
import { setKernelThreads } from '../model/kernels/kernel-threads';
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
  if (!gpu)
    return {
      available: false,
      software: false,
      reason: 'this browser exposes no WebGPU (navigator.gpu is missing)',
    };
  const adapter = await gpu.requestAdapter();
  if (!adapter)
    return { available: false, software: false, reason: 'no WebGPU adapter (requestAdapter returned null)' };
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
  if (typeof OffscreenCanvas === 'undefined')
    return { available: false, software: false, reason: 'no OffscreenCanvas here' };
  const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
  if (!gl) return { available: false, software: false, reason: 'no WebGL2 context' };
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext(); // free it: tfjs makes its own context
  const software = isSoftware(renderer);
  return {
    available: true,
    software,
    renderer,
    ...(software ? { reason: `software renderer ${renderer}` } : {}),
  };
}

/**
 * Threads for the wasm backend: 1 (the default) keeps tfjs's single-threaded SIMD binary, whose
 * plain heap the fused kernels bind to. More than 1 loads tfjs's threaded SIMD binary where the
 * page is cross-origin isolated (elsewhere SharedArrayBuffer is missing and tfjs falls back to one
 * thread); its XNNPACK ops then use that many threads, and so do the fused kernels' GEMMs
 * (kernel-threads.ts). Set before the wasm backend starts.
 */
let wasmThreads = 1;
export function setWasmThreads(n: number): void {
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`wasm threads: a whole number ≥ 1, not ${n}`);
  wasmThreads = n;
  setKernelThreads(n);
}

/**
 * Whether this worker may start tfjs's pthreads: tfjs's threaded build starts each from a blob: URL
 * of its worker script, which imports another blob: URL (its factory's source). Where the
 * Content-Security-Policy refuses either (a host whose policy lacks blob: in worker-src or
 * script-src), tfjs would wait for its pthreads forever, so the backend starts on one thread instead.
 */
function blobWorkersAllowed(): Promise<boolean> {
  const url = (text: string) => URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  return new Promise<boolean>((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url(`importScripts(${JSON.stringify(url(''))}); postMessage(0);`));
    } catch {
      return resolve(false);
    }
    worker.onmessage = () => {
      worker.terminate();
      resolve(true);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      worker.terminate();
      resolve(false);
    };
  });
}

/** Threads the started wasm backend runs (tfjs's getThreadsCount); 1 before it starts or where threads are off. */
export async function wasmThreadsRunning(): Promise<number> {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  try {
    return wasm.getThreadsCount();
  } catch {
    return 1;
  }
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
      const threads = wasmThreads > 1 && (await blobWorkersAllowed()) ? wasmThreads : 1;
      if (threads < wasmThreads)
        console.warn(
          `wasm runs 1 thread, not ${wasmThreads}: this page's Content-Security-Policy refuses blob: workers or scripts, which tfjs's threaded build needs`,
        );
      if (threads > 1) {
        wasm.setThreadsCount(threads);
        // tfjs 4.22 caps its pool at navigator.hardwareConcurrency / 2 (it assumes two hardware
        // threads per core, backend.cc's num_cores, read once when its module starts): 1 on a 2-core
        // machine whatever was asked. This worker's navigator shows it enough cores for the count asked.
        Object.defineProperty(globalThis.navigator, 'hardwareConcurrency', {
          value: 2 * threads,
          configurable: true,
        });
      } else tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      wasm.setWasmPaths({
        'tfjs-backend-wasm.wasm': wasmPlainUrl,
        'tfjs-backend-wasm-simd.wasm': wasmSimdUrl,
        'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedUrl,
      });
    }
  },
};
