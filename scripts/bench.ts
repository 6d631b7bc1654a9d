/**
 * Policy-model benchmark (issue 4 §9): per preset and backend, train-step ms (64 rows × 64 tokens,
 * last 32 in the loss, forward + backward + clipped AdamW), decode tokens/s (64 prompts × 32 tokens,
 * 16 new) with and without the KV cache, kernel dispatches (tf.profile) and readbacks per token.
 * Medians after warm-up. Node only: `npm run bench -- [--presets small,nano] [--backends wasm,cpu] [--reps 5]`.
 * Writes bench/results.json. Compare with tfjs-webgpu.md §14 (PyTorch, same workload, 2-core CPU).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { GPT, gptConfig, type PresetName } from '../src/model/gpt';
import { disposeBatch, packRows, toTensors } from '../src/model/logprobs';
import { AdamW } from '../src/model/optim';
import { Prng } from '../src/core/prng';
import { sample } from '../src/model/sampler';
import { nextTokenLoss, supervisedStep } from '../src/model/warmstart';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const presets = arg('presets', 'small').split(',') as PresetName[];
const backends = arg('backends', 'wasm,cpu').split(',');
const reps = Number(arg('reps', '5'));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- workload (§14): 64 × 64 training rows; decode 64 prompts of 32 tokens + 16 new
const ROWS = 64;
const PROMPT = 32;
const NEW = 16;
const rng = new Prng(1);
const randomTokens = (n: number, V: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * (V - 5)));

interface Result {
  preset: string;
  backend: string;
  params: number;
  trainMs: number;
  decodeTokPerS: number;
  decodeTokPerSNoCache: number;
  dispatchesPerTrainStep: number;
  dispatchesPerToken: number;
  readbacksPerToken: number;
}

async function time(n: number, f: () => Promise<unknown>): Promise<number> {
  await f(); // warm-up: kernels, Adam's first step, caches
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function bench(preset: PresetName, backend: string): Promise<Result> {
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} failed`);
  const cfg = gptConfig(preset, { contextLength: 64 });
  const model = GPT.create(cfg, 1);
  const V = cfg.vocabSize;
  const n = backend === 'cpu' ? Math.min(reps, 2) : reps; // cpu steps take seconds
  const rows = Array.from({ length: ROWS }, () => ({ prompt: randomTokens(33, V), response: randomTokens(32, V) }));
  const batch = toTensors(packRows(rows, { contextLength: 64, vocabSize: V, pad: 0, lengthMultiple: 64 }));
  const opt = new AdamW(model, { lr: 1e-4 });

  // ---- train step
  const trainMs = await time(n, () => supervisedStep(model, opt, batch));
  const trainProfile = await tf.profile(() => {
    const { value, grads } = tf.variableGrads(() => nextTokenLoss(model, batch), opt.variables);
    opt.apply(grads);
    tf.dispose([value, ...Object.values(grads)]);
  });

  // ---- decode (eos -1: every row makes all 16 tokens)
  const prompts = Array.from({ length: ROWS }, () => randomTokens(PROMPT, V));
  const seeds = prompts.map((_, i) => i);
  const decode = (useCache: boolean) => sample(model, prompts, { maxNewTokens: NEW, seeds, eos: -1, pad: 0, useCache });
  const cachedMs = await time(n, () => decode(true));
  const uncachedMs = await time(Math.max(1, n - 1), () => decode(false));
  let readbacks = 0;
  const decodeProfile = await tf.profile(async () => {
    readbacks = (await decode(true)).readbacks;
  });

  const params = model.numParams();
  disposeBatch(batch);
  opt.dispose();
  model.dispose();
  return {
    preset,
    backend,
    params,
    trainMs,
    decodeTokPerS: (ROWS * NEW) / (cachedMs / 1000),
    decodeTokPerSNoCache: (ROWS * NEW) / (uncachedMs / 1000),
    dispatchesPerTrainStep: trainProfile.kernels.length,
    dispatchesPerToken: decodeProfile.kernels.length / (ROWS * NEW),
    readbacksPerToken: readbacks / (ROWS * NEW),
  };
}

const results: Result[] = [];
for (const preset of presets) {
  for (const backend of backends) {
    const r = await bench(preset, backend);
    results.push(r);
    console.log(`${preset}/${backend}: ${r.trainMs.toFixed(0)} ms/step`);
  }
}
const col = (x: number, digits = 0) => x.toFixed(digits).padStart(11);
const machine = `${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, tfjs ${tf.version.tfjs}, wasm single thread`;
console.log(`\n${machine}\n`);
console.log('preset  backend     params   train ms   tok/s KV  tok/s noKV  disp/step   disp/tok  reads/tok');
for (const r of results) {
  const cells = [col(r.params), col(r.trainMs), col(r.decodeTokPerS), col(r.decodeTokPerSNoCache), col(r.dispatchesPerTrainStep), col(r.dispatchesPerToken, 2), col(r.readbacksPerToken, 4)];
  console.log(`${r.preset.padEnd(7)} ${r.backend.padEnd(7)}${cells.join('')}`);
}
mkdirSync('bench', { recursive: true });
const out = { machine, cores: cpus().length, date: new Date().toISOString(), workload: { rows: ROWS, tokens: 64, lossTokens: 32, prompt: PROMPT, newTokens: NEW }, results };
writeFileSync('bench/results.json', JSON.stringify(out, null, 2) + '\n');
