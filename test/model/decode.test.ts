// The sampler's fused decode (kernels/decode.ts: the whole KV-cached forward as one wasm kernel)
// against the op-by-op formulations: the same ops on wasm (bitwise: the same kernels in the same order),
// tfjs's plain ops on cpu, and recomputing every prefix without a cache (within 1e-5, same tokens).
import * as tf from '@tensorflow/tfjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fusedDecodeAvailable } from '../../src/model/kernels/decode';
import { setFusedKernels, setRelaxedSimd } from '../../src/model/kernels/wasm';
import { enableRelaxedSimd } from '../../src/backends/relaxed-simd-node';
import { sample, type SampleOptions } from '../../src/model/sampler';
import { tokenizer } from '../../src/model/tokenizer';
import type { GPTConfig } from '../../src/core/gpt-config';
import { maxAbsDiff, tinyModel, useBackend } from './helpers';

enableRelaxedSimd();

const prompts = [
  '\uE001what is 2+3?\uE012',
  '\uE001hi\uE012',
  '\uE001a longer prompt, left-padded less\uE012',
  '\uE0017*8\uE012',
  '\uE001x\uE012',
].map((s) => tokenizer.encode(s));

interface Run {
  tokens: number[][];
  logp: number[][];
  /** Each step's logits of the real rows. */
  logits: Float32Array[];
}

async function run(
  backend: string,
  config: Partial<GPTConfig>,
  opts: Partial<SampleOptions>,
  fusedDecode = true,
  rows = prompts,
): Promise<Run> {
  await useBackend(backend);
  setFusedKernels(fusedDecode, ['decode']);
  const m = tinyModel(7, { contextLength: 64, ...config });
  const V = m.config.vocabSize;
  const logits: Float32Array[] = [];
  const before = tf.memory().numTensors;
  const res = await sample(m, rows, {
    maxNewTokens: 12,
    seeds: rows.map((_, i) => 40 + i),
    eos: -1,
    pad: tokenizer.pad,
    onLogits: (_, d) => logits.push(d.slice(0, rows.length * V)),
    ...opts,
  });
  expect(tf.memory().numTensors).toBe(before);
  m.dispose();
  setFusedKernels(true);
  return { tokens: res.samples.map((s) => s.tokens), logp: res.samples.map((s) => s.logp), logits };
}

const relDiff = (a: Float32Array, b: Float32Array) =>
  maxAbsDiff(a, b) / a.reduce((m, x) => Math.max(m, Math.abs(x)), 1);

// nano (hd 32: attention's register-held path), 4 heads of 16 (its general path), 3 layers and a
// 12-token context bucket (P not a multiple of 16: lengthMultiple 4), and a width the prompt's split
// q and kv GEMMs would round differently from the one qkv GEMM.
const shapes: [string, Partial<GPTConfig>, Partial<SampleOptions>][] = [
  ['nano', {}, {}],
  ['hd 16, 3 layers, MLP 96', { nHeads: 4, nLayers: 3, dMlp: 96 }, { lengthMultiple: 4, batchMultiple: 1 }],
  ['dModel 60 (not a multiple of the GEMM tile: one qkv GEMM)', { dModel: 60, nHeads: 3 }, {}],
];

describe.each(['relaxed', 'plain'])('fused decode (%s SIMD)', (flavour) => {
  afterEach(() => setRelaxedSimd(true));
  afterAll(() => tf.disposeVariables());

  it.each(shapes)(
    '%s: bitwise the op-by-op wasm path, within 1e-5 of cpu and of recomputing, same tokens',
    async (_, config, opts) => {
      setRelaxedSimd(flavour === 'relaxed');
      await useBackend('wasm');
      expect(fusedDecodeAvailable()).toBe(true);
      const fused = await run('wasm', config, opts);
      const ops = await run('wasm', config, opts, false);
      expect(fused.tokens).toEqual(ops.tokens);
      expect(fused.logp).toEqual(ops.logp);
      fused.logits.forEach((l, s) => expect(maxAbsDiff(l, ops.logits[s]), `step ${s}`).toBe(0));

      // Greedy: the cpu backend's plain ops and recomputing without a cache pick the same tokens.
      const greedy = { temperature: 0, ...opts };
      const g = await run('wasm', config, greedy);
      const cpu = await run('cpu', config, greedy);
      const recomputed = await run('wasm', config, { ...greedy, useCache: false });
      for (const other of [cpu, recomputed]) {
        expect(g.tokens).toEqual(other.tokens);
        g.logits.forEach((l, s) => expect(relDiff(l, other.logits[s]), `step ${s}`).toBeLessThan(1e-5));
      }
    },
  );

  it('with the mlp family off (the MLP GEMM, then GELU apart) still bitwise the op-by-op path', async () => {
    setRelaxedSimd(flavour === 'relaxed');
    const apart = async (fusedDecode: boolean) => {
      await useBackend('wasm');
      setFusedKernels(false, ['mlp']);
      return run('wasm', {}, {}, fusedDecode); // switches every family back on when done
    };
    const fused = await apart(true);
    const ops = await apart(false);
    expect(fused.logp).toEqual(ops.logp);
    fused.logits.forEach((l, s) => expect(maxAbsDiff(l, ops.logits[s]), `step ${s}`).toBe(0));
    const epilogue = await run('wasm', {}, {});
    fused.logits.forEach((l, s) => expect(relDiff(l, epilogue.logits[s]), `step ${s}`).toBeLessThan(1e-5));
  });
});

it('a prompt repeated over rows (a GRPO group) is computed once in the prompt step, with the same results', async () => {
  const group = [0, 1, 0, 0, 2, 1, 0, 2].map((i) => prompts[i]); // 3 distinct prompts on 8 rows
  const fused = await run('wasm', {}, {}, true, group);
  const ops = await run('wasm', {}, {}, false, group);
  expect(fused.tokens).toEqual(ops.tokens);
  expect(fused.logp).toEqual(ops.logp);
  fused.logits.forEach((l, s) => expect(maxAbsDiff(l, ops.logits[s]), `step ${s}`).toBe(0));
  // The rollouts of one prompt still differ (their seeds do), and the prompt step ran 3 rows.
  expect(new Set([0, 2, 3, 6].map((r) => fused.tokens[r].join(','))).size).toBe(4);
  const m = tinyModel(7, { contextLength: 64 });
  const profile = await tf.profile(
    async () =>
      void (await sample(m, group, {
        maxNewTokens: 2,
        seeds: group.map((_, i) => i),
        eos: -1,
        pad: tokenizer.pad,
      })),
  );
  const steps = profile.kernels.filter((k) => k.name === 'AgwCachedForward').map((k) => k.inputShapes[0]); // ids' shapes
  expect(steps.map((ids) => ids[0])).toEqual([3, 8]); // the prompt's distinct rows, then every row
  m.dispose();
});

it('switched off, or on another backend, the sampler runs the ops of model.forward', async () => {
  await useBackend('wasm');
  setFusedKernels(false, ['decode']);
  expect(fusedDecodeAvailable()).toBe(false);
  setFusedKernels(true);
  setFusedKernels(false, ['matmul']); // made of the matmul family too: an XNNPACK A/B must not run it
  expect(fusedDecodeAvailable()).toBe(false);
  setFusedKernels(true);
  expect(fusedDecodeAvailable()).toBe(true);
  await useBackend('cpu');
  expect(fusedDecodeAvailable()).toBe(false);
});
