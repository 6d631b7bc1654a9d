/**
 * KV-cache decode A/B by kernel family (64 prompts × 32 tokens, 16 new, small), interleaved, median
 * process CPU ms per decode: all fused kernels (each step one kernel, decode.ts), the same without the
 * one-kernel decode (the model's ops, each fused), attention or row-wise kernels alone, tfjs's ops alone.
 * `npx tsx scripts/bench-decode.ts [--reps 8] [--preset small]`. Node only.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { enableRelaxedSimd } from '../src/backends/relaxed-simd-node';
import { GPT } from '../src/model/gpt';
import { gptConfig } from '../src/core/gpt-config';
import type { ModelPreset } from '../src/core/model-sizes';
import { sample } from '../src/model/sampler';
import { KERNEL_FAMILIES, setFusedKernels, type KernelFamily } from '../src/model/kernels/wasm';
import { Prng } from '../src/core/prng';
import { arg, median } from './cli-args';

enableRelaxedSimd(); // Node 20: the kernels' fused multiply-add (src/model/kernels/wasm.ts)
await tf.setBackend('wasm');
const cfg = gptConfig(arg('preset', 'small') as ModelPreset, { contextLength: 64 });
const model = GPT.create(cfg, 1);
const rng = new Prng(1);
const prompts = Array.from({ length: 64 }, () =>
  Array.from({ length: 32 }, () => 5 + Math.floor(rng.next() * (cfg.vocabSize - 5))),
);
const decode = () =>
  sample(model, prompts, { maxNewTokens: 16, seeds: prompts.map((_, i) => i), eos: -1, pad: 0 });
const variants: Record<string, KernelFamily[]> = {
  fused: [...KERNEL_FAMILIES],
  ops: KERNEL_FAMILIES.filter((f) => f !== 'decode'),
  attention: ['attention'],
  rowwise: ['rowwise'],
  plain: [],
};
const times: Record<string, number[]> = {};
for (let r = -1; r < Number(arg('reps', '8')); r++) {
  for (const [name, fams] of Object.entries(variants)) {
    setFusedKernels(false);
    setFusedKernels(true, fams);
    const c0 = process.cpuUsage();
    await decode();
    const c = process.cpuUsage(c0);
    if (r >= 0) (times[name] ??= []).push((c.user + c.system) / 1000);
  }
}
for (const [name, ts] of Object.entries(times))
  console.log(
    `${name.padEnd(10)} ${median(ts).toFixed(0).padStart(6)} cpu ms/decode  ${((64 * 16) / (median(ts) / 1000)).toFixed(0).padStart(6)} tok/s`,
  );
model.dispose();
