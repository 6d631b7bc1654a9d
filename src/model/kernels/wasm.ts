/**
 * The hand-written SIMD module (kernels.wat) bound to the tfjs wasm backend's heap, and helpers to
 * register kernels for that backend only. Other backends never see these kernels: the ops in
 * attention.ts and rowwise.ts fall back to the plain tfjs formulation there. Imports tfjs only;
 * the backend is reached structurally (no import of tfjs-backend-wasm's internals).
 */
import * as tf from '@tensorflow/tfjs';
import {
  KERNELS_WASM_BASE64,
  KERNELS_WASM_RELAXED_BASE64,
  KERNELS_WASM_RELAXED_SHARED_BASE64,
  KERNELS_WASM_SHARED_BASE64,
} from './kernels-wasm';
import { kernelThreadsReady, startKernelThreads } from './kernel-threads';
import { shareIdentityOnWasm } from './identity-wasm';
import type { KernelExports, WasmBackendLike } from './kernel-types';

/** gemm_ep's epilogues (kernels.wat): c = gelu(c); or c = gelu(c) and d = gelu'(c) (what the MLP's backward needs). */
export const EPILOGUE = { gelu: 1, geluAndGrad: 2 } as const;

const decode = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
/** The module built with relaxed SIMD's fused multiply-add, where the engine validates it. */
const RELAXED = decode(KERNELS_WASM_RELAXED_BASE64);
/**
 * Whether the engine runs relaxed SIMD: Chrome ≥ 114, Firefox ≥ 120; Node 20's V8 11.3 only with
 * `--experimental-wasm-relaxed-simd` (the Node scripts set it, see enableRelaxedSimd in scripts/).
 */
let relaxedValid: boolean | undefined;
export const relaxedSimdSupported = (): boolean => (relaxedValid ??= WebAssembly.validate(RELAXED));
let relaxedWanted = true;

/** Uses the relaxed-SIMD module where supported (default) or always the plain one: for A/B benchmarks and tests. */
export function setRelaxedSimd(on: boolean): void {
  relaxedWanted = on;
}

/** Which module the kernels run: 'relaxed' (fused multiply-add) or 'plain'. */
export const simdFlavour = (): 'relaxed' | 'plain' =>
  relaxedWanted && relaxedSimdSupported() ? 'relaxed' : 'plain';

/** The module's bytes per flavour, importing a plain memory or (tfjs's threaded build) a shared one. */
const BYTES = {
  relaxed: { plain: KERNELS_WASM_RELAXED_BASE64, shared: KERNELS_WASM_RELAXED_SHARED_BASE64 },
  plain: { plain: KERNELS_WASM_BASE64, shared: KERNELS_WASM_SHARED_BASE64 },
};

/** Per flavour, one instance per backend heap; null where the heap can't be imported. */
const instances = {
  relaxed: new WeakMap<object, KernelExports | null>(),
  plain: new WeakMap<object, KernelExports | null>(),
};

/** The backend's heap, wherever its build keeps it; null if it has none we can see. */
function heapMemory(backend: WasmBackendLike): WebAssembly.Memory | null {
  const memory = backend.wasm?.asm?.memory ?? backend.wasm?.wasmMemory;
  return memory instanceof WebAssembly.Memory ? memory : null;
}

export function kernelsFor(backend: WasmBackendLike): KernelExports | null {
  const memory = heapMemory(backend);
  if (!memory) return null;
  const flavour = simdFlavour();
  let inst = instances[flavour].get(memory);
  if (inst === undefined) {
    shareIdentityOnWasm(); // the backend is registered by now (it has a heap): replace its copying Identity
    const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
    try {
      const bytes =
        flavour === 'relaxed' && !shared ? RELAXED : decode(BYTES[flavour][shared ? 'shared' : 'plain']);
      // Synchronous compile: fine in workers (where the lab runs models) and Node; Chrome refuses
      // modules over 4 KB on its main thread, and then the plain ops run.
      const module = new WebAssembly.Module(bytes);
      inst = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as KernelExports;
      if (shared) startKernelThreads(inst, module, memory, backend);
    } catch {
      inst = null;
    }
    instances[flavour].set(memory, inst);
  }
  return inst;
}

/**
 * On the wasm backend, the float32 values of `tensors` end to end in one new array, copied
 * straight from the backend's heap: one copy and no kernel, where a concat and its readback copy
 * twice (a run state's read after every step: train/trainer-state.ts). Null on other backends,
 * which need a readback.
 */
export function heapValues(tensors: readonly tf.Tensor[]): Float32Array | null {
  if (tf.getBackend() !== 'wasm' || tensors.some((t) => t.dtype !== 'float32')) return null;
  const be = tf.backend() as unknown as WasmBackendLike;
  const memory = heapMemory(be);
  if (!memory) return null;
  const heap = new Float32Array(memory.buffer);
  const out = new Float32Array(tensors.reduce((n, t) => n + t.size, 0));
  let at = 0;
  for (const t of tensors) {
    const offset = be.getMemoryOffset(t.dataId);
    if (offset % 4 !== 0) return null; // never on tfjs's heap (its allocations are aligned): read back instead
    out.set(heap.subarray(offset / 4, offset / 4 + t.size), at);
    at += t.size;
  }
  return out;
}

/**
 * Families of fused ops: attention.ts; rowwise.ts's LayerNorm, GELU and bias gradients; its xᵀ·dy
 * weight gradients (gemm); its a·b (+ bias) matmuls in place of XNNPACK's (matmul); AdamW's update and the
 * global gradient norm before it (adamw-wasm.ts, grad-norm-wasm.ts);
 * the sampler's whole KV-cached forward as one kernel (decode.ts); the MLP's first layer as one GEMM
 * with bias and GELU in its epilogue (mlp: rowwise.ts's mlpFused and decode.ts's MLP; needs rowwise and matmul on).
 */
export const KERNEL_FAMILIES = ['attention', 'rowwise', 'gemm', 'matmul', 'adamw', 'decode', 'mlp'] as const;
export type KernelFamily = (typeof KERNEL_FAMILIES)[number];
const enabled: Record<KernelFamily, boolean> = {
  attention: true,
  rowwise: true,
  gemm: true,
  matmul: true,
  adamw: true,
  decode: true,
  mlp: true,
};

/** Turns fused kernels off (all on by default): for A/B benchmarks and tests against the plain path. */
export function setFusedKernels(on: boolean, families: readonly KernelFamily[] = KERNEL_FAMILIES): void {
  for (const f of families) enabled[f] = on;
}

/** Whether a family is switched on (on whichever backend has kernels for it). */
export function familyEnabled(family: KernelFamily): boolean {
  return enabled[family];
}

/** Whether a family of fused kernels runs on the current backend. */
export function fusedKernelsAvailable(family: KernelFamily = 'rowwise'): boolean {
  return (
    enabled[family] &&
    tf.getBackend() === 'wasm' &&
    kernelsFor(tf.backend() as unknown as WasmBackendLike) !== null
  );
}

/**
 * Binds the kernels module to the active wasm backend's heap now (on tfjs's threaded build this
 * starts its helper threads) and resolves with the threads its GEMMs run on: 0 where it cannot bind.
 */
export async function wasmKernelThreads(): Promise<number> {
  if (tf.getBackend() !== 'wasm' || !kernelsFor(tf.backend() as unknown as WasmBackendLike)) return 0;
  return kernelThreadsReady();
}

/** Everything a wasm kernelFunc needs: the exports, the backend, tensor addresses, outputs, scratch. */
interface WasmCall {
  k: KernelExports;
  be: WasmBackendLike;
  /** Byte address of a tensor's data, plus `off` floats. */
  at(t: tf.TensorInfo, off?: number): number;
  out(shape: number[]): tf.TensorInfo;
  /** Scratch float32 space, freed after the kernel returns. */
  scratch(n: number): number;
  /** The whole heap as floats (a new view each call: the heap may have grown since the last). */
  heap(): Float32Array;
}

/**
 * Each backend's WasmCall and the scratch it lent, made once: a kernel call then makes no
 * functions. Under tsx (the CLI, the scripts, the unit tests), which names every function it makes,
 * four closures a call cost about 5 µs of it (`npx tsx scripts/profile-dispatch.ts --profile`).
 */
const calls = new WeakMap<object, { call: WasmCall; temps: tf.TensorInfo[] }>();

function callOf(be: WasmBackendLike): { call: WasmCall; temps: tf.TensorInfo[] } {
  let c = calls.get(be);
  if (!c) {
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
      heap: () => new Float32Array(heapMemory(be)!.buffer),
    };
    c = { call, temps };
    calls.set(be, c);
  }
  return c;
}

/** Registers a kernel for the wasm backend (once, however often the module is evaluated). */
export function registerWasmKernel(
  name: string,
  run: (
    c: WasmCall,
    inputs: Record<string, tf.TensorInfo>,
    attrs: Record<string, number>,
  ) => tf.TensorInfo | tf.TensorInfo[],
): void {
  if (tf.getKernel(name, 'wasm')) return;
  tf.registerKernel({
    kernelName: name,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const be = backend as unknown as WasmBackendLike;
      const { call, temps } = callOf(be);
      call.k = kernelsFor(be)!; // the module flavour in use now (setRelaxedSimd)
      const lent = temps.length; // scratch from here on is this call's
      try {
        return run(call, inputs as Record<string, tf.TensorInfo>, attrs as unknown as Record<string, number>);
      } finally {
        for (let i = lent; i < temps.length; i++) be.disposeData(temps[i].dataId, true);
        temps.length = lent;
      }
    },
  });
}
