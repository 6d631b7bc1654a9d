/**
 * What the WGSL kernels share: the webgpu backend reached structurally (no import of
 * tfjs-backend-webgpu's internals, which load only where navigator.gpu exists), the two program
 * shapes they use, and WGSL helpers. Programs follow tfjs-backend-webgpu 4.22's WebGPUProgram
 * (pin tfjs exactly, docs/backends.md#pinned-to-one-tfjs-version): the backend declares the inputs, one output and the uniforms, and wraps
 * `main`; pipelines are cached by shaderKey plus ranks and dtypes, so each program compiles once.
 */
import * as tf from '@tensorflow/tfjs';
import { familyEnabled, type KernelFamily } from './wasm';

/** The part of tfjs-backend-webgpu 4.22's WebGPUBackend used here. */
interface WebGpuBackendLike {
  /** Each uniform entry is laid out by its length: one entry per scalar here. */
  runWebGPUProgram(
    program: object,
    inputs: tf.TensorInfo[],
    dtype: 'float32',
    uniforms: { type: 'float32' | 'int32'; data: number[] }[],
  ): tf.TensorInfo;
}

/** The families of wasm.ts's KERNEL_FAMILIES that have WGSL programs (the others run tfjs's webgpu ops). */
export const WEBGPU_FAMILIES: readonly KernelFamily[] = ['attention', 'rowwise', 'gemm', 'adamw'];

/**
 * Whether a family of fused ops (switched by setFusedKernels) runs as WGSL programs: it has them,
 * it is on, and the webgpu backend is active. Separate from fusedKernelsAvailable, which gates the
 * wasm kernels and means that backend only.
 */
export function webgpuKernelsAvailable(family: KernelFamily): boolean {
  return WEBGPU_FAMILIES.includes(family) && familyEnabled(family) && tf.getBackend() === 'webgpu';
}

/**
 * The part of 4.22's WebGPUBackend that a raw compute pipeline needs to record its work in the
 * backend's own command encoder, in order with tfjs's programs (adamw-webgpu.ts), as
 * runWebGPUProgram does: each tensor's GPUBuffer, the pool, and the deferred release of buffers a
 * command buffer not yet submitted still uses.
 */
export interface RawWebGpuBackend {
  device: GPUDevice;
  queue: GPUQueue;
  tensorMap: { get(dataId: object): { resource: GPUBuffer | null } };
  makeTensorInfo(shape: number[], dtype: 'float32'): tf.TensorInfo;
  /** Gives the tensor a buffer from the pool, uploading its values if it has them on the CPU. */
  uploadToGPU(dataId: object): void;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  commandEncoder: GPUCommandEncoder | null;
  /** Tensors whose buffers the unsubmitted commands use: disposing one defers its release until submit. */
  commandQueueOwnedIds: WeakSet<object>;
  bufferManager: { acquireBuffer(size: number, usage: number): GPUBuffer };
  /** Uniform buffers returned to the pool on submit. */
  uniformPendingDisposal: GPUBuffer[];
}

export const rawWebGpuBackend = (): RawWebGpuBackend => tf.backend() as unknown as RawWebGpuBackend;

/** The GPUBuffer holding `t`'s values (uploaded first if they are on the CPU). */
export function bufferOf(be: RawWebGpuBackend, t: tf.Tensor): GPUBuffer {
  be.uploadToGPU(t.dataId);
  return be.tensorMap.get(t.dataId).resource!;
}

/** A new float32 tensor on a pooled buffer whose contents are undefined: for a raw pipeline to write. */
export function emptyTensor(be: RawWebGpuBackend, shape: number[]): tf.Tensor {
  const info = be.makeTensorInfo(shape, 'float32');
  be.uploadToGPU(info.dataId);
  return tf.engine().makeTensorFromTensorInfo(info);
}

/** Threads per workgroup of the per-workgroup programs (row, column and whole-tensor reductions). */
export const WG = 64;
const EW = 128;

interface GpuProgram {
  /** Names the shader; pipelines are cached by it. */
  key: string;
  /** WGSL names of the inputs, one per tensor. tfjs names each one's shape `uniforms.<name, first letter lower-cased>Shape`. */
  inputs: string[];
  outShape: number[];
  /**
   * WGSL statements of `main`. Without `groups`: one thread per output element `index`, setting `r`.
   * With `groups`: that many workgroups of WG threads; workgroup `o` (`live` unless it is a padding
   * one), thread `t`; wgSum2(a, b) and wgMax(a) reduce over the workgroup and must be reached by every
   * thread; the body writes with setOutputAtIndex.
   */
  body: string;
  groups?: number;
}

/** A uniform: WGSL name, type, value. */
export type Uniform = [string, 'f32' | 'i32', number];

/** Finiteness by the bits (exponent all ones ⇔ ±Inf or NaN): WGSL may assume no NaN or Inf in float arithmetic (tfjs #7162). */
const isFiniteFn = `
      fn isFiniteF32(x : f32) -> bool {
        return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
      }`;

const reduceFns = `
      var<workgroup> sa : array<f32, ${WG}>;
      var<workgroup> sb : array<f32, ${WG}>;
      fn wgSum2(a : f32, b : f32) -> vec2<f32> {
        let t = localId.x;
        sa[t] = a;
        sb[t] = b;
        workgroupBarrier();
        for (var s = ${WG / 2}u; s > 0u; s = s / 2u) {
          if (t < s) {
            sa[t] = sa[t] + sa[t + s];
            sb[t] = sb[t] + sb[t + s];
          }
          workgroupBarrier();
        }
        let r = vec2<f32>(sa[0], sb[0]);
        workgroupBarrier();
        return r;
      }
      fn wgMax(a : f32) -> f32 {
        let t = localId.x;
        sa[t] = a;
        workgroupBarrier();
        for (var s = ${WG / 2}u; s > 0u; s = s / 2u) {
          if (t < s) { sa[t] = max(sa[t], sa[t + s]); }
          workgroupBarrier();
        }
        let r = sa[0];
        workgroupBarrier();
        return r;
      }`;

/** Runs a program on the active webgpu backend: a new float32 tensor of `outShape` the caller owns. */
export function runGpuProgram(p: GpuProgram, tensors: tf.Tensor[], uniforms: Uniform[] = []): tf.Tensor {
  const n = p.outShape.reduce((a, d) => a * d, 1);
  const grouped = p.groups !== undefined;
  const all: Uniform[] = grouped ? [['groups', 'i32', p.groups!], ...uniforms] : uniforms;
  const program = {
    variableNames: p.inputs,
    outputShape: p.outShape,
    shaderKey: `agentwise_${p.key}`,
    dispatchLayout: { x: p.outShape.map((_, i) => i) },
    dispatch: [grouped ? p.groups! : Math.ceil(n / EW), 1, 1],
    workgroupSize: [grouped ? WG : EW, 1, 1],
    size: !grouped,
    uniforms: all.map(([name, type]) => `${name} : ${type},`).join(' '),
    getUserCode: () =>
      grouped
        ? `${isFiniteFn}
      ${reduceFns}
      fn main(index : i32) {
        // The workgroup's number, however the backend laid the dispatch out.
        let o = i32((workgroupId.z * numWorkgroups.y + workgroupId.y) * numWorkgroups.x + workgroupId.x);
        let live = o < uniforms.groups;
        let t = i32(localId.x);
        ${p.body}
      }`
        : `${isFiniteFn}
      fn main(index : i32) {
        if (index < uniforms.size) {
          ${p.body}
          setOutputAtIndex(index, r);
        }
      }`,
  };
  const data = all.map(([, type, value]) => ({
    type: type === 'f32' ? ('float32' as const) : ('int32' as const),
    data: [value],
  }));
  const be = tf.backend() as unknown as WebGpuBackendLike;
  return tf.engine().makeTensorFromTensorInfo(be.runWebGPUProgram(program, tensors, 'float32', data));
}

/** Inputs per whole-tensor reduction: 7 storage buffers plus the output fit the default limit of 8. */
const SUM_INPUTS = 7;

/**
 * Σ term(x) over every value of every tensor in `xs`, as a float32 scalar: one workgroup per 7
 * tensors, then AddNs of their partial sums (⌈n/7⌉ + ⌈n/49⌉ + … dispatches instead of 2 per tensor).
 * `term` maps a WGSL value expression to the summand.
 */
export function sumOver(key: string, xs: readonly tf.Tensor[], term: (x: string) => string): tf.Scalar {
  return tf.tidy(() => {
    const sums: tf.Tensor[] = [];
    for (let i = 0; i < xs.length; i += SUM_INPUTS) {
      const group = xs.slice(i, i + SUM_INPUTS).map((x) => tf.reshape(x, [-1]));
      const names = group.map((_, j) => `X${j}`);
      const loops = names.map(
        (x, j) => `for (var i = t; i < uniforms.x${j}Shape; i = i + ${WG}) { s = s + ${term(`${x}[i]`)}; }`,
      );
      const body = `var s = 0.0;\n        ${loops.join('\n        ')}\n        let total = wgSum2(s, 0.0).x;\n        if (t == 0) { setOutputAtIndex(0, total); }`;
      sums.push(
        runGpuProgram(
          { key: `sum_${key}_${group.length}`, inputs: names, outShape: [1], body, groups: 1 },
          group,
        ),
      );
    }
    while (sums.length > 1) sums.splice(0, SUM_INPUTS, tf.addN(sums.slice(0, SUM_INPUTS)));
    return tf.reshape(sums[0] ?? tf.zeros([1]), []) as tf.Scalar;
  });
}
