/**
 * The run worker's backend once chosen: the threads its wasm runs, which kernels it runs (for the
 * ready and fallback messages), and the fallback to wasm when a GPU device is lost.
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernelsAvailable, KERNEL_FAMILIES } from '../model/kernels/wasm';
import { webgpuKernelsAvailable } from '../model/kernels/webgpu';
import type { BackendSwitcher } from '../train/driver-host';
import { selectBackend } from '../backends/backend';
import type { BackendReport } from '../backends/backend-types';
import { browserPlatform, wasmThreadsRunning } from '../backends/platform-browser';

/** What the ready and fallback messages say about kernels (the fused ones exist for wasm and webgpu). */
export function kernelsInUse(): string {
  const wasm = KERNEL_FAMILIES.filter((f) => fusedKernelsAvailable(f));
  if (wasm.length) return `fused wasm SIMD (${wasm.join(', ')})`;
  const gpu = KERNEL_FAMILIES.filter((f) => webgpuKernelsAvailable(f));
  return gpu.length ? `fused WGSL (${gpu.join(', ')})` : `tfjs ${tf.getBackend()} ops`;
}

/** The report with the threads the wasm backend runs, when wasm is the backend chosen. */
export async function withThreads(report: BackendReport): Promise<BackendReport> {
  return report.backend === 'wasm' ? { ...report, threads: await wasmThreadsRunning() } : report;
}

/**
 * The worker's backend for the driver: a GPU device can be lost (driver reset, GPU removed, a long
 * background spell), and then the run falls back to wasm.
 */
export function backendSwitcher(report: BackendReport): BackendSwitcher<BackendReport> {
  type Lost = { reason?: string; message?: string };
  const device =
    report.backend === 'webgpu'
      ? (tf.backend() as unknown as { device?: { lost?: Promise<Lost> } }).device
      : undefined;
  return {
    guarded: () => ['webgpu', 'webgl'].includes(tf.getBackend()),
    lost:
      device?.lost?.then(
        (info) => `GPU device lost (${info.reason ?? 'unknown'}: ${info.message || 'no message'})`,
      ) ?? new Promise(() => {}),
    async fallBack() {
      const wasm = await selectBackend(tf, 'wasm', browserPlatform);
      if (!wasm.backend) throw new Error(`wasm refused: ${wasm.attempts.map((a) => a.reason).join('; ')}`);
      return withThreads(wasm);
    },
  };
}
