import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  disposeBatch,
  packRows,
  responseLogprobs,
  responsePositions,
  tokenLogprobs,
  toResponseTensors,
  toTensors,
} from '../../src/model/logprobs';
import { VOCAB } from '../../src/core/vocab';
import { gatherResponses, maxAbsDiff, scatterResponses, tinyModel, useBackend } from './helpers';

const opts = { contextLength: 32, vocabSize: 73, pad: 0 };
const rows = [
  { prompt: [1, 20, 21], response: [30, 31, 2] },
  { prompt: [1, 22], response: [40] },
];

describe('packing', () => {
  it('right-pads to buckets with x = seq[:-1], y = seq[1:], mask on response targets', () => {
    const p = packRows(rows, { ...opts, batchMultiple: 4, lengthMultiple: 8 });
    expect([p.B, p.T, p.rows]).toEqual([4, 8, 2]);
    expect(Array.from(p.inputs.slice(0, 8))).toEqual([1, 20, 21, 30, 31, 0, 0, 0]);
    expect(Array.from(p.targets.slice(0, 8))).toEqual([20, 21, 30, 31, 2, 0, 0, 0]);
    expect(Array.from(p.mask.slice(0, 8))).toEqual([0, 0, 1, 1, 1, 0, 0, 0]);
    expect(Array.from(p.mask.slice(8, 16))).toEqual([0, 1, 0, 0, 0, 0, 0, 0]);
    expect(p.mask.slice(16).every((m) => m === 0)).toBe(true);
    const flat = scatterResponses(p, [[0.1, 0.2, 0.3], [0.4]]);
    expect(gatherResponses(p, flat).map((r) => r.map((x) => +x.toFixed(5)))).toEqual([
      [0.1, 0.2, 0.3],
      [0.4],
    ]);
  });

  it('refuses bad rows with a reason', () => {
    expect(() => packRows([{ prompt: [], response: [3] }], opts)).toThrow(/empty prompt/);
    expect(() => packRows([{ prompt: [1], response: [73] }], opts)).toThrow(/token 1 is 73/);
    expect(() => packRows([{ prompt: new Array(30).fill(1), response: [1, 1, 1, 1] }], opts)).toThrow(
      /33 positions.*context is 32/,
    );
    const p = packRows(rows, opts);
    expect(() => scatterResponses(p, [[1], [1]])).toThrow(/row 0: 1 values for 3/);
  });
});

describe('tokenLogprobs', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => tf.disposeVariables());

  it('equals log softmax of the logits at the targets, masked; entropy within [0, log V]', async () => {
    const m = tinyModel(2);
    const p = packRows(rows, opts);
    const batch = toTensors(p);
    const { logp, entropy } = tokenLogprobs(m, batch);
    const logits = m.logits(batch.inputs);
    const [lp, ent, lg] = await Promise.all([logp.data(), entropy.data(), logits.data()]);
    const V = VOCAB.length; // the model's logits cover the lab's vocabulary
    for (let i = 0; i < p.B * p.T; i++) {
      if (p.mask[i] === 0) {
        expect(Math.abs(lp[i])).toBe(0);
        expect(Math.abs(ent[i])).toBe(0);
        continue;
      }
      const row = Array.from(lg.slice(i * V, (i + 1) * V));
      const max = Math.max(...row);
      const logZ = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
      expect(lp[i]).toBeCloseTo(row[p.targets[i]] - logZ, 5);
      expect(ent[i]).toBeGreaterThan(0);
      expect(ent[i]).toBeLessThanOrEqual(Math.log(V) + 1e-5);
    }
    tf.dispose([logp, entropy, logits]);
    disposeBatch(batch);
    m.dispose();
  });

  it('responseLogprobs: the same log-probs, entropies and gradients at the response positions alone', async () => {
    const m = tinyModel(3);
    const p = packRows([...rows, { prompt: [1, 5, 6, 7, 8, 9], response: [10, 11, 2] }], opts);
    expect(Array.from(responsePositions(p))).toEqual([2, 3, 4, 17, 37, 38, 39]); // T = 16: rows at 0, 16, 32
    const full = toTensors(p);
    const only = toResponseTensors(p);
    const at = tf.tensor1d(responsePositions(p), 'int32');
    const weights = [0.3, -1.2, 0.8, 2, -0.4, 1.1, 0.6]; // one per response token
    const w = tf.tensor1d(weights);
    const wFull = tf.tensor2d(
      scatterResponses(p, [weights.slice(0, 3), weights.slice(3, 4), weights.slice(4)]),
      [p.B, p.T],
    );
    const read = async (f: () => tf.Scalar) => {
      const { value, grads } = tf.variableGrads(f, m.variables);
      const g = tf.concat(m.variables.map((v) => tf.reshape(grads[v.name], [-1])));
      const out = { value: (await value.data())[0], grad: await g.data() };
      tf.dispose([value, g, ...Object.values(grads)]);
      return out;
    };
    for (const temperature of [1, 0.7]) {
      const a = tokenLogprobs(m, full, temperature);
      const b = responseLogprobs(m, only, temperature);
      const [lpFull, entFull] = await Promise.all([
        tf.gather(tf.reshape(a.logp, [-1]), at).data(),
        tf.gather(tf.reshape(a.entropy, [-1]), at).data(),
      ]);
      expect(maxAbsDiff(await b.logp.data(), lpFull)).toBeLessThan(1e-6);
      expect(maxAbsDiff(await b.entropy.data(), entFull)).toBeLessThan(1e-6);
      tf.dispose([a.logp, a.entropy, b.logp, b.entropy]);
      // Σ w·(logp + 0.1·H) through both: the head's gradient flows back to the picked positions only.
      const viaFull = await read(() => {
        const x = tokenLogprobs(m, full, temperature);
        return tf.sum(tf.mul(tf.add(x.logp, tf.mul(0.1, x.entropy)), wFull)) as tf.Scalar;
      });
      const viaOnly = await read(() => {
        const x = responseLogprobs(m, only, temperature);
        return tf.sum(tf.mul(tf.add(x.logp, tf.mul(0.1, x.entropy)), w)) as tf.Scalar;
      });
      expect(Math.abs(viaOnly.value - viaFull.value)).toBeLessThan(1e-5);
      expect(maxAbsDiff(viaOnly.grad, viaFull.grad)).toBeLessThan(1e-5);
      expect(Math.max(...Array.from(viaFull.grad, Math.abs))).toBeGreaterThan(1e-3);
    }
    tf.dispose([at, w, wFull]);
    disposeBatch(full);
    disposeBatch(only);
    m.dispose();
  });
});
