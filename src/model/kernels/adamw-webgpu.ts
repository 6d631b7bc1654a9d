/**
 * AdamW's update for every parameter in one WGSL dispatch on the webgpu backend (dispatches cost more than the math, docs/figures.md#webgpu-dispatches-and-readbacks), in place
 * of 3 programs per parameter. Same arithmetic, same order, f32 throughout:
 *   m ← β₁·m + (1−β₁)·c·g,   v ← β₂·v + (1−β₂)·(c·g)²,
 *   θ ← θ·(1 − lr·wd) − lr·(m/bc₁)/(√(v/bc₂) + ε).
 * A tfjs program has one output and read-only inputs, and a dispatch may bind 8 storage buffers
 * (the default limit, which tfjs keeps), so this is a raw compute pipeline recorded in the backend's
 * own command encoder, in order with its programs, over flat buffers:
 *   - m and v are the optimizer's alone, so they live flat (all parameters, model order), twice: the
 *     dispatch reads the current pair and writes the spare one, and commit() swaps them. Nothing is
 *     written in place, so an update that is not committed leaves θ, m and v as they were.
 *   - g and the clip coefficient c (a device scalar) are copied into one flat buffer, after θ; the
 *     dispatch writes the new θ over the old there, and it is copied out into a fresh tensor per
 *     parameter: buffer copies, no dispatches. Those tensors are what commit() assigns, so the next
 *     update finds θ already in place and copies it only for a variable assigned since (a loaded checkpoint).
 *   - the dispatch sets a flag to 1.0 wherever a new θ or v is not finite (a non-finite m always
 *     makes θ non-finite): `bad`, read back with the loss.
 *   - clipped by global norm (stage with `{ clipNorm }`), one workgroup first sums g² over the
 *     gathered gradients and writes ‖g‖ and c = min(1, clipNorm/(‖g‖ + 1e-6)) beside them, as
 *     grad-norm.ts's globalNorm and clipCoefOnDevice compute them: 2 dispatches for norm, clip and update.
 * Every buffer is a tfjs tensor (pooled, counted in tf.memory()); the pipeline compiles once per device.
 * The two shaders and how they are bound are adamw-wgsl.ts's; this module lays out the buffers and
 * records the dispatches.
 */
import * as tf from '@tensorflow/tfjs';
import { bindGroup, pipelineFor, uniformBuffer, WG } from './adamw-wgsl';
import { bufferOf, emptyTensor, rawWebGpuBackend, webgpuKernelsAvailable } from './webgpu';

export interface AdamWConstants {
  beta1: number;
  beta2: number;
  /** The clip coefficient, for the wasm kernel (adamw-wasm.ts); the WGSL kernel reads it from a device scalar. */
  scale: number;
  lr: number;
  /** 1 − lr·wd for decayed parameters, 1 for the others. */
  keep: number;
  bc1: number;
  bc2: number;
  eps: number;
}

/**
 * Whether the one-dispatch update runs for n parameters: the webgpu backend, with the `adamw`
 * family on, where θ and g together fit one storage binding (128 MiB by default: 16M parameters).
 */
export function fusedAdamWAvailable(n: number): boolean {
  return (
    webgpuKernelsAvailable('adamw') &&
    4 * (2 * n + 2) <= rawWebGpuBackend().device.limits.maxStorageBufferBindingSize
  );
}

/** One parameter's place in the flat layout. */
interface Segment {
  size: number;
  decay: boolean;
}

/** An update recorded by FlatAdamW.stage. */
interface FlatStaged {
  /** 1 where a new θ or v is not finite, else 0: float32 scalar. */
  bad: tf.Scalar;
  /** ‖g‖ over the gradients given, when the update was clipped by it (stage with `{ clipNorm }`). */
  norm: tf.Scalar | null;
  /** The new θ per parameter, null for one without a gradient. */
  thetas: (tf.Tensor | null)[];
  /** Makes the new moments current (the caller assigns `thetas`). */
  commit(): void;
  /** Frees `bad` and `thetas` (after commit too). */
  dispose(): void;
}

/** AdamW's moments over all parameters, flat in model order, and the one-dispatch update on them. */
export class FlatAdamW {
  /** The current first and second moments: n values each. */
  m: tf.Tensor1D;
  v: tf.Tensor1D;
  /** The pair the next update writes. */
  private spare: { m: tf.Tensor1D; v: tf.Tensor1D };
  /** θ | g | c | ‖g‖, gathered for the dispatch, which writes the new θ over θ. */
  private readonly gathered: tf.Tensor1D;
  private readonly offsets: number[];
  private table: { key: string; t: tf.Tensor1D } | null = null;
  /**
   * Per parameter, the tensor data whose values X's θ part holds: the new θ of the last committed
   * update, which the commit gave the variable. While the variable still holds it, θ is not copied again.
   */
  private held: (object | null)[];
  private open = false;
  readonly n: number;

  /** Moments start at `m`, `v` (n values each, consumed) or zeros. */
  constructor(
    private readonly segments: readonly Segment[],
    m?: tf.Tensor1D,
    v?: tf.Tensor1D,
  ) {
    this.offsets = [0];
    for (const s of segments) this.offsets.push(this.offsets[this.offsets.length - 1] + s.size);
    this.n = this.offsets[segments.length];
    const be = rawWebGpuBackend();
    // Kept: these live as long as the optimizer, whatever tidy scope creates it.
    this.m = tf.keep(m ?? tf.zeros([this.n]));
    this.v = tf.keep(v ?? tf.zeros([this.n]));
    this.held = segments.map(() => null);
    const empty = (size: number) => tf.keep(emptyTensor(be, [size]) as tf.Tensor1D);
    this.spare = { m: empty(this.n), v: empty(this.n) };
    this.gathered = empty(2 * this.n + 2);
  }

  /** The segments' offsets and flags, uploaded again only when which parameters have gradients changes. */
  private tableFor(active: boolean[]): tf.Tensor1D {
    const key = active.map(Number).join('');
    if (this.table?.key !== key) {
      this.table?.t.dispose();
      const flags = this.segments.map((s, i) => (s.decay ? 1 : 0) | (active[i] ? 2 : 0));
      this.table = { key, t: tf.keep(tf.tensor1d([...this.offsets, ...flags], 'int32')) };
    }
    return this.table.t;
  }

  /**
   * Records the update of `thetas` by `grads` (parallel to the segments; undefined: no gradient),
   * scaled by the clip coefficient `c` or clipped to global norm `clipNorm` (Infinity: not clipped);
   * `k.keep` is the decayed parameters' factor. One staged update at a time.
   */
  stage(
    thetas: readonly tf.Tensor[],
    grads: readonly (tf.Tensor | undefined)[],
    c: tf.Scalar | { clipNorm: number },
    k: Omit<AdamWConstants, 'scale'>,
  ): FlatStaged {
    if (this.open) throw new Error('AdamW: an update is already staged; commit or dispose it first');
    const be = rawWebGpuBackend();
    const { n, segments, offsets } = this;
    const active = grads.map((g) => g !== undefined);
    const table = this.tableFor(active);
    const scalar = () => tf.keep(emptyTensor(be, []) as tf.Scalar);
    const bad = scalar();
    const clip = c instanceof tf.Tensor ? null : c.clipNorm;
    const norm = clip === null ? null : scalar();
    const next = segments.map((_, i) => (active[i] ? tf.keep(emptyTensor(be, thetas[i].shape)) : null));
    const used: tf.Tensor[] = [
      ...thetas,
      ...(grads.filter(Boolean) as tf.Tensor[]),
      table,
      bad,
      ...(next.filter(Boolean) as tf.Tensor[]),
    ];
    used.push(
      ...(c instanceof tf.Tensor ? [c] : [norm!]),
      this.gathered,
      this.m,
      this.v,
      this.spare.m,
      this.spare.v,
    );
    // Buffers first: an upload of values still on the CPU records a copy of its own.
    const buf = new Map(used.map((t) => [t, bufferOf(be, t)]));
    const at = (t: tf.Tensor) => buf.get(t)!;

    const uniforms = new ArrayBuffer(48);
    new Uint32Array(uniforms, 0, 2).set([n, segments.length]);
    new Float32Array(uniforms, 8, 9).set([
      k.beta1,
      1 - k.beta1,
      k.beta2,
      1 - k.beta2,
      k.bc1,
      k.bc2,
      k.eps,
      k.lr,
      k.keep,
    ]);
    const pipeline = pipelineFor(be.device, 'adamw');
    const buffers = [this.gathered, table, this.m, this.v, this.spare.m, this.spare.v, bad].map(at);
    const group = bindGroup(be.device, pipeline, [uniformBuffer(be, uniforms), ...buffers]);
    let normPass: { pipeline: GPUComputePipeline; group: GPUBindGroup } | null = null;
    if (clip !== null) {
      const u = new ArrayBuffer(16);
      new Uint32Array(u, 0, 2).set([n, clip === Infinity ? 0 : 1]);
      new Float32Array(u, 8, 1).set([clip === Infinity ? 0 : clip]);
      const pipeline = pipelineFor(be.device, 'norm');
      normPass = {
        pipeline,
        group: bindGroup(be.device, pipeline, [uniformBuffer(be, u), at(this.gathered)]),
      };
    }

    be.ensureCommandEncoderReady();
    be.endComputePassEncoder();
    const enc = be.commandEncoder!;
    const X = at(this.gathered);
    const held = this.held;
    this.held = segments.map(() => null); // the dispatch writes over X's θ: valid again only if committed
    segments.forEach((s, i) => {
      // Zeros where a parameter has no gradient, for the norm.
      if (!active[i]) return void (normPass && enc.clearBuffer(X, 4 * (n + offsets[i]), 4 * s.size));
      if (thetas[i].dataId !== held[i])
        enc.copyBufferToBuffer(at(thetas[i]), 0, X, 4 * offsets[i], 4 * s.size);
      enc.copyBufferToBuffer(at(grads[i]!), 0, X, 4 * (n + offsets[i]), 4 * s.size);
    });
    if (c instanceof tf.Tensor) enc.copyBufferToBuffer(at(c), 0, X, 8 * n, 4);
    enc.clearBuffer(at(bad));
    const pass = enc.beginComputePass();
    if (normPass) {
      pass.setPipeline(normPass.pipeline);
      pass.setBindGroup(0, normPass.group);
      pass.dispatchWorkgroups(1);
    }
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.min(Math.ceil(n / WG), be.device.limits.maxComputeWorkgroupsPerDimension));
    pass.end();
    segments.forEach(
      (s, i) => next[i] && enc.copyBufferToBuffer(X, 4 * offsets[i], at(next[i]!), 0, 4 * s.size),
    );
    if (norm) enc.copyBufferToBuffer(X, 4 * (2 * n + 1), at(norm), 0, 4);
    // As for tfjs's programs: a buffer this command buffer uses returns to the pool only once it is submitted.
    for (const t of used) be.commandQueueOwnedIds.add(t.dataId);

    this.open = true;
    let done = false;
    return {
      bad,
      norm,
      thetas: next,
      commit: () => {
        if (done) return;
        done = true;
        this.held = next.map((t) => t?.dataId ?? null);
        [this.m, this.spare.m] = [this.spare.m, this.m];
        [this.v, this.spare.v] = [this.spare.v, this.v];
      },
      dispose: () => {
        tf.dispose([bad, ...(norm ? [norm] : []), ...(next.filter(Boolean) as tf.Tensor[])]);
        done = true;
        this.open = false;
      },
    };
  }

  /** Replaces the moments (n values each). */
  load(m: Float32Array, v: Float32Array): void {
    tf.dispose([this.m, this.v]);
    this.m = tf.keep(tf.tensor1d(m.slice()));
    this.v = tf.keep(tf.tensor1d(v.slice()));
  }

  dispose(): void {
    tf.dispose([this.m, this.v, this.spare.m, this.spare.v, this.gathered, this.table?.t ?? []].flat());
    this.table = null;
  }
}
