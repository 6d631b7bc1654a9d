import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VOCAB } from '../../src/core/vocab';
import type { ModelPreset } from '../../src/core/model-sizes';
import { GPT } from '../../src/model/gpt';
import { gptConfig } from '../../src/core/gpt-config';
import { embed } from '../../src/model/layers';
import { maxAbsDiff, tinyModel, useBackend } from './helpers';

describe('gpt', () => {
  beforeAll(() => useBackend('cpu'));
  afterAll(() => tf.disposeVariables());

  it('presets have the advertised sizes', () => {
    const count = (p: ModelPreset) => {
      const m = GPT.create(gptConfig(p), 0);
      const n = m.numParams();
      m.dispose();
      return n;
    };
    expect(count('nano')).toBeGreaterThan(90_000);
    expect(count('nano')).toBeLessThan(130_000);
    // docs/figures.md#the-benchmark-workload's 411,136 at V = 48; our V = 89 (with the role block) adds 41 × 128.
    expect(count('small')).toBe(411_136 + (VOCAB.length - 48) * 128);
    expect(count('base')).toBeGreaterThan(1_400_000);
    expect(count('base')).toBeLessThan(1_700_000);
    expect(gptConfig('small', { contextLength: 128 }).contextLength).toBe(128);
    expect(() => gptConfig('small', { nHeads: 3 })).toThrow(/divisible/);
  });

  it('same seed ⇒ identical weights; another seed differs', async () => {
    const [a, b, c] = [tinyModel(7), tinyModel(7), tinyModel(8)];
    const read = (m: GPT) => Promise.all(m.variables.map((v) => v.data()));
    const [wa, wb, wc] = await Promise.all([read(a), read(b), read(c)]);
    wa.forEach((w, i) => expect(maxAbsDiff(w, wb[i])).toBe(0));
    expect(maxAbsDiff(wa[0], wc[0])).toBeGreaterThan(0);
    [a, b, c].forEach((m) => m.dispose());
  });

  it('is causal: changing a later token leaves earlier logits unchanged', async () => {
    const m = tinyModel();
    const x1 = tf.tensor2d([[1, 20, 21, 22, 23, 24]], [1, 6], 'int32');
    const x2 = tf.tensor2d([[1, 20, 21, 40, 41, 42]], [1, 6], 'int32');
    const [l1, l2] = [m.logits(x1), m.logits(x2)];
    const [d1, d2] = await Promise.all([l1.data(), l2.data()]);
    const V = m.config.vocabSize;
    expect(maxAbsDiff(d1.slice(0, 3 * V), d2.slice(0, 3 * V))).toBe(0);
    expect(maxAbsDiff(d1.slice(3 * V), d2.slice(3 * V))).toBeGreaterThan(1e-4);
    tf.dispose([x1, x2, l1, l2]);
    m.dispose();
  });

  it('dispose frees every tensor it created; forward leaks nothing', () => {
    const before = tf.memory().numTensors;
    const m = tinyModel();
    const ids = tf.tensor2d([[1, 2, 3]], [1, 3], 'int32');
    m.logits(ids).dispose();
    const mid = tf.memory().numTensors;
    m.logits(ids).dispose();
    expect(tf.memory().numTensors).toBe(mid);
    ids.dispose();
    m.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it.each(['cpu', 'wasm'])(
    '%s: embed is the one-hot product, value and gradient, with repeated ids',
    async (backend) => {
      await useBackend(backend);
      const table = tf.variable(
        tf.tensor2d(
          Float32Array.from({ length: 7 * 5 }, (_, j) => Math.sin(j * 0.37)),
          [7, 5],
        ),
      );
      const ids = tf.tensor1d([3, 0, 3, 6, 3, 1], 'int32');
      const dy = tf.tensor2d(
        Float32Array.from({ length: 6 * 5 }, (_, j) => Math.cos(j * 0.91)),
        [6, 5],
      );
      const run = async (f: () => tf.Tensor) => {
        const { value, grads } = tf.variableGrads(() => tf.sum(tf.mul(f(), dy)) as tf.Scalar, [table]);
        const out = { y: await f().data(), g: await grads[table.name].data() };
        tf.dispose([value, grads[table.name]]);
        return out;
      };
      const got = await run(() => embed(ids, table));
      const want = await run(() => tf.matMul(tf.cast(tf.oneHot(ids, 7), 'float32'), table));
      expect(maxAbsDiff(got.y, want.y)).toBe(0);
      expect(maxAbsDiff(got.g, want.g)).toBeLessThan(1e-6);
      expect(Math.abs(got.g[3 * 5])).toBeGreaterThan(0.1); // row 3, picked three times, sums three rows of dy
      tf.dispose([table, ids, dy]);
      await useBackend('cpu');
    },
  );

  it('rejects sequences longer than the context', () => {
    const m = tinyModel();
    const ids = tf.zeros([1, 33], 'int32') as tf.Tensor2D;
    expect(() => m.forward(ids)).toThrow(/exceeds the model's context 32/);
    ids.dispose();
    m.dispose();
  });
});
