/**
 * The fused WebGPU ops against the plain tfjs formulation on the cpu backend: each op's forward and
 * its gradient in every input, at the `nano` preset's real sizes (64 rows × 2 sequences, d 64,
 * MLP 256, 2 heads). Runs wherever tfjs has both backends: the browser test's page (SwiftShader)
 * and, for development, Node with Dawn. Returns max |Δ| per op and output. Then AdamW's staged
 * update over a nano model's parameters, step by step (checkAdamW).
 */
import * as tf from '@tensorflow/tfjs';
import { Prng } from '../../../src/core/prng';
import { layerNorm, linear, matmul, mlp } from '../../../src/model/layers';
import { cachedAttention, selfAttention } from '../../../src/model/kernels/attention';
import { WEBGPU_FAMILIES, webgpuKernelsAvailable } from '../../../src/model/kernels/webgpu';
import { GPT, MASK } from '../../../src/model/gpt';
import { gptConfig } from '../../../src/core/gpt-config';
import { AdamW } from '../../../src/model/optim';
import { setFusedKernels } from '../../../src/model/kernels/wasm';

/** An op on inputs of fixed values; `grad: false` checks the forward only (decoding's cached attention). */
type Case = { name: string; inputs: number[][]; run: (...xs: tf.Tensor[]) => tf.Tensor; grad?: boolean };

const B = 2;
const T = 64;
const N = B * T;
const C = 64;
const M = 256;
const H = 2;
/** Decoding: one new token per row over S cached positions, the first few masked (left padding). */
const S = 40;

/** (1, 1, T, T) causal additive bias, as GPT.causalBias. */
const causal = () =>
  tf.tensor4d(
    Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? MASK : 0)),
    [1, 1, T, T],
  );
/** (B, 1, 1, S): row b's first 3b positions masked. */
const padded = () =>
  tf.tensor4d(
    Array.from({ length: B * S }, (_, i) => (i % S < 3 * Math.floor(i / S) ? MASK : 0)),
    [B, 1, 1, S],
  );

function randoms(rng: Prng, shape: number[], scale = 1): number[] {
  const n = shape.reduce((a, d) => a * d, 1);
  return Array.from({ length: n }, () => (rng.next() * 2 - 1) * scale);
}

function cases(): { c: Case; shapes: number[][] }[] {
  const rng = new Prng(7);
  const make = (
    name: string,
    shapes: number[][],
    run: Case['run'],
    scale: number[] = shapes.map(() => 1),
  ) => ({
    c: { name, inputs: shapes.map((s, i) => randoms(rng, s, scale[i])), run },
    shapes,
  });
  return [
    make(
      'layerNorm',
      [[N, C], [C], [C]],
      (x, g, b) => layerNorm(x as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D),
      [3, 1, 1],
    ),
    make('linear', [[N, C], [C, M], [M]], (x, w, b) =>
      linear(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D),
    ),
    // w1 scaled so that h = x·w1 + b1 spans GELU's bend and both tails (|h| up to about 6).
    make(
      'mlp',
      [[N, C], [C, M], [M], [M, C], [C]],
      (x, w1, b1, w2, b2) =>
        mlp(x as tf.Tensor2D, w1 as tf.Tensor2D, b1 as tf.Tensor1D, w2 as tf.Tensor2D, b2 as tf.Tensor1D),
      [1, 0.5, 1, 0.2, 1],
    ),
    make(
      'matmul',
      [
        [N, C],
        [C, M],
      ],
      (a, b) => matmul(a as tf.Tensor2D, b as tf.Tensor2D),
    ),
    make(
      'selfAttention',
      [[N, 3 * C]],
      (qkv) => tf.tidy(() => selfAttention(qkv as tf.Tensor2D, causal(), B, H)),
      [2],
    ),
    {
      ...make(
        'cachedAttention',
        [
          [B, C],
          [B, S, C],
          [B, S, C],
        ],
        (q, k, v) =>
          tf.tidy(() => cachedAttention(q as tf.Tensor2D, k as tf.Tensor3D, v as tf.Tensor3D, padded(), H)),
        [2, 2, 1],
      ),
      grad: false,
    },
  ].map(({ c, shapes, grad }: { c: Case; shapes: number[][]; grad?: boolean }) => ({
    c: { ...c, grad },
    shapes,
  }));
}

/** Forward and every input's gradient (dy a fixed random tensor) on the active backend. */
async function evaluate(c: Case, shapes: number[][]): Promise<Float32Array[]> {
  const out = tf.tidy(() => {
    const xs = c.inputs.map((v, i) => tf.tensor(v, shapes[i]));
    const y = c.run(...xs);
    const dy = tf.tensor(randoms(new Prng(11), y.shape), y.shape);
    const grads =
      c.grad === false ? [] : tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul(c.run(...a), dy)))(xs);
    return [y, ...grads];
  });
  const data = await Promise.all(out.map((t) => t.data() as Promise<Float32Array>));
  tf.dispose(out);
  return data;
}

const maxAbsDiff = (a: Float32Array, b: Float32Array) =>
  a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), a.length === b.length ? 0 : Infinity);

export interface KernelCheck {
  /** Max |Δ| per `op/output` (y, then d<input index>) between the backend and cpu. */
  diffs: Record<string, number>;
  /** The kernel families that ran as WGSL programs (all of them, unless switched off). */
  fused: string[];
}

/** Compares each op on `backend` with cpu; throws if `backend` does not start. Leaves `backend` active. */
export async function checkKernels(backend: string): Promise<KernelCheck> {
  const diffs: Record<string, number> = {};
  const use = async (b: string) => {
    if (!(await tf.setBackend(b))) throw new Error(`backend ${b} did not start`);
  };
  for (const { c, shapes } of cases()) {
    await use('cpu');
    const want = await evaluate(c, shapes);
    await use(backend);
    const got = await evaluate(c, shapes);
    got.forEach((g, i) => (diffs[`${c.name}/${i === 0 ? 'y' : `d${i - 1}`}`] = maxAbsDiff(g, want[i])));
  }
  return { diffs, fused: WEBGPU_FAMILIES.filter((f) => webgpuKernelsAvailable(f)) };
}

/**
 * AdamW's steps: the clip coefficient, a parameter left without a gradient, a gradient that
 * overflows v, a weight assigned from outside (as a loaded checkpoint), the kernels switched off.
 */
const ADAMW_STEPS: {
  scale: number | 'clip';
  without?: string;
  halve?: string;
  overflow?: string;
  plain?: boolean;
  resume?: boolean;
}[] = [
  { scale: 1 },
  { scale: 'clip' }, // stageClipped: clipped by the global norm on the device (clipNorm 1, ‖g‖ ≈ 190)
  { scale: 'clip', without: 'wpe' },
  { scale: 0.9, halve: 'h1.attn.wo' },
  { scale: 1, overflow: 'h0.mlp.w1' }, // (1e30)² is Inf in f32: v is not finite, θ still is; rolled back
  { scale: 0.7 },
  { scale: 'clip', plain: true }, // webgpu: tfjs's ops, the moments moved to one pair per parameter
  { scale: 0.8 }, // and back to the one dispatch
  { scale: 1, resume: true }, // by a new optimizer from the saved moments and step (a checkpoint)
];

export interface AdamWRun {
  /** Each step's `bad` (0: committed). */
  bad: number[];
  /** θ, m and v after the last step, each flat in model order. */
  state: Float32Array[];
  /** Whether the rolled-back step left θ, m, v and the step count exactly as they were. */
  intact: boolean;
  /** Whether the new optimizer held the saved moments and step exactly. */
  resumed: boolean;
  /** Compute dispatches of each step's stage(), where the page counts them (webgpu), else -1. */
  dispatches: number[];
  /** The global norm stageClipped gave, per step (NaN for the others). */
  norms: number[];
  /** tf.memory() after each step: tensors, and on webgpu the bytes its buffer pool holds. */
  tensors: number[];
  poolBytes: number[];
}

/** Counts compute dispatches at the WebGPU API while `f` runs: -1 without WebGPU. */
function countDispatches(f: () => void): number {
  const proto = (
    globalThis as { GPUComputePassEncoder?: { prototype: { dispatchWorkgroups(...a: unknown[]): void } } }
  ).GPUComputePassEncoder?.prototype;
  if (!proto) return (f(), -1);
  const original = proto.dispatchWorkgroups;
  let n = 0;
  proto.dispatchWorkgroups = function (this: unknown, ...a: unknown[]) {
    n++;
    original.apply(this, a);
  };
  try {
    f();
  } finally {
    proto.dispatchWorkgroups = original;
  }
  return n;
}

/** Runs ADAMW_STEPS on `backend` with a nano model: staged updates, committed only when `bad` is 0. */
export async function runAdamW(backend: string): Promise<AdamWRun> {
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} did not start`);
  const model = GPT.create(gptConfig('nano'), 3);
  const options = { lr: 0.05, weightDecay: 0.5 }; // decay large enough to show: θ·0.975 a step
  let opt = new AdamW(model, options);
  const flat = async (xs: tf.Tensor[]) => {
    const parts = await Promise.all(xs.map((x) => x.data() as Promise<Float32Array>));
    const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
    parts.reduce((o, p) => (out.set(p, o), o + p.length), 0);
    return out;
  };
  const snapshot = async () => [
    await flat(model.variables),
    await flat(opt.moments.m),
    await flat(opt.moments.v),
  ];
  const rng = new Prng(5);
  const run: AdamWRun = {
    bad: [],
    state: [],
    intact: false,
    resumed: false,
    dispatches: [],
    norms: [],
    tensors: [],
    poolBytes: [],
  };
  for (const step of ADAMW_STEPS) {
    setFusedKernels(!step.plain, ['adamw']);
    if (step.resume) {
      const saved = { step: opt.step, m: await flat(opt.moments.m), v: await flat(opt.moments.v) };
      opt.dispose();
      opt = new AdamW(model, options);
      opt.loadState(saved);
      const [m, v] = [await flat(opt.moments.m), await flat(opt.moments.v)];
      run.resumed = opt.step === saved.step && maxAbsDiff(m, saved.m) === 0 && maxAbsDiff(v, saved.v) === 0;
    }
    if (step.halve) {
      const w = model.params.get(step.halve)!;
      tf.tidy(() => w.assign(tf.mul(w, 0.5)));
    }
    const grads: tf.NamedTensorMap = {};
    for (const spec of model.specs) {
      const v = model.params.get(spec.name)!;
      const g = Float32Array.from({ length: v.size }, () => rng.next() * 2 - 1);
      if (spec.name === step.overflow) g[5] = 1e30;
      if (spec.name !== step.without) grads[v.name] = tf.tensor(g, v.shape);
    }
    const before = step.overflow ? { state: await snapshot(), step: opt.step } : null;
    const c = step.scale === 'clip' ? null : tf.scalar(step.scale);
    let staged!: ReturnType<AdamW['stage']> & { norm?: tf.Scalar };
    run.dispatches.push(countDispatches(() => (staged = c ? opt.stage(grads, c) : opt.stageClipped(grads))));
    const bad = (await staged.bad.data())[0];
    run.norms.push(staged.norm ? (await staged.norm.data())[0] : NaN);
    if (bad === 0) staged.commit();
    staged.dispose();
    tf.dispose([...(c ? [c] : []), ...Object.values(grads)]);
    run.bad.push(bad);
    const memory = tf.memory() as tf.MemoryInfo & { numBytesAllocatedInGPU?: number };
    run.tensors.push(memory.numTensors);
    run.poolBytes.push(memory.numBytesAllocatedInGPU ?? 0);
    if (before) {
      const after = await snapshot();
      run.intact = opt.step === before.step && after.every((a, i) => maxAbsDiff(a, before.state[i]) === 0);
    }
  }
  setFusedKernels(true, ['adamw']);
  run.state = await snapshot();
  opt.dispose();
  model.dispose();
  return run;
}

/** AdamW on `backend` against cpu: max |Δ| of θ, m, v after ADAMW_STEPS, and each run. Leaves `backend` active. */
export async function checkAdamW(
  backend: string,
): Promise<{ diffs: Record<string, number>; cpu: AdamWRun; got: AdamWRun }> {
  const cpu = await runAdamW('cpu');
  const got = await runAdamW(backend);
  const diffs = Object.fromEntries(
    ['theta', 'm', 'v'].map((k, i) => [`adamw/${k}`, maxAbsDiff(got.state[i], cpu.state[i])]),
  );
  // Relative: the norm is about 190.
  diffs['adamw/norm'] = Math.max(
    ...got.norms.map((x, i) =>
      Number.isNaN(x) && Number.isNaN(cpu.norms[i]) ? 0 : Math.abs(x - cpu.norms[i]) / cpu.norms[i],
    ),
  );
  return { diffs, cpu, got };
}
