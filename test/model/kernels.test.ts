// The fused wasm kernels (src/model/kernels) against the plain tfjs formulation on cpu: values and
// gradients within 1e-5 over several shapes (sizes that are not multiples of 4 included), and no
// tensor or heap leaks.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedAttention, selfAttention, writeCacheSlot } from '../../src/model/kernels/attention';
import { chosenGemmTile, GEMM_TILES, setGemmTile, type GemmTile } from '../../src/model/kernels/gemm-tile';
import type { WasmBackendLike } from '../../src/model/kernels/kernel-types';
import {
  fusedKernelsAvailable,
  kernelsFor,
  relaxedSimdSupported,
  setFusedKernels,
  setRelaxedSimd,
  simdFlavour,
} from '../../src/model/kernels/wasm';
import { enableRelaxedSimd } from '../../src/backends/relaxed-simd-node';
import { addPositions, embed, gelu, layerNorm, linear, matmul, mlp } from '../../src/model/layers';
import { matMulNN, matMulTN, transpose2d } from '../../src/model/kernels/rowwise';
import { MASK } from '../../src/model/gpt';
import { score } from '../../src/model/logprobs';
import { Prng } from '../../src/core/prng';
import { maxAbsDiff, useBackend } from './helpers';

const rand = (n: number, seed: number, scale = 1) => {
  const rng = new Prng(seed);
  return Float32Array.from({ length: n }, () => (rng.next() * 2 - 1) * scale);
};
const causal = (T: number) => {
  const m = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[i * T + j] = MASK;
  return m;
};
/** Left padding per row b: query i of row b sees keys pads[b] ≤ j ≤ q0 + i. */
const padded = (B: number, T: number, S: number, q0: number, pads: number[]) => {
  const m = new Float32Array(B * T * S).fill(MASK);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < T; i++) m.fill(0, (b * T + i) * S + pads[b], (b * T + i) * S + q0 + i + 1);
  return m;
};

interface Case {
  inputs: { data: Float32Array; shape: number[] }[];
  /** The op under test on tensors (the first `grads` inputs are differentiated). */
  f: (...xs: tf.Tensor[]) => tf.Tensor;
  grads: number;
}

/** Value and gradients of sum(f(...) · R) for a fixed random R, on the current backend. */
async function evaluate(c: Case): Promise<Float32Array[]> {
  const xs = c.inputs.map((i) => tf.tensor(i.data, i.shape, 'float32'));
  const y = c.f(...xs);
  const r = tf.tensor(rand(y.size, 99), y.shape);
  const g = tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul(c.f(...a, ...xs.slice(c.grads)), r)));
  const gs = c.grads > 0 ? g(xs.slice(0, c.grads)) : [];
  const out = await Promise.all([y, ...gs].map(async (t) => (await t.data()) as Float32Array));
  tf.dispose([...xs, y, r, ...gs]);
  return out;
}

async function agree(c: Case, tol = 1e-5): Promise<void> {
  await useBackend('cpu');
  const ref = await evaluate(c);
  await useBackend('wasm');
  expect(
    fusedKernelsAvailable('attention') && fusedKernelsAvailable('rowwise') && fusedKernelsAvailable('gemm'),
  ).toBe(true);
  const before = tf.memory();
  const got = await evaluate(c);
  const after = tf.memory();
  expect(after.numTensors).toBe(before.numTensors);
  expect((after as { numDataBuffers: number }).numDataBuffers).toBe(
    (before as { numDataBuffers: number }).numDataBuffers,
  );
  ref.forEach((r, i) => {
    const scale = r.reduce((m, x) => Math.max(m, Math.abs(x)), 1);
    expect(maxAbsDiff(r, got[i]) / scale, `output ${i}`).toBeLessThan(tol);
  });
}

enableRelaxedSimd(); // Node 20: lets the relaxed-SIMD module validate, so both modules are tested

it('the relaxed-SIMD module runs where the engine validates it, the plain one when asked', async () => {
  expect(relaxedSimdSupported()).toBe(true);
  await useBackend('wasm');
  expect(simdFlavour()).toBe('relaxed');
  setRelaxedSimd(false);
  expect(simdFlavour()).toBe('plain');
  expect(fusedKernelsAvailable('matmul')).toBe(true);
  setRelaxedSimd(true);
});

// Every kernel in both modules: relaxed SIMD (fused multiply-add) and plain SIMD.
describe.each(['relaxed', 'plain'])(
  'fused wasm kernels (%s SIMD) match the plain formulation on cpu',
  (flavour) => {
    beforeAll(() => setRelaxedSimd(flavour === 'relaxed'));
    afterAll(async () => {
      setFusedKernels(true);
      setRelaxedSimd(true);
      await useBackend('cpu');
    });

    // (B, T, H, hd): the model's shapes (and head size 32 with keys past a multiple of 4), then odd head sizes and lengths
    for (const [B, T, H, hd] of [
      [2, 16, 2, 32],
      [2, 10, 1, 32],
      [3, 7, 2, 5],
      [1, 9, 3, 6],
      [2, 5, 1, 3],
      [2, 12, 4, 8],
    ]) {
      it(`causal self-attention B=${B} T=${T} H=${H} hd=${hd}: value and d/dqkv`, async () => {
        const C = H * hd;
        await agree({
          inputs: [
            { data: rand(B * T * 3 * C, B + T + hd), shape: [B * T, 3 * C] },
            { data: causal(T), shape: [1, 1, T, T] },
          ],
          f: (qkv, bias) => selfAttention(qkv as tf.Tensor2D, bias as tf.Tensor4D, B, H),
          grads: 1,
        });
      });
    }

    it('self-attention with per-row left padding (B, 1, T, T) bias', async () => {
      const [B, T, H, hd] = [3, 6, 2, 4];
      await agree({
        inputs: [
          { data: rand(B * T * 3 * H * hd, 5), shape: [B * T, 3 * H * hd] },
          { data: padded(B, T, T, 0, [0, 2, 5]), shape: [B, 1, T, T] },
        ],
        f: (qkv, bias) => selfAttention(qkv as tf.Tensor2D, bias as tf.Tensor4D, B, H),
        grads: 1,
      });
    });

    for (const [B, T, S, H, hd] of [
      [4, 1, 11, 2, 6],
      [2, 3, 8, 2, 4],
      [3, 1, 48, 4, 32],
    ]) {
      it(`cached attention B=${B} T=${T} S=${S} H=${H} hd=${hd}`, async () => {
        const C = H * hd;
        const pads = Array.from({ length: B }, (_, b) => b % (S - T));
        await agree({
          inputs: [
            { data: rand(B * T * C, 1), shape: [B * T, C] },
            { data: rand(B * S * C, 2), shape: [B, S, C] },
            { data: rand(B * S * C, 3), shape: [B, S, C] },
            { data: padded(B, T, S, S - T - 1, pads), shape: [B, 1, T, S] },
          ],
          f: (q, k, v, bias) =>
            cachedAttention(q as tf.Tensor2D, k as tf.Tensor3D, v as tf.Tensor3D, bias as tf.Tensor4D, H),
          grads: 0,
        });
      });
    }

    for (const [B, S, C, slot] of [
      [64, 48, 128, 33],
      [3, 5, 7, 4],
    ]) {
      it(`KV cache write (${B}, ${S}, ${C}) at slot ${slot}`, async () => {
        const cache = rand(B * S * C, 31);
        for (let b = 0; b < B; b++) cache.fill(0, (b * S + slot) * C, (b * S + slot + 1) * C); // the slot is still empty
        await agree({
          inputs: [
            { data: cache, shape: [B, S, C] },
            { data: rand(B * C, 32), shape: [B, 1, C] },
          ],
          f: (c, x) => writeCacheSlot(c as tf.Tensor3D, x as tf.Tensor3D, slot),
          grads: 0,
        });
      });
    }

    for (const [N, C] of [
      [64, 128],
      [7, 13],
      [5, 3],
    ]) {
      it(`layer norm (${N}, ${C}): value and d/dx, d/dg, d/db`, async () => {
        await agree({
          inputs: [
            { data: rand(N * C, 7, 3), shape: [N, C] },
            { data: rand(C, 8), shape: [C] },
            { data: rand(C, 9), shape: [C] },
          ],
          f: (x, g, b) => layerNorm(x as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D),
          grads: 3,
        });
      });
    }

    for (const [N, V, temperature, scale] of [
      [64, 89, 1, 3],
      [9, 7, 0.7, 40],
    ])
      it(`log-softmax, the target's log-probability and the entropy (${N}, ${V}), temperature ${temperature}, logits ±${scale}: values and d/dz`, async () => {
        // targets cycle through the vocabulary, with two outside it (they pick 0, as a one-hot row does)
        const ids = Array.from({ length: N }, (_, i) => (i === 1 ? V : i === 2 ? -1 : (i * 5) % V));
        await tf.ready();
        const targets = tf.tensor1d(ids, 'int32');
        await agree({
          inputs: [{ data: rand(N * V, 34, scale), shape: [N, V] }],
          f: (z) =>
            tf.tidy(() => {
              const { logp, entropy } = score(z as tf.Tensor2D, targets, temperature);
              return tf.stack([logp, entropy]);
            }),
          grads: 1,
        });
        targets.dispose();
      });

    for (const [R, C] of [
      [128, 384],
      [89, 128],
      [7, 13],
      [3, 2],
    ])
      it(`transpose (${R}, ${C}): value and d/dx (4 × 4 blocks and both edges)`, async () => {
        await agree({
          inputs: [{ data: rand(R * C, 35), shape: [R, C] }],
          f: (x) => transpose2d(x as tf.Tensor2D),
          grads: 1,
        });
      });

    it('embedding lookup with repeated ids, the last id and ids outside the table: value and d/dtable (row copies, rows added)', async () => {
      const [V, C] = [11, 13];
      await tf.ready();
      const ids = tf.tensor1d([3, 0, 3, 10, 7, 3, 11, -1, 0], 'int32'); // 11 and -1: zero rows, no gradient
      await agree({
        inputs: [{ data: rand(V * C, 33), shape: [V, C] }],
        f: (t) => embed(ids, t as tf.Tensor2D),
        grads: 1,
      });
      ids.dispose();
    });

    for (const [B, T, C] of [
      [4, 64, 128],
      [3, 5, 7],
    ]) {
      it(`position embeddings added over the batch (${B}, ${T}, ${C}): value and d/dx, d/dp (column-sum kernel)`, async () => {
        await agree({
          inputs: [
            { data: rand(B * T * C, 31), shape: [B, T, C] },
            { data: rand(T * C, 32), shape: [T, C] },
          ],
          f: (x, p) => addPositions(x as tf.Tensor3D, p as tf.Tensor2D),
          grads: 2,
        });
      });
    }

    for (const [N, M] of [
      [64, 512],
      [3, 7],
    ]) {
      it(`gelu (${N}, ${M}) incl. large |x|: value and d/dx`, async () => {
        const x = rand(N * M, 11, 6);
        x[0] = 95;
        x[1] = -95;
        await agree({ inputs: [{ data: x, shape: [N, M] }], f: (t) => gelu(t as tf.Tensor2D), grads: 1 });
      });
    }

    for (const [N, Cin, Cout] of [
      [64, 16, 48],
      [5, 3, 7],
    ]) {
      it(`linear (${N}, ${Cin}) → ${Cout}: d/dx, d/dw, d/db (column-sum kernel)`, async () => {
        await agree({
          inputs: [
            { data: rand(N * Cin, 12), shape: [N, Cin] },
            { data: rand(Cin * Cout, 13), shape: [Cin, Cout] },
            { data: rand(Cout, 14), shape: [Cout] },
          ],
          f: (x, w, b) => linear(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D),
          grads: 3,
        });
      });
    }

    // (N, C, M): the model's shape (small: C 128, MLP 512), then column tails past a multiple of 8 and
    // rows past a multiple of 4; x scaled so that some pre-activations reach GELU's flat tails.
    const mlpCase = (N: number, C: number, M: number, scale: number): Case => ({
      inputs: [
        { data: rand(N * C, 24, scale), shape: [N, C] },
        { data: rand(C * M, 25), shape: [C, M] },
        { data: rand(M, 26), shape: [M] },
        { data: rand(M * C, 27), shape: [M, C] },
        { data: rand(C, 28), shape: [C] },
      ],
      f: (x, w1, b1, w2, b2) =>
        mlp(x as tf.Tensor2D, w1 as tf.Tensor2D, b1 as tf.Tensor1D, w2 as tf.Tensor2D, b2 as tf.Tensor1D),
      grads: 5,
    });
    for (const [N, C, M, scale] of [
      [64, 128, 512, 1],
      [70, 16, 44, 4],
      [5, 3, 7, 8],
    ]) {
      it(`mlp (${N}, ${C}) → ${M} → ${C}, GELU in the GEMM's epilogue: value and d/dx, d/dw1, d/db1, d/dw2, d/db2`, async () => {
        await agree(mlpCase(N, C, M, scale));
      });
    }

    it('mlp runs GELU in its GEMM only with the mlp, matmul and rowwise families on; with one off, the unfused ops give the same values and gradients', async () => {
      const c = mlpCase(70, 16, 44, 4);
      await useBackend('cpu');
      const ref = await evaluate(c);
      await useBackend('wasm');
      for (const off of [[], ['mlp'], ['matmul'], ['rowwise']] as const) {
        setFusedKernels(false, off);
        try {
          const { kernelNames } = await tf.profile(() => evaluate(c));
          expect(kernelNames.includes('AgwMatMulGelu'), `off: ${off}`).toBe(off.length === 0);
          const got = await evaluate(c);
          ref.forEach((r, i) =>
            expect(
              maxAbsDiff(r, got[i]) / r.reduce((m, x) => Math.max(m, Math.abs(x)), 1),
              `off: ${off}, output ${i}`,
            ).toBeLessThan(1e-5),
          );
        } finally {
          setFusedKernels(true);
        }
      }
    });

    // (N, A, J): blocks of 64 rows, 4×8 tiles and both tails (the head's 73 and the embedding's 73)
    for (const [N, A, J] of [
      [130, 12, 16],
      [70, 9, 13],
      [200, 73, 20],
      [65, 16, 73],
      [3, 2, 5],
    ]) {
      it(`xᵀ·dy (${N}, ${A}) × (${N}, ${J}), and matmul's gradients through it`, async () => {
        await agree({
          inputs: [
            { data: rand(N * A, 15), shape: [N, A] },
            { data: rand(N * J, 16), shape: [N, J] },
          ],
          f: (x, dy) => matMulTN(x as tf.Tensor2D, dy as tf.Tensor2D),
          grads: 0,
        });
        await agree({
          inputs: [
            { data: rand(N * A, 17), shape: [N, A] },
            { data: rand(A * J, 18), shape: [A, J] },
          ],
          f: (x, w) => matmul(x as tf.Tensor2D, w as tf.Tensor2D),
          grads: 2,
        });
      });
    }

    // (M, K, N): the model's real shapes (small: 4096 rows, C 128, MLP 512, vocab 73; decode's 64 rows),
    // then row counts that are not multiples of 4 and column tails
    for (const [M, K, N] of [
      [4096, 128, 384],
      [4096, 512, 128],
      [4096, 128, 73],
      [64, 128, 512],
      [5, 7, 9],
      [2, 3, 17],
      [1, 4, 8],
    ]) {
      it(`a·b + bias (${M}, ${K}) × (${K}, ${N}), and linear's gradients through it`, async () => {
        const inputs = [
          { data: rand(M * K, 21), shape: [M, K] },
          { data: rand(K * N, 22), shape: [K, N] },
          { data: rand(N, 23), shape: [N] },
        ];
        await agree({
          inputs,
          f: (a, b, bias) => matMulNN(a as tf.Tensor2D, b as tf.Tensor2D, bias as tf.Tensor1D),
          grads: 0,
        });
        await agree({
          inputs: inputs.slice(0, 2),
          f: (a, b) => matMulNN(a as tf.Tensor2D, b as tf.Tensor2D),
          grads: 0,
        });
        if (M * K * N < 1e8)
          await agree({
            inputs,
            f: (x, w, b) => linear(x as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D),
            grads: 3,
          });
      });
    }

    it('setFusedKernels(false) runs the plain ops on wasm', async () => {
      await useBackend('wasm');
      setFusedKernels(false);
      expect(fusedKernelsAvailable()).toBe(false);
      setFusedKernels(true);
      expect(fusedKernelsAvailable()).toBe(true);
      await useBackend('cpu');
      expect(fusedKernelsAvailable()).toBe(false);
    });
  },
);

describe('the GEMM tiles (gemm-tile.ts): 3 × 12 and 6 × 8 give the bits of 4 × 8', () => {
  /** Value and gradients of sum(f(...) · R) on wasm with the GEMMs on `tile`. */
  const on = async (tile: GemmTile, c: Case) => {
    await useBackend('wasm');
    setGemmTile(tile);
    try {
      return await evaluate(c);
    } finally {
      setGemmTile('auto');
    }
  };
  // Row counts off the 3-, 4- and 6-row groups; column counts whose last multiple of 8 leaves 0, 4
  // and 8 past the last multiple of 12 (3 × 12's tiles of 8), column tails; tiny and the model's K.
  for (const [M, K, N] of [
    [1, 4, 8],
    [5, 7, 9],
    [7, 3, 17],
    [11, 32, 33],
    [13, 64, 192],
    [64, 128, 73],
    [250, 64, 256],
    [1000, 256, 64],
  ]) {
    it(`a·b + bias, linear's gradients and the MLP (GELU in the epilogue) at (${M}, ${K}) × (${K}, ${N})`, async () => {
      const x = { data: rand(M * K, 31), shape: [M, K] };
      const w = { data: rand(K * N, 32), shape: [K, N] };
      const b = { data: rand(N, 33), shape: [N] };
      const w2 = { data: rand(N * K, 34), shape: [N, K] };
      const b2 = { data: rand(K, 35), shape: [K] };
      const cases: Case[] = [
        {
          inputs: [x, w, b],
          f: (a, bb, c) => matMulNN(a as tf.Tensor2D, bb as tf.Tensor2D, c as tf.Tensor1D),
          grads: 0,
        },
        {
          inputs: [x, w, b],
          f: (a, bb, c) => linear(a as tf.Tensor2D, bb as tf.Tensor2D, c as tf.Tensor1D),
          grads: 3,
        },
        {
          inputs: [x, w, b, w2, b2],
          f: (a, w1, b1, ww2, bb2) =>
            mlp(
              a as tf.Tensor2D,
              w1 as tf.Tensor2D,
              b1 as tf.Tensor1D,
              ww2 as tf.Tensor2D,
              bb2 as tf.Tensor1D,
            ),
          grads: 5,
        },
      ];
      for (const c of cases) {
        const four = await on('4x8', c);
        for (const tile of ['3x12', '6x8'] as const)
          (await on(tile, c)).forEach((got, i) =>
            expect(Buffer.from(got.buffer).equals(Buffer.from(four[i].buffer)), `${tile} output ${i}`).toBe(
              true,
            ),
          );
      }
    });
  }

  it('left to choose, an instance times each tile on its calls and keeps one', async () => {
    await useBackend('wasm');
    const k = kernelsFor(tf.backend() as unknown as WasmBackendLike)!;
    const a = tf.tensor2d(rand(512 * 128, 41), [512, 128]);
    const b = tf.tensor2d(rand(128 * 128, 42), [128, 128]);
    // 3 × 2^28 multiply-adds of warm-up, then 2^29 timed, at 2^23 a call: about 160 calls.
    for (let i = 0; i < 300 && chosenGemmTile(k) === null; i++) matMulNN(a, b).dispose();
    expect(GEMM_TILES).toContain(chosenGemmTile(k));
    tf.dispose([a, b]);
  });
});
