/**
 * The hand-written SIMD module (kernels.wat) bound to the tfjs wasm backend's heap, and helpers to
 * register kernels for that backend only. Other backends never see these kernels: the ops in
 * attention.ts and rowwise.ts fall back to the plain tfjs formulation there. Imports tfjs only;
 * the backend is reached structurally (no import of tfjs-backend-wasm's internals).
 */
import * as tf from '@tensorflow/tfjs';
import { KERNELS_WASM_BASE64 } from './kernels-wasm';

/** The parts of tfjs-backend-wasm 4.22's BackendWasm used here (pin tfjs exactly, §10). */
export interface WasmBackendLike {
  getMemoryOffset(dataId: object): number;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(dataId: object, force?: boolean): boolean;
  wasm: { asm?: { memory?: unknown } };
}

/** kernels.wat's exports; pointers are byte addresses on the backend heap. */
export interface KernelExports {
  zero(ptr: number, bytes: number): void;
  attn_fwd(...args: number[]): void;
  attn_bwd(...args: number[]): void;
  colsum(x: number, out: number, N: number, M: number): void;
  ln_fwd(x: number, g: number, b: number, y: number, mean: number, rstd: number, N: number, C: number, eps: number): void;
  ln_bwd(x: number, g: number, mean: number, rstd: number, dy: number, dx: number, dg: number, db: number, tmp: number, N: number, C: number): void;
  gelu_fwd(x: number, y: number, n: number, A: number): void;
  gelu_bwd(x: number, dy: number, dx: number, n: number, A: number): void;
  gemm_tn(x: number, dy: number, out: number, N: number, A: number, J: number): void;
}

/** One instance per backend heap; null where the heap can't be imported (e.g. threaded wasm's shared memory). */
const instances = new WeakMap<object, KernelExports | null>();

export function kernelsFor(backend: WasmBackendLike): KernelExports | null {
  const memory = backend.wasm?.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory)) return null;
  let inst = instances.get(memory);
  if (inst === undefined) {
    try {
      const bytes = Uint8Array.from(atob(KERNELS_WASM_BASE64), (c) => c.charCodeAt(0));
      // Synchronous compile: fine in workers (where the lab runs models) and Node; Chrome refuses
      // modules over 4 KB on its main thread, and then the plain ops run.
      inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as unknown as KernelExports;
    } catch {
      inst = null;
    }
    instances.set(memory, inst);
  }
  return inst;
}

/** Families of fused ops: attention.ts; rowwise.ts's LayerNorm, GELU and bias gradients; its xᵀ·dy weight gradients. */
export const KERNEL_FAMILIES = ['attention', 'rowwise', 'gemm'] as const;
export type KernelFamily = (typeof KERNEL_FAMILIES)[number];
const enabled: Record<KernelFamily, boolean> = { attention: true, rowwise: true, gemm: true };

/** Turns fused kernels off (all on by default): for A/B benchmarks and tests against the plain path. */
export function setFusedKernels(on: boolean, families: readonly KernelFamily[] = KERNEL_FAMILIES): void {
  for (const f of families) enabled[f] = on;
}

/** Whether a family of fused kernels runs on the current backend. */
export function fusedKernelsAvailable(family: KernelFamily = 'rowwise'): boolean {
  return enabled[family] && tf.getBackend() === 'wasm' && kernelsFor(tf.backend() as unknown as WasmBackendLike) !== null;
}

/** Everything a wasm kernelFunc needs: the exports, the backend, tensor addresses, outputs, scratch. */
export interface WasmCall {
  k: KernelExports;
  be: WasmBackendLike;
  /** Byte address of a tensor's data, plus `off` floats. */
  at(t: tf.TensorInfo, off?: number): number;
  out(shape: number[]): tf.TensorInfo;
  /** Scratch float32 space, freed after the kernel returns. */
  scratch(n: number): number;
}

/** Registers a kernel for the wasm backend (once, however often the module is evaluated). */
export function registerWasmKernel(name: string, run: (c: WasmCall, inputs: Record<string, tf.TensorInfo>, attrs: Record<string, number>) => tf.TensorInfo | tf.TensorInfo[]): void {
  if (tf.getKernel(name, 'wasm')) return;
  tf.registerKernel({
    kernelName: name,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const be = backend as unknown as WasmBackendLike;
      const temps: tf.TensorInfo[] = [];
      const call: WasmCall = {
        k: kernelsFor(be)!,
        be,
        at: (t, off = 0) => be.getMemoryOffset(t.dataId) + 4 * off,
        out: (shape) => be.makeOutput(shape, 'float32'),
        scratch: (n) => {
          const t = be.makeOutput([Math.max(1, n)], 'float32');
          temps.push(t);
          return be.getMemoryOffset(t.dataId);
        },
      };
      try {
        return run(call, inputs as Record<string, tf.TensorInfo>, attrs as unknown as Record<string, number>);
      } finally {
        for (const t of temps) be.disposeData(t.dataId, true);
      }
    },
  });
}
