/**
 * WebGPU in Node through Dawn, the WebGPU engine inside Chromium, as built by the `webgpu` npm
 * package (its `dist/<platform>-<arch>/dawn.node`). Not a dependency of the lab: the benchmark
 * takes the file's path (`--dawn PATH`) so that a machine with a real GPU but no browser can report
 * WebGPU figures. Installs `navigator.gpu` and the WebGPU globals (GPUBufferUsage, …) before the
 * tfjs webgpu backend is imported (it registers itself only where `navigator.gpu` exists), and
 * counts what the backend asks of the GPU (bench-workload.ts's gpuCounts). Node only.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { countGpuCalls, type WebGpuGlobals } from './bench-workload';

interface DawnModule {
  create(flags: string[]): { requestAdapter(o?: object): Promise<{ info?: Record<string, unknown> } | null> };
  globals: WebGpuGlobals & Record<string, unknown>;
}

/** Loads dawn.node, installs navigator.gpu and the WebGPU globals, and returns the adapter's description. */
export async function installDawn(path: string): Promise<string> {
  const dawn = createRequire(import.meta.url)(resolve(path)) as DawnModule;
  Object.assign(globalThis, dawn.globals);
  countGpuCalls(dawn.globals);
  const gpu = dawn.create([]);
  // Node 20 has no navigator; Node 21+ has one without `gpu`.
  const nav = (globalThis as { navigator?: object }).navigator;
  if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
  else Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter)
    throw new Error(
      `--dawn ${path}: Dawn found no WebGPU adapter (no Vulkan driver or loader on this machine?)`,
    );
  const info = adapter.info ?? {};
  return (
    ['vendor', 'architecture', 'device', 'description']
      .map((k) => info[k])
      .filter(Boolean)
      .join(' ') || 'unnamed adapter'
  );
}
