/**
 * Per-kernel time of the docs/figures.md#the-benchmark-workload train step and one KV decode step (tf.profile), summed by kernel name.
 * `npx tsx scripts/profile-kernels.ts [--preset small] [--backend wasm] [--shapes] [--gemm 4x8|3x12|6x8]`.
 * Node only; relative figures. It names the a·b GEMMs' register tile (gemm-tile.ts) the kernels chose.
 *
 * The matmul kernels also get their arithmetic (2·M·K·N per product, from the input and output
 * shapes) and rate, and the step's matmuls a floor: their GFLOP at the best rate any of them reached.
 * That floor is what decides whether the single-thread train goal (≤ 1.5× PyTorch) is within reach.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { enableRelaxedSimd } from '../src/backends/relaxed-simd-node';
import { GPT } from '../src/model/gpt';
import { gptConfig } from '../src/core/gpt-config';
import type { ModelPreset } from '../src/core/model-sizes';
import { packRows, toTensors } from '../src/model/logprobs';
import { AdamW } from '../src/model/optim';
import { Prng } from '../src/core/prng';
import { nextTokenLoss } from '../src/model/warmstart';
import { arg, flag } from './cli-args';
import { chosenGemmTile, setGemmTile, type GemmTile } from '../src/model/kernels/gemm-tile';
import { kernelsFor } from '../src/model/kernels/wasm';
import type { WasmBackendLike } from '../src/model/kernels/kernel-types';

enableRelaxedSimd(); // Node 20: the kernels' fused multiply-add (src/model/kernels/wasm.ts)

const preset = arg('preset', 'small') as ModelPreset;
await tf.setBackend(arg('backend', 'wasm'));
const gemm = arg('gemm', 'auto') as GemmTile;
setGemmTile(gemm); // --gemm 4x8|3x12|6x8: force the a·b GEMMs' register tile
const cfg = gptConfig(preset, { contextLength: 64 });
const model = GPT.create(cfg, 1);
const V = cfg.vocabSize;
const rng = new Prng(1);
const randomTokens = (n: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * (V - 5)));
const rows = Array.from({ length: 64 }, () => ({ prompt: randomTokens(33), response: randomTokens(32) }));
const batch = toTensors(packRows(rows, { contextLength: 64, vocabSize: V, pad: 0, lengthMultiple: 64 }));
const opt = new AdamW(model, { lr: 1e-4 });
const step = async () => {
  const { value, grads } = tf.variableGrads(() => nextTokenLoss(model, batch), opt.variables);
  await opt.apply(grads);
  tf.dispose([value, ...Object.values(grads)]);
};
await step();
/** Multiply-adds ×2 of a matmul kernel: out (…, M, N) from a (…, M, K) and b (…, K, N) in any
 * transposition: |a|·|b| = batch²·M·N·K², so K² = |a|·|b| / (|out|·batch). */
const size = (s: number[]) => s.reduce((p, d) => p * d, 1);
function matmulFlops(k: { name: string; inputShapes: number[][]; outputShapes: number[][] }): number {
  if (!k.name.includes('MatMul')) return 0;
  const [a, b] = k.inputShapes,
    out = k.outputShapes[0];
  const batch = size(out) / (out[out.length - 2] * out[out.length - 1]);
  return 2 * size(out) * Math.sqrt((size(a) * size(b)) / (size(out) * batch));
}

// A customGrad op's forward is profiled as its scope ("unnamed scope") and again kernel by kernel:
// only registered kernels are summed, so nothing is counted twice.
const backend = tf.getBackend();
const totals = new Map<string, { ms: number; n: number; flops: number }>();
const reps = Number(arg('reps', '3'));
for (let r = 0; r < reps; r++) {
  const prof = await tf.profile(step);
  for (const k of prof.kernels) {
    if (!tf.getKernel(k.name, backend)) continue;
    const key = flag('shapes') ? `${k.name} ${k.inputShapes.map((s) => `[${s}]`).join('')}` : k.name;
    const t = totals.get(key) ?? { ms: 0, n: 0, flops: 0 };
    t.ms += (k.kernelTimeMs as number) / reps;
    t.n += 1 / reps;
    t.flops += matmulFlops(k) / reps;
    totals.set(key, t);
  }
}
const sorted = [...totals.entries()].sort((a, b) => b[1].ms - a[1].ms);
const sum = sorted.reduce((a, [, t]) => a + t.ms, 0);
const rate = (t: { ms: number; flops: number }) => t.flops / t.ms / 1e6; // GFLOP/s
const kernels = tf.getBackend() === 'wasm' && kernelsFor(tf.backend() as unknown as WasmBackendLike);
const tile = !kernels
  ? 'none'
  : gemm !== 'auto'
    ? `${gemm}, forced`
    : (chosenGemmTile(kernels) ?? 'still timing');
console.log(`train step ${preset}: kernel total ${sum.toFixed(0)} ms (a·b GEMM tile: ${tile})`);
for (const [name, t] of sorted.slice(0, Number(arg('top', '25')))) {
  const gf = t.flops
    ? `  ${(t.flops / 1e9).toFixed(2).padStart(6)} GFLOP ${rate(t).toFixed(1).padStart(5)} GFLOP/s`
    : '';
  console.log(
    `${name.padEnd(48)} ${t.ms.toFixed(1).padStart(8)} ms ${t.n.toFixed(0).padStart(6)} calls${gf}`,
  );
}
const mm = sorted.filter(([, t]) => t.flops > 0);
const mmMs = mm.reduce((a, [, t]) => a + t.ms, 0),
  mmFlops = mm.reduce((a, [, t]) => a + t.flops, 0);
const best = Math.max(...mm.map(([, t]) => rate(t)));
console.log(
  `matmuls: ${(mmFlops / 1e9).toFixed(2)} GFLOP in ${mmMs.toFixed(0)} ms (${(mmFlops / mmMs / 1e6).toFixed(1)} GFLOP/s); ` +
    `at the best rate above (${best.toFixed(1)} GFLOP/s) they would take ${(mmFlops / best / 1e6).toFixed(0)} ms, ` +
    `the rest of the step ${(sum - mmMs).toFixed(0)} ms`,
);

// ---- one KV-cache decode (64 prompts × 32 tokens, 16 new), kernels summed
const { sample } = await import('../src/model/sampler');
const prompts = Array.from({ length: 64 }, () => randomTokens(32));
const decode = () =>
  sample(model, prompts, { maxNewTokens: 16, seeds: prompts.map((_, i) => i), eos: -1, pad: 0 });
await decode();
const dec = new Map<string, { ms: number; n: number }>();
const t0 = performance.now();
const prof = await tf.profile(async () => {
  await decode();
});
const wall = performance.now() - t0;
for (const k of prof.kernels) {
  const key = flag('shapes') ? `${k.name} ${k.inputShapes.map((s) => `[${s}]`).join('')}` : k.name;
  const t = dec.get(key) ?? { ms: 0, n: 0 };
  t.ms += k.kernelTimeMs as number;
  t.n += 1;
  dec.set(key, t);
}
const dsorted = [...dec.entries()].sort((a, b) => b[1].ms - a[1].ms);
console.log(
  `\ndecode ${preset}: kernel total ${dsorted.reduce((a, [, t]) => a + t.ms, 0).toFixed(0)} ms, wall ${wall.toFixed(0)} ms (profiled)`,
);
for (const [name, t] of dsorted.slice(0, Number(arg('top', '25'))))
  console.log(`${name.padEnd(48)} ${t.ms.toFixed(1).padStart(8)} ms ${t.n.toFixed(0).padStart(6)} calls`);
