/**
 * WebGPU in Node through Dawn, the WebGPU engine inside Chromium, as built by the `webgpu` npm
 * package (its `dist/<platform>-<arch>/dawn.node`). Not a dependency of the lab: the benchmark
 * takes the file's path (`--dawn PATH`) so that a machine with a real GPU but no browser can report
 * WebGPU figures. Installs `navigator.gpu` and the WebGPU globals (GPUBufferUsage, …) before the
 * tfjs webgpu backend is imported (it registers itself only where `navigator.gpu` exists), and
 * counts what the backend asks of the GPU by wrapping the API's prototypes. Node only.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

/** Running totals of GPU work: subtract two snapshots to get one step's share. */
export interface GpuCounts {
  /** Compute dispatches (`dispatchWorkgroups`). */
  dispatches: number;
  /** Command buffers handed to the queue (`queue.submit` calls). */
  submits: number;
  /** Buffers mapped for reading back to the CPU (`mapAsync`): each is a GPU→CPU sync. */
  readbacks: number;
}

interface DawnModule {
  create(flags: string[]): { requestAdapter(o?: object): Promise<{ info?: Record<string, unknown> } | null> };
  globals: Record<string, { prototype: Record<string, unknown> }>;
}

export const gpuCounts: GpuCounts = { dispatches: 0, submits: 0, readbacks: 0 };

/** Wraps `proto[method]` so that each call bumps `gpuCounts[key]` (by one, or by the submitted buffers' count). */
function count(proto: Record<string, unknown>, method: string, key: keyof GpuCounts): void {
  const original = proto[method] as (...args: unknown[]) => unknown;
  proto[method] = function (this: unknown, ...args: unknown[]) {
    gpuCounts[key] += key === 'submits' && Array.isArray(args[0]) ? args[0].length : 1;
    return original.apply(this, args);
  };
}

/** Loads dawn.node, installs navigator.gpu and the WebGPU globals, and returns the adapter's description. */
export async function installDawn(path: string): Promise<string> {
  const dawn = createRequire(import.meta.url)(resolve(path)) as DawnModule;
  Object.assign(globalThis, dawn.globals);
  count(dawn.globals.GPUComputePassEncoder.prototype, 'dispatchWorkgroups', 'dispatches');
  count(dawn.globals.GPUQueue.prototype, 'submit', 'submits');
  count(dawn.globals.GPUBuffer.prototype, 'mapAsync', 'readbacks');
  const gpu = dawn.create([]);
  // Node 20 has no navigator; Node 21+ has one without `gpu`.
  const nav = (globalThis as { navigator?: object }).navigator;
  if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
  else Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error(`--dawn ${path}: Dawn found no WebGPU adapter (no Vulkan driver or loader on this machine?)`);
  const info = adapter.info ?? {};
  return ['vendor', 'architecture', 'device', 'description'].map((k) => info[k]).filter(Boolean).join(' ') || 'unnamed adapter';
}
