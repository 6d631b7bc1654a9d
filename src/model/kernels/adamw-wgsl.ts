/**
 * The WGSL of AdamW's one-dispatch update (adamw-webgpu.ts) and how it is bound: the update shader,
 * the one-workgroup shader that sums g² for the global-norm clip, their pipelines (compiled once
 * per device), and the uniform buffers and bind groups a dispatch takes. Raw WebGPU rather than a
 * tfjs program, because a tfjs program has one output and read-only inputs (adamw-webgpu.ts says
 * what the buffers hold). Kept apart so the shaders read on their own, next to nothing but their
 * binding.
 */
import type { RawWebGpuBackend } from './webgpu';

/** Threads per workgroup of the update. */
export const WG = 128;

/**
 * X = θ (n) | g (n) | c | ‖g‖, the new θ written over θ; T = each parameter's first index (p + 1 entries, the last n), then its
 * flags (p: bit 0 decay, bit 1 has a gradient). A parameter without a gradient keeps θ, m and v.
 */
const SHADER = /* wgsl */ `
struct U { n : u32, p : u32, b1 : f32, omb1 : f32, b2 : f32, omb2 : f32, bc1 : f32, bc2 : f32, eps : f32, lr : f32, keep : f32 };
@group(0) @binding(0) var<uniform> u : U;
@group(0) @binding(1) var<storage, read_write> X : array<f32>;
@group(0) @binding(2) var<storage, read> T : array<u32>;
@group(0) @binding(3) var<storage, read> M : array<f32>;
@group(0) @binding(4) var<storage, read> V : array<f32>;
@group(0) @binding(5) var<storage, read_write> M2 : array<f32>;
@group(0) @binding(6) var<storage, read_write> V2 : array<f32>;
@group(0) @binding(7) var<storage, read_write> bad : array<atomic<u32>>;

// By the bits (exponent all ones ⇔ ±Inf or NaN): WGSL may assume no NaN or Inf in float arithmetic (tfjs #7162).
fn isFiniteF32(x : f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// The parameter that element i belongs to: the last p with T[p] <= i.
fn param(i : u32) -> u32 {
  var lo = 0u;
  var hi = u.p;
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (T[mid] <= i) { lo = mid; } else { hi = mid; }
  }
  return lo;
}

@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) id : vec3<u32>, @builtin(num_workgroups) groups : vec3<u32>) {
  let c = X[2u * u.n];
  for (var i = id.x; i < u.n; i = i + groups.x * ${WG}u) {
    let flags = T[u.p + 1u + param(i)];
    if ((flags & 2u) == 0u) {
      M2[i] = M[i];
      V2[i] = V[i];
      continue;
    }
    let gs = c * X[u.n + i];
    let m = u.b1 * M[i] + u.omb1 * gs;
    let v = u.b2 * V[i] + u.omb2 * (gs * gs);
    let step = (m / u.bc1) / (sqrt(v / u.bc2) + u.eps);
    let w = X[i] * select(1.0, u.keep, (flags & 1u) != 0u) - step * u.lr;
    M2[i] = m;
    V2[i] = v;
    X[i] = w; // over θ, which only this thread reads
    if (!(isFiniteF32(w) && isFiniteF32(v))) { atomicOr(&bad[0], 0x3f800000u); } // the bits of 1.0
  }
}`;

/** Threads of the one workgroup that sums g². */
const NORM_WG = 256;

/** X[2n] = c, X[2n + 1] = ‖g‖ over X's g part (zero where a parameter has no gradient). */
const NORM_SHADER = /* wgsl */ `
struct U { n : u32, clip : u32, maxNorm : f32 };
@group(0) @binding(0) var<uniform> u : U;
@group(0) @binding(1) var<storage, read_write> X : array<f32>;
var<workgroup> partial : array<f32, ${NORM_WG}>;

@compute @workgroup_size(${NORM_WG})
fn main(@builtin(local_invocation_index) t : u32) {
  var s = 0.0;
  for (var i = t; i < u.n; i = i + ${NORM_WG}u) {
    let g = X[u.n + i];
    s = s + g * g;
  }
  partial[t] = s;
  workgroupBarrier();
  for (var k = ${NORM_WG / 2}u; k > 0u; k = k / 2u) {
    if (t < k) { partial[t] = partial[t] + partial[t + k]; }
    workgroupBarrier();
  }
  if (t == 0u) {
    let norm = sqrt(partial[0]);
    X[2u * u.n] = select(1.0, min(1.0, u.maxNorm / (norm + 1e-6)), u.clip != 0u);
    X[2u * u.n + 1u] = norm;
  }
}`;

const pipelines = {
  adamw: new WeakMap<GPUDevice, GPUComputePipeline>(),
  norm: new WeakMap<GPUDevice, GPUComputePipeline>(),
};
export function pipelineFor(device: GPUDevice, which: keyof typeof pipelines): GPUComputePipeline {
  let p = pipelines[which].get(device);
  if (!p) {
    const code = which === 'adamw' ? SHADER : NORM_SHADER;
    p = device.createComputePipeline({
      layout: 'auto',
      compute: { module: device.createShaderModule({ code }), entryPoint: 'main' },
    });
    pipelines[which].set(device, p);
  }
  return p;
}

/** A uniform buffer holding `data`, from tfjs's pool and back to it when the command buffer is submitted, as tfjs's own. */
export function uniformBuffer(be: RawWebGpuBackend, data: ArrayBuffer): GPUBuffer {
  const ubo = be.bufferManager.acquireBuffer(
    data.byteLength,
    GPUBufferUsage.COPY_DST | GPUBufferUsage.UNIFORM,
  );
  be.queue.writeBuffer(ubo, 0, data);
  be.uniformPendingDisposal.push(ubo);
  return ubo;
}

export const bindGroup = (device: GPUDevice, pipeline: GPUComputePipeline, buffers: GPUBuffer[]) =>
  device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
