/**
 * Policy-model benchmark (issue 4 §9): per preset and backend, train-step ms (64 rows × 64 tokens,
 * last 32 in the loss, forward + backward + clipped AdamW), decode tokens/s (64 prompts × 32 tokens,
 * 16 new) with and without the KV cache, kernel dispatches (tf.profile) and readbacks per token.
 * Medians after warm-up. Node only: `npm run bench -- [--presets small,nano] [--backends wasm,cpu] [--reps 5]`.
 * A/B on a busy machine: `--kernels fused,plain --rounds 3` interleaves the fused wasm kernels with the
 * plain tfjs formulation (or only one family: attention, rowwise, gemm) and reports medians over rounds.
 * Besides wall time it reports process CPU time, which other jobs on a busy machine inflate far less.
 * Writes bench/results.json (or `--out FILE`). Compare with tfjs-webgpu.md §14 (PyTorch, same workload, 2-core CPU).
 * WebGPU in Node: `--dawn PATH/dawn.node --backends webgpu,wasm` (scripts/dawn.ts); its dispatches and
 * readbacks are counted at the WebGPU API, the other backends' kernels by tf.profile.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { GPT, gptConfig, type PresetName } from '../src/model/gpt';
import { disposeBatch, packRows, toTensors } from '../src/model/logprobs';
import { AdamW } from '../src/model/optim';
import { Prng } from '../src/core/prng';
import { sample } from '../src/model/sampler';
import { setFusedKernels } from '../src/model/kernels/wasm';
import { supervisedStep } from '../src/model/warmstart';
import { arg, median } from './cli-args';
import { gpuCounts, installDawn } from './dawn';

const presets = arg('presets', 'small').split(',') as PresetName[];
const backends = arg('backends', 'wasm,cpu').split(',');
const reps = Number(arg('reps', '5'));
const kernelModes = arg('kernels', 'fused').split(',');
const rounds = Number(arg('rounds', '1'));
const dawn = arg('dawn', '');
const outFile = arg('out', 'bench/results.json');
const wasmDir = arg('wasm-dir', ''); // where tfjs-backend-wasm's .wasm files are, for a bundled copy of this script
if (wasmDir) (await import('@tensorflow/tfjs-backend-wasm')).setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
let adapter = '';
if (backends.includes('webgpu')) {
  if (!dawn) throw new Error('--backends webgpu needs --dawn PATH/dawn.node in Node (the webgpu npm package\'s Dawn build)');
  adapter = await installDawn(dawn);
  await import('@tensorflow/tfjs-backend-webgpu'); // registers only now that navigator.gpu exists
}

// ---- workload (§14): 64 × 64 training rows; decode 64 prompts of 32 tokens + 16 new
const ROWS = 64;
const PROMPT = 32;
const NEW = 16;
const rng = new Prng(1);
const randomTokens = (n: number, V: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * (V - 5)));

interface Result {
  preset: string;
  backend: string;
  kernels: string;
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
  readbacksPerToken: number;
  /** webgpu: bytes the buffer pool holds after the runs (it never shrinks, tfjs-webgpu.md §3). */
  gpuBytesAllocated?: number;
}

/** Median wall ms and median process CPU ms (user + system) of n runs after one warm-up. */
async function time(n: number, f: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  await f(); // warm-up: kernels, Adam's first step, caches
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await f();
    walls.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

async function bench(preset: PresetName, backend: string, kernels: string): Promise<Result> {
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} failed`);
  setFusedKernels(false);
  if (kernels === 'fused') setFusedKernels(true);
  else if (kernels === 'attention' || kernels === 'rowwise' || kernels === 'gemm') setFusedKernels(true, [kernels]);
  else if (kernels !== 'plain') throw new Error(`--kernels: fused, plain, attention, rowwise or gemm, not ${kernels}`);
  const cfg = gptConfig(preset, { contextLength: 64 });
  const model = GPT.create(cfg, 1);
  const V = cfg.vocabSize;
  const n = backend === 'cpu' ? Math.min(reps, 2) : reps; // cpu steps take seconds
  const rows = Array.from({ length: ROWS }, () => ({ prompt: randomTokens(33, V), response: randomTokens(32, V) }));
  const batch = toTensors(packRows(rows, { contextLength: 64, vocabSize: V, pad: 0, lengthMultiple: 64 }));
  const opt = new AdamW(model, { lr: 1e-4 });

  // ---- train step
  const train = await time(n, () => supervisedStep(model, opt, batch));
  const gpu = backend === 'webgpu';
  // tf.profile times each kernel, which webgpu cannot do without timestamp queries: count at the API there.
  const counted = async (f: () => Promise<unknown>) => {
    const c0 = { ...gpuCounts };
    const profile = gpu ? null : await tf.profile(async () => void (await f()));
    if (gpu) await f();
    return { kernels: profile ? profile.kernels.length : gpuCounts.dispatches - c0.dispatches, readbacks: gpuCounts.readbacks - c0.readbacks };
  };
  const trainCount = await counted(() => supervisedStep(model, opt, batch));

  // ---- decode (eos -1: every row makes all 16 tokens)
  const prompts = Array.from({ length: ROWS }, () => randomTokens(PROMPT, V));
  const seeds = prompts.map((_, i) => i);
  const decode = (useCache: boolean) => sample(model, prompts, { maxNewTokens: NEW, seeds, eos: -1, pad: 0, useCache });
  const cached = await time(n, () => decode(true));
  const uncached = await time(Math.max(1, n - 1), () => decode(false));
  let readbacks = 0;
  const decodeCount = await counted(async () => {
    readbacks = (await decode(true)).readbacks;
  });
  const gpuBytesAllocated = gpu ? (tf.memory() as { numBytesAllocatedInGPU?: number }).numBytesAllocatedInGPU : undefined;

  const params = model.numParams();
  disposeBatch(batch);
  opt.dispose();
  model.dispose();
  return {
    preset,
    backend,
    kernels,
    params,
    trainMs: train.wall,
    trainCpuMs: train.cpu,
    decodeTokPerS: (ROWS * NEW) / (cached.wall / 1000),
    decodeTokPerSCpu: (ROWS * NEW) / (cached.cpu / 1000),
    decodeTokPerSNoCache: (ROWS * NEW) / (uncached.wall / 1000),
    dispatchesPerTrainStep: trainCount.kernels,
    dispatchesPerToken: decodeCount.kernels / (ROWS * NEW),
    ...(gpu ? { readbacksPerTrainStep: trainCount.readbacks, gpuBytesAllocated } : {}),
    readbacksPerToken: (gpu ? decodeCount.readbacks : readbacks) / (ROWS * NEW),
  };
}

const runs: Result[] = [];
for (let round = 0; round < rounds; round++) {
  for (const preset of presets) {
    for (const backend of backends) {
      for (const kernels of backend === 'wasm' ? kernelModes : ['plain']) {
        const r = await bench(preset, backend, kernels);
        runs.push(r);
        console.log(`round ${round} ${preset}/${backend}/${kernels}: ${r.trainMs.toFixed(0)} ms/step (cpu ${r.trainCpuMs.toFixed(0)}), ${r.decodeTokPerS.toFixed(0)} tok/s KV (cpu ${r.decodeTokPerSCpu.toFixed(0)})`);
      }
    }
  }
}
// Per configuration, the median over rounds of each figure.
const results: Result[] = [];
for (const r of runs) {
  if (results.some((x) => x.preset === r.preset && x.backend === r.backend && x.kernels === r.kernels)) continue;
  const same = runs.filter((x) => x.preset === r.preset && x.backend === r.backend && x.kernels === r.kernels);
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
const col = (x: number, digits = 0) => x.toFixed(digits).padStart(11);
const machine = `${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, tfjs ${tf.version.tfjs}, wasm single thread${adapter ? `, WebGPU via Dawn: ${adapter}` : ''}`;
console.log(`\n${machine}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}, ${rounds} round(s)\n`);
console.log('preset  backend kernels     params   train ms  best train  train cpu   tok/s KV    best KV KV cpu tok/s tok/s noKV  disp/step   disp/tok reads/step  reads/tok   GPU MB');
for (const r of results) {
  const cells = [col(r.params), col(r.trainMs), col(r.trainMsBest ?? r.trainMs), col(r.trainCpuMs), col(r.decodeTokPerS), col(r.decodeTokPerSBest ?? r.decodeTokPerS), col(r.decodeTokPerSCpu), col(r.decodeTokPerSNoCache), col(r.dispatchesPerTrainStep), col(r.dispatchesPerToken, 2), col(r.readbacksPerTrainStep ?? NaN), col(r.readbacksPerToken, 4), col((r.gpuBytesAllocated ?? NaN) / 2 ** 20, 1)];
  console.log(`${r.preset.padEnd(7)} ${r.backend.padEnd(7)} ${r.kernels.padEnd(7)}${cells.join('')}`);
}
mkdirSync(dirname(outFile), { recursive: true });
const out = { machine, cores: cpus().length, loadavg: loadavg(), rounds, date: new Date().toISOString(), workload: { rows: ROWS, tokens: 64, lossTokens: 32, prompt: PROMPT, newTokens: NEW }, results };
writeFileSync(outFile, JSON.stringify(out, null, 2) + '\n');
