/**
 * What the WGSL kernels share: the webgpu backend reached structurally (no import of
 * tfjs-backend-webgpu's internals, which load only where navigator.gpu exists), and WGSL helpers.
 * Programs follow tfjs-backend-webgpu 4.22's WebGPUProgram shape (pin tfjs exactly, §10): the
 * backend declares the inputs (`variableNames`), one output, the uniforms, and wraps `main`.
 */
import * as tf from '@tensorflow/tfjs';

/** The part of tfjs-backend-webgpu 4.22's WebGPUBackend used here. */
export interface WebGpuBackendLike {
  /** Each uniform entry is laid out by its length (a 3-long one as a vec3): one entry per scalar. */
  runWebGPUProgram(program: object, inputs: tf.TensorInfo[], dtype: 'float32', uniforms: { type: 'float32' | 'int32'; data: number[] }[]): tf.TensorInfo;
}

export function gpuBackend(): WebGpuBackendLike {
  return tf.backend() as unknown as WebGpuBackendLike;
}

/**
 * Finiteness by the bits (exponent all ones ⇔ ±Inf or NaN): WGSL implementations may assume no
 * NaN or Inf in float arithmetic (tfjs #7162), so `x != x` cannot be trusted.
 */
export const isFiniteWgsl = `
      fn isFiniteF32(x : f32) -> bool {
        return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
      }`;

/** A NaN: the one tfjs puts in every program's uniforms (a constant NaN is a WGSL compile error). */
export const NAN_WGSL = 'uniforms.NAN';
