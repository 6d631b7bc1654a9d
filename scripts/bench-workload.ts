/**
 * The benchmark workload of docs/figures.md#the-benchmark-workload, measured on the active tfjs backend, shared by
 * `npm run bench` (Node) and `npm run bench:browser` (a page in Chromium): a train step is `rows`
 * rows × 64 tokens, the last 32 in the loss, forward + backward + clipped AdamW; decode is `rows`
 * prompts × 32 tokens + 16 new, with and without the KV cache. Medians after one warm-up. No Node
 * and no DOM here: the caller brings its clock and, on webgpu, the counts of GPU calls.
 */
import * as tf from '@tensorflow/tfjs';
import { GPT } from '../src/model/gpt';
import { gptConfig } from '../src/core/gpt-config';
import type { ModelPreset } from '../src/core/model-sizes';
import { disposeBatch, packRows, toTensors } from '../src/model/logprobs';
import { AdamW } from '../src/model/optim';
import { Prng } from '../src/core/prng';
import { sample } from '../src/model/sampler';
import { KERNEL_FAMILIES, setFusedKernels, simdFlavour, type KernelFamily } from '../src/model/kernels/wasm';
import { supervisedStep } from '../src/model/warmstart';

export const PROMPT = 32;
export const NEW = 16;

/** Running totals of GPU work: subtract two snapshots to get one step's share. */
export interface GpuCounts {
  /** Compute dispatches (`dispatchWorkgroups`). */
  dispatches: number;
  /** Buffer-to-buffer copies recorded (`copyBufferToBuffer`): uploads, readbacks' staging, AdamW's gather and scatter. */
  copies: number;
  /** Command buffers handed to the queue. */
  submits: number;
  /** Buffers mapped for reading back to the CPU (`mapAsync`): each is a GPU→CPU sync. */
  readbacks: number;
}

export const gpuCounts: GpuCounts = { dispatches: 0, copies: 0, submits: 0, readbacks: 0 };

type Proto = Record<string, unknown>;
/** The WebGPU interfaces whose calls are counted: `globalThis` in a browser, Dawn's `globals` in Node. */
export interface WebGpuGlobals {
  GPUComputePassEncoder: { prototype: Proto };
  GPUCommandEncoder: { prototype: Proto };
  GPUQueue: { prototype: Proto };
  GPUBuffer: { prototype: Proto };
}

/** Wraps the WebGPU calls counted in `gpuCounts`. Call once, before the webgpu backend starts. */
export function countGpuCalls(g: WebGpuGlobals): void {
  const wrap = (proto: Proto, method: string, key: keyof GpuCounts) => {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: unknown, ...args: unknown[]) {
      gpuCounts[key] += key === 'submits' && Array.isArray(args[0]) ? args[0].length : 1;
      return original.apply(this, args);
    };
  };
  wrap(g.GPUComputePassEncoder.prototype, 'dispatchWorkgroups', 'dispatches');
  wrap(g.GPUCommandEncoder.prototype, 'copyBufferToBuffer', 'copies');
  wrap(g.GPUQueue.prototype, 'submit', 'submits');
  wrap(g.GPUBuffer.prototype, 'mapAsync', 'readbacks');
}

export interface Clock {
  /** Milliseconds, monotonic. */
  wall(): number;
  /** Process CPU milliseconds (user + system), or NaN where there is no such clock (a page). */
  cpu(): number;
}

export interface Result {
  preset: string;
  backend: string;
  kernels: string;
  /** wasm: the kernels module that ran, 'relaxed' (fused multiply-add) or 'plain' SIMD. */
  simd?: string;
  /** wasm in a browser: the threads tfjs's backend runs (getThreadsCount); 1 elsewhere. */
  threads?: number;
  params: number;
  trainMs: number;
  /** Best over rounds: on a busy machine the least disturbed figure. */
  trainMsBest?: number;
  /** The same by process CPU time: close to a quiet machine's wall time when other jobs share the cores. */
  trainCpuMs: number;
  decodeTokPerS: number;
  decodeTokPerSBest?: number;
  decodeTokPerSCpu: number;
  decodeTokPerSNoCache: number;
  /** Kernels run (tf.profile), or on webgpu compute dispatches counted at the API. */
  dispatchesPerTrainStep: number;
  dispatchesPerToken: number;
  readbacksPerTrainStep?: number;
  /** webgpu: buffer copies per train step (GpuCounts.copies). */
  copiesPerTrainStep?: number;
  readbacksPerToken: number;
  /** webgpu: bytes the buffer pool holds after the runs (it never shrinks, docs/backends.md#memory). */
  gpuBytesAllocated?: number;
}

export interface WorkloadOptions {
  preset: ModelPreset;
  /** The tfjs backend, already registered; this sets it. */
  backend: string;
  /** wasm kernel set: fused, plain, xnnpack (fused but XNNPACK's matmuls), or one family (attention, rowwise, gemm, matmul). */
  kernels: string;
  rows: number;
  reps: number;
  clock: Clock;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** Median wall ms and median CPU ms of n runs after one warm-up. */
async function time(
  clock: Clock,
  n: number,
  f: () => Promise<unknown>,
): Promise<{ wall: number; cpu: number }> {
  await f(); // warm-up: shaders, kernels, Adam's first step, caches
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = clock.cpu();
    const t0 = clock.wall();
    await f();
    walls.push(clock.wall() - t0);
    cpus.push(clock.cpu() - c0);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

export async function measureWorkload(o: WorkloadOptions): Promise<Result> {
  const { preset, backend, kernels, rows: ROWS, clock } = o;
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} failed to start`);
  setFusedKernels(false);
  if (kernels === 'fused') setFusedKernels(true);
  else if (kernels === 'xnnpack')
    setFusedKernels(
      true,
      KERNEL_FAMILIES.filter((f) => f !== 'matmul'),
    );
  else if ((KERNEL_FAMILIES as readonly string[]).includes(kernels))
    setFusedKernels(true, [kernels as KernelFamily]);
  else if ((KERNEL_FAMILIES as readonly string[]).includes(kernels.replace(/^no-/, '')))
    setFusedKernels(
      true,
      KERNEL_FAMILIES.filter((f) => `no-${f}` !== kernels),
    );
  else if (kernels !== 'plain')
    throw new Error(
      `--kernels: fused, plain, xnnpack, one of ${KERNEL_FAMILIES.join(', ')} or all but one (no-mlp, …), not ${kernels}`,
    );
  const rng = new Prng(1);
  const cfg = gptConfig(preset, { contextLength: 64 });
  const V = cfg.vocabSize;
  const randomTokens = (n: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * (V - 5)));
  const model = GPT.create(cfg, 1);
  const n = backend === 'cpu' ? Math.min(o.reps, 2) : o.reps; // cpu steps take seconds
  const trainRows = Array.from({ length: ROWS }, () => ({
    prompt: randomTokens(33),
    response: randomTokens(32),
  }));
  const batch = toTensors(
    packRows(trainRows, { contextLength: 64, vocabSize: V, pad: 0, lengthMultiple: 64 }),
  );
  const opt = new AdamW(model, { lr: 1e-4 });
  const gpu = backend === 'webgpu';
  // tf.profile times each kernel, which webgpu cannot do without timestamp queries: count at the API there.
  const counted = async (f: () => Promise<unknown>) => {
    const c0 = { ...gpuCounts };
    const profile = gpu ? null : await tf.profile(async () => void (await f()));
    if (gpu) await f();
    return {
      kernels: profile ? profile.kernels.length : gpuCounts.dispatches - c0.dispatches,
      readbacks: gpuCounts.readbacks - c0.readbacks,
      copies: gpuCounts.copies - c0.copies,
    };
  };

  const train = await time(clock, n, () => supervisedStep(model, opt, batch));
  const trainCount = await counted(() => supervisedStep(model, opt, batch));

  // Decode; eos −1: every row makes all NEW tokens.
  const prompts = Array.from({ length: ROWS }, () => randomTokens(PROMPT));
  const seeds = prompts.map((_, i) => i);
  const decode = (useCache: boolean) =>
    sample(model, prompts, { maxNewTokens: NEW, seeds, eos: -1, pad: 0, useCache });
  const cached = await time(clock, n, () => decode(true));
  const uncached = await time(clock, Math.max(1, n - 1), () => decode(false));
  let readbacks = 0;
  const decodeCount = await counted(async () => {
    readbacks = (await decode(true)).readbacks;
  });
  const gpuBytesAllocated = gpu
    ? (tf.memory() as { numBytesAllocatedInGPU?: number }).numBytesAllocatedInGPU
    : undefined;

  const params = model.numParams();
  disposeBatch(batch);
  opt.dispose();
  model.dispose();
  const tokens = ROWS * NEW;
  return {
    preset,
    backend,
    kernels,
    ...(backend === 'wasm' ? { simd: simdFlavour() } : {}),
    params,
    trainMs: train.wall,
    trainCpuMs: train.cpu,
    decodeTokPerS: tokens / (cached.wall / 1000),
    decodeTokPerSCpu: tokens / (cached.cpu / 1000),
    decodeTokPerSNoCache: tokens / (uncached.wall / 1000),
    dispatchesPerTrainStep: trainCount.kernels,
    dispatchesPerToken: decodeCount.kernels / tokens,
    ...(gpu
      ? {
          readbacksPerTrainStep: trainCount.readbacks,
          copiesPerTrainStep: trainCount.copies,
          gpuBytesAllocated,
        }
      : {}),
    readbacksPerToken: (gpu ? decodeCount.readbacks : readbacks) / tokens,
  };
}

/** Per configuration, the median over rounds of each figure (and the best train ms and tok/s). */
export function summarize(runs: Result[]): Result[] {
  const results: Result[] = [];
  const key = (x: Result) => `${x.preset}/${x.backend}/${x.kernels}`;
  for (const r of runs) {
    if (results.some((x) => key(x) === key(r))) continue;
    const same = runs.filter((x) => key(x) === key(r));
    const med = (f: (x: Result) => number) => median(same.map(f));
    results.push({
      ...r,
      trainMs: med((x) => x.trainMs),
      trainMsBest: Math.min(...same.map((x) => x.trainMs)),
      decodeTokPerS: med((x) => x.decodeTokPerS),
      decodeTokPerSBest: Math.max(...same.map((x) => x.decodeTokPerS)),
      trainCpuMs: med((x) => x.trainCpuMs),
      decodeTokPerSCpu: med((x) => x.decodeTokPerSCpu),
      decodeTokPerSNoCache: med((x) => x.decodeTokPerSNoCache),
    });
  }
  return results;
}

/** The results as a fixed-width table, one line per configuration. */
export function formatTable(results: Result[]): string {
  const col = (x: number, digits = 0) => x.toFixed(digits).padStart(11);
  const head =
    'preset  backend kernels thr     params   train ms  best train  train cpu   tok/s KV    best KV KV cpu tok/s tok/s noKV  disp/step   disp/tok reads/step  reads/tok   GPU MB copies/step';
  const lines = results.map((r) => {
    const cells = [
      col(r.params),
      col(r.trainMs),
      col(r.trainMsBest ?? r.trainMs),
      col(r.trainCpuMs),
      col(r.decodeTokPerS),
      col(r.decodeTokPerSBest ?? r.decodeTokPerS),
      col(r.decodeTokPerSCpu),
      col(r.decodeTokPerSNoCache),
      col(r.dispatchesPerTrainStep),
      col(r.dispatchesPerToken, 2),
      col(r.readbacksPerTrainStep ?? NaN),
      col(r.readbacksPerToken, 4),
      col((r.gpuBytesAllocated ?? NaN) / 2 ** 20, 1),
      col(r.copiesPerTrainStep ?? NaN),
    ];
    return `${r.preset.padEnd(7)} ${r.backend.padEnd(7)} ${r.kernels.padEnd(7)} ${String(r.threads ?? 1).padStart(3)}${cells.join('')}`;
  });
  return [head, ...lines].join('\n');
}
