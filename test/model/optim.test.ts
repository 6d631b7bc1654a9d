import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GPT } from '../../src/model/gpt';
import { disposeBatch, packRows, toTensors, type TokenBatch } from '../../src/model/logprobs';
import { clipCoef, globalNorm } from '../../src/model/grad-norm';
import { AdamW, type StagedUpdate } from '../../src/model/optim';
import { update } from '../../src/model/update';
import { nextTokenLoss } from '../../src/model/warmstart';
import { maxAbsDiff, tinyModel, useBackend } from './helpers';
import { setFusedKernels, setRelaxedSimd } from '../../src/model/kernels/wasm';
import { enableRelaxedSimd } from '../../src/backends/relaxed-simd-node';
import { Prng } from '../../src/core/prng';

const weights = (m: GPT) => Promise.all(m.variables.map((v) => v.data()));
const makeBatch = (seed: number): TokenBatch => {
  const rows = [0, 1, 2].map((r) => ({ prompt: [1, 20 + r + seed], response: [30 + r, 31 + seed, 2] }));
  return toTensors(packRows(rows, { contextLength: 32, vocabSize: 73, pad: 0, lengthMultiple: 8 }));
};

describe('AdamW and the update', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => tf.disposeVariables());

  it('the wasm AdamW kernel gives the weights and moments of the plain ops over 3 clipped, decayed steps (sizes not multiples of 4 included)', async () => {
    const run = async (fused: boolean) => {
      setFusedKernels(fused, ['adamw']);
      const m = tinyModel(2, { vocabSize: 73 });
      const opt = new AdamW(m, { lr: 0.01, weightDecay: 0.1 });
      for (let step = 0; step < 3; step++) {
        const rng = new Prng(7 * step + 1); // tf.randomNormal's seed does not repeat on wasm
        const grads = Object.fromEntries(
          m.variables.map((v) => [
            v.name,
            tf.tensor(
              Float32Array.from({ length: v.size }, () => rng.next() * 2 - 1),
              v.shape,
            ),
          ]),
        );
        expect(await opt.apply(grads, 0.7)).toBe(true);
        tf.dispose(Object.values(grads));
      }
      const out = [
        ...(await weights(m)),
        ...(await Promise.all([...opt.moments.m, ...opt.moments.v].map((x) => x.data()))),
      ];
      opt.dispose();
      m.dispose();
      return out;
    };
    const plain = await run(false);
    const fused = await run(true);
    expect(fused.length).toBe(plain.length);
    fused.forEach((x, i) => expect(maxAbsDiff(x, plain[i]), `tensor ${i}`).toBeLessThan(1e-7));
  });

  for (const flavour of ['relaxed', 'plain'])
    it(`the wasm AdamW (${flavour} SIMD) is one tfjs kernel for all parameters, with the plain ops' bits, and leaves a parameter without a gradient alone`, async () => {
      enableRelaxedSimd();
      setRelaxedSimd(flavour === 'relaxed');
      const run = async (fused: boolean) => {
        setFusedKernels(fused, ['adamw']);
        const m = tinyModel(3, { vocabSize: 73 });
        const opt = new AdamW(m, { lr: 0.02, weightDecay: 0.1 });
        const skipped = new Set([m.variables[1].name, m.variables[5].name]);
        let kernels = 0;
        for (let step = 0; step < 2; step++) {
          const rng = new Prng(11 * step + 3);
          const grads = Object.fromEntries(
            m.variables
              .filter((v) => !skipped.has(v.name))
              .map((v) => [
                v.name,
                tf.tensor(
                  Float32Array.from({ length: v.size }, () => rng.next() * 2 - 1),
                  v.shape,
                ),
              ]),
          );
          let staged: StagedUpdate | undefined;
          const profile = await tf.profile(() => (staged = opt.stage(grads, 0.6)).bad);
          kernels = profile.kernels.length;
          expect((await staged!.bad.data())[0]).toBe(0);
          staged!.commit();
          staged!.dispose();
          tf.dispose(Object.values(grads));
        }
        const out = [
          ...(await weights(m)),
          ...(await Promise.all([...opt.moments.m, ...opt.moments.v].map((x) => x.data()))),
        ];
        const untouched = await Promise.all(
          m.variables.filter((v) => skipped.has(v.name)).map((v) => v.data()),
        );
        const fresh = tinyModel(3, { vocabSize: 73 });
        const initial = await Promise.all(
          fresh.variables.filter((_, i) => i === 1 || i === 5).map((v) => v.data()),
        );
        untouched.forEach((x, i) => expect(Array.from(x)).toEqual(Array.from(initial[i])));
        fresh.dispose();
        opt.dispose();
        m.dispose();
        return { out, kernels };
      };
      const plain = await run(false);
      const fused = await run(true);
      setFusedKernels(true, ['adamw']);
      setRelaxedSimd(true);
      expect(fused.kernels).toBe(1);
      expect(plain.kernels).toBeGreaterThan(100);
      expect(fused.out.length).toBe(plain.out.length);
      fused.out.forEach((x, i) => expect(Array.from(x), `tensor ${i}`).toEqual(Array.from(plain.out[i])));
    });

  it('decays matrices and embeddings (decoupled: θ·(1 − lr·wd)), not biases or gains', async () => {
    const m = tinyModel();
    const opt = new AdamW(m, { lr: 0.1, weightDecay: 0.5 });
    const before = await weights(m);
    const zeros = Object.fromEntries(m.variables.map((v) => [v.name, tf.zerosLike(v)]));
    expect(await opt.apply(zeros)).toBe(true);
    const after = await weights(m);
    m.specs.forEach((s, i) => {
      const expected = s.decay ? before[i].map((x) => x * (1 - 0.1 * 0.5)) : before[i];
      expect(maxAbsDiff(after[i], expected)).toBeLessThan(1e-7);
    });
    expect(m.specs.filter((s) => s.decay).map((s) => s.name)).toContain('h0.attn.wqkv');
    expect(m.specs.find((s) => s.name === 'h0.ln1.g')?.decay).toBe(false);
    tf.dispose(Object.values(zeros));
    opt.dispose();
    m.dispose();
  });

  it('first step moves each weight by lr·g/(|g| + ε) after clipping; reports the pre-clip norm', async () => {
    const m = tinyModel();
    const opt = new AdamW(m, { lr: 1e-3, weightDecay: 0, clipNorm: 1e-3 });
    const batch = makeBatch(0);
    const { grads } = tf.variableGrads(() => nextTokenLoss(m, batch), opt.variables);
    const norm = globalNorm(Object.values(grads));
    const [expectedNorm, g0] = await Promise.all([norm.data(), grads[m.variables[2].name].data()]);
    const before = await weights(m);
    const rep = await update(opt, [() => ({ loss: nextTokenLoss(m, batch) })]);
    expect(rep.skipped).toBe(false);
    expect(rep.gradNorm).toBeCloseTo(expectedNorm[0], 5);
    expect(rep.termGradNorms[0]).toBeCloseTo(expectedNorm[0], 5);
    expect(clipCoef(rep.gradNorm, 1e-3)).toBeLessThan(1);
    const after = await weights(m);
    const c = clipCoef(rep.gradNorm, 1e-3);
    const expected = before[2].map((w, i) => w - (1e-3 * (c * g0[i])) / (Math.abs(c * g0[i]) + 1e-8));
    expect(maxAbsDiff(after[2], expected)).toBeLessThan(1e-6);
    tf.dispose([norm, ...Object.values(grads)]);
    disposeBatch(batch);
    opt.dispose();
    m.dispose();
  });

  it('skips a step whose loss or gradient is not finite, and says why', async () => {
    const m = tinyModel();
    const opt = new AdamW(m, { lr: 0.1 });
    const before = await weights(m);
    const batch = makeBatch(0);
    const nanLoss = await update(opt, [() => ({ loss: tf.mul(nextTokenLoss(m, batch), NaN) as tf.Scalar })]);
    expect(nanLoss).toMatchObject({ skipped: true });
    expect(nanLoss.reason).toMatch(/loss of term 0 is NaN/);
    // Finite loss (0), NaN gradient: d|b|/db at b = 0 times 1/(2√0) = 0·∞.
    const bias = m.params.get('h0.ln1.b')!;
    const nanGrad = await update(opt, [
      () => ({ loss: tf.mul(tf.sum(tf.sqrt(tf.abs(bias))), 0) as tf.Scalar }),
    ]);
    expect(nanGrad.loss).toBe(0);
    expect(nanGrad).toMatchObject({ skipped: true });
    expect(nanGrad.reason).toMatch(/gradient norm is NaN/);
    const after = await weights(m);
    after.forEach((w, i) => expect(maxAbsDiff(w, before[i])).toBe(0));
    expect(opt.step).toBe(0);
    disposeBatch(batch);
    opt.dispose();
    m.dispose();
  });

  it('rolls back a finite update that would make a weight non-finite, and counts it as skipped', async () => {
    const m = tinyModel();
    // A learning rate finite as a number (a live change accepts it) but not as a float32: lr·update is ±∞.
    const opt = new AdamW(m, { lr: 1e39 });
    const before = await weights(m);
    const bias = m.params.get('h0.ln1.b')!;
    const rep = await update(opt, [() => ({ loss: tf.sum(bias) as tf.Scalar })]);
    expect(Number.isFinite(rep.loss) && Number.isFinite(rep.gradNorm)).toBe(true);
    expect(rep).toMatchObject({
      skipped: true,
      reason: 'the update made a weight or an AdamW moment non-finite; rolled back',
    });
    (await weights(m)).forEach((w, i) => expect(maxAbsDiff(w, before[i])).toBe(0));
    const moments = await Promise.all([...opt.moments.m, ...opt.moments.v].map((x) => x.data()));
    expect(moments.every((x) => x.every((y) => y === 0))).toBe(true);
    expect(opt.step).toBe(0);
    // A sane update afterwards goes through.
    opt.lr = 1e-3;
    const ok = await update(opt, [() => ({ loss: tf.sum(bias) as tf.Scalar })]);
    expect(ok.skipped).toBe(false);
    expect(opt.step).toBe(1);
    opt.dispose();
    m.dispose();
  });

  it('per-agent terms on a shared model: each term’s norm, and the sum applied', async () => {
    const [a, b] = [makeBatch(0), makeBatch(3)];
    const terms = (m: GPT) => [
      () => ({ loss: nextTokenLoss(m, a), stats: tf.stack([tf.scalar(7), tf.scalar(8)]) }),
      () => ({ loss: nextTokenLoss(m, b) }),
    ];
    // Reference: each term's gradient norm alone.
    const ref = tinyModel();
    const refNorms: number[] = [];
    for (const t of terms(ref)) {
      const { value, grads } = tf.variableGrads(() => t().loss, ref.variables);
      const n = globalNorm(Object.values(grads));
      refNorms.push((await n.data())[0]);
      tf.dispose([value, n, ...Object.values(grads)]);
    }
    const shared = tinyModel();
    const opt = new AdamW(shared, { lr: 1e-2, clipNorm: Infinity });
    const rep = await update(opt, terms(shared));
    expect(rep.termGradNorms[0]).toBeCloseTo(refNorms[0], 5);
    expect(rep.termGradNorms[1]).toBeCloseTo(refNorms[1], 5);
    expect(rep.gradNorm).toBeLessThanOrEqual(refNorms[0] + refNorms[1] + 1e-6);
    expect(Array.from(rep.stats[0])).toEqual([7, 8]);
    expect(rep.stats[1].length).toBe(0);
    expect(rep.termTokens).toEqual([0, 0]); // neither term counts its tokens
    // Same result as one backward of the summed loss.
    const summed = tinyModel();
    const opt2 = new AdamW(summed, { lr: 1e-2, clipNorm: Infinity });
    const rep2 = await update(opt2, [
      () => ({ loss: tf.add(nextTokenLoss(summed, a), nextTokenLoss(summed, b)) as tf.Scalar }),
    ]);
    expect(rep2.gradNorm).toBeCloseTo(rep.gradNorm, 5);
    const [w1, w2] = await Promise.all([weights(shared), weights(summed)]);
    w1.forEach((w, i) => expect(maxAbsDiff(w, w2[i])).toBeLessThan(1e-6));
    [ref, shared, summed].forEach((m) => m.dispose());
    [opt, opt2].forEach((o) => o.dispose());
    [a, b].forEach(disposeBatch);
  });

  it('tf.memory().numTensors is flat over training steps', async () => {
    const m = tinyModel();
    const opt = new AdamW(m, { lr: 1e-3 });
    const batch = makeBatch(1);
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      await update(opt, [
        () => ({ loss: nextTokenLoss(m, batch) }),
        () => ({ loss: nextTokenLoss(m, batch) }),
      ]);
      counts.push(tf.memory().numTensors);
    }
    expect(new Set(counts).size).toBe(1);
    disposeBatch(batch);
    opt.dispose();
    m.dispose();
  });

  it('globalNorm over more tensors than one webgpu AddN may bind (7): √Σ‖g‖² of all of them', async () => {
    // 1..n: g_i = [i, 2i] ⇒ ‖g‖² = 5 Σ i²; n = 23 takes two rounds of 7-input AddNs.
    for (const n of [1, 7, 8, 23]) {
      const gs = Array.from({ length: n }, (_, i) => tf.tensor1d([i + 1, 2 * (i + 1)]));
      const norm = globalNorm(gs);
      const sumSq = (n * (n + 1) * (2 * n + 1)) / 6;
      expect((await norm.data())[0]).toBeCloseTo(Math.sqrt(5 * sumSq), 4);
      tf.dispose([norm, ...gs]);
    }
  });
});
