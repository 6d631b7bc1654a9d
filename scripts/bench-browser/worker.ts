/**
 * The bench:browser worker: loads each backend the way the lab's run worker does
 * (platform-browser.ts), counts WebGPU dispatches and readbacks at the API, and measures
 * bench-workload.ts on each backend × preset in turn.
 */
import { browserPlatform, setWasmThreads, wasmThreadsRunning } from '../../src/backends/platform-browser';
import type { ConcreteBackend } from '../../src/backends/backend-types';
import type { ModelPreset } from '../../src/core/model-sizes';
import { kernelsFor, wasmKernelThreads } from '../../src/model/kernels/wasm';
import { ATTN_BWD, ATTN_FWD, GELU_BWD, GELU_FWD } from '../../src/model/kernels/kernel-thread-ops';
import { setSplitThreshold } from '../../src/model/kernels/kernel-threads';
import { chosenGemmTile, setGemmTile, type GemmTile } from '../../src/model/kernels/gemm-tile';
import type { WasmBackendLike } from '../../src/model/kernels/kernel-types';
import * as tf from '@tensorflow/tfjs';
import { countGpuCalls, measureWorkload, type Result, type WebGpuGlobals } from '../bench-workload';

export interface BenchRequest {
  presets: ModelPreset[];
  backends: ConcreteBackend[];
  reps: number;
  rows: number;
  /** Kernel sets to measure on each backend: fused (wasm's SIMD or webgpu's WGSL programs) and/or plain tfjs ops. */
  kernels: ('fused' | 'plain')[];
  /** wasm threads to ask tfjs for (platform-browser.ts's setWasmThreads); the page must be cross-origin isolated for more than 1. */
  threads: number;
  /** Which fused kernels split over the threads: all (the lab's) or only the GEMMs (as before attention and GELU were split). */
  split: 'all' | 'gemm';
  /** The a·b GEMMs' register tiles to measure wasm's fused kernels on (gemm-tile.ts): auto (the lab's), 4x8, 3x12, 6x8. */
  gemm: GemmTile[];
}

export interface BenchReply {
  results: Result[];
  /** Per backend: why it was skipped (unavailable here), if it was. */
  skipped: Record<string, string>;
  adapter: string;
  /** Whether the page was cross-origin isolated (SharedArrayBuffer, so wasm threads). */
  isolated: boolean;
}

const post = (m: BenchReply | { error: string }) => postMessage(m);
const clock = { wall: () => performance.now(), cpu: () => NaN };

onmessage = async (e: MessageEvent<BenchRequest>) => {
  try {
    const { presets, backends, reps, rows, kernels, threads, split, gemm } = e.data;
    if (split === 'gemm') setSplitThreshold(Infinity, [ATTN_FWD, ATTN_BWD, GELU_FWD, GELU_BWD]);
    const reply: BenchReply = {
      results: [],
      skipped: {},
      adapter: '',
      isolated: globalThis.crossOriginIsolated === true,
    };
    setWasmThreads(threads);
    for (const backend of backends) {
      const probe = await browserPlatform.probe(backend);
      if (!probe.available) {
        reply.skipped[backend] = probe.reason ?? 'not available';
        continue;
      }
      if (backend === 'webgpu') {
        const a = probe.adapter;
        reply.adapter = a
          ? [a.vendor, a.architecture, a.description, a.isFallbackAdapter ? '(fallback adapter)' : '']
              .filter(Boolean)
              .join(' ')
          : '';
        countGpuCalls(globalThis as unknown as WebGpuGlobals);
      }
      await browserPlatform.load(backend);
      for (const preset of presets) {
        // Only wasm and webgpu have fused kernels; elsewhere 'fused' would measure the plain ops again.
        for (const k of backend === 'wasm' || backend === 'webgpu' ? kernels : ['plain']) {
          // Bind the kernels module first: on the threaded build its helper threads start in the background.
          if (
            backend === 'wasm' &&
            k === 'fused' &&
            (await tf.setBackend('wasm')) &&
            !(await wasmKernelThreads())
          ) {
            reply.skipped[`wasm fused, ${threads} threads`] = 'the fused kernels did not bind the wasm heap';
            continue;
          }
          for (const tile of backend === 'wasm' && k === 'fused' ? gemm : (['auto'] as const)) {
            setGemmTile(tile);
            const result = await measureWorkload({ preset, backend, kernels: k, rows, reps, clock });
            // auto: the tile this worker's kernels kept (or still timing); no spaces, one table column
            const heap = kernelsFor(tf.backend() as unknown as WasmBackendLike);
            const kept = heap && (chosenGemmTile(heap) ?? 'timing');
            const kernelsRun =
              tile !== 'auto'
                ? `${result.kernels}/${tile}`
                : kept
                  ? `${result.kernels}/auto→${kept}`
                  : result.kernels;
            reply.results.push(
              backend === 'wasm'
                ? { ...result, kernels: kernelsRun, threads: await wasmThreadsRunning() }
                : result,
            );
          }
          setGemmTile('auto');
        }
      }
    }
    post(reply);
  } catch (err) {
    post({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
};
