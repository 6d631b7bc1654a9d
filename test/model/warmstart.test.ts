// Supervised warm-start end to end: memorise prompt → response pairs, then greedy sampling says them.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disposeBatch, packRows, toTensors } from '../../src/model/logprobs';
import { AdamW } from '../../src/model/optim';
import { sample } from '../../src/model/sampler';
import { tokenizer } from '../../src/model/tokenizer';
import { supervisedStep } from '../../src/model/warmstart';
import { tinyModel, useBackend } from './helpers';

const pairs: [string, string][] = [
  ['\uE001ping\uE012', 'pong\uE002'],
  ['\uE0012+2=\uE012', '4\uE002'],
];

describe('supervised warm-start', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => tf.disposeVariables());

  it('learns the demonstrations and greedy decoding reproduces them', async () => {
    const m = tinyModel(9);
    const opt = new AdamW(m, { lr: 1e-2 });
    const rows = pairs.map(([p, r]) => ({ prompt: tokenizer.encode(p), response: tokenizer.encode(r) }));
    const batch = toTensors(
      packRows(rows, { contextLength: 32, vocabSize: tokenizer.size, pad: tokenizer.pad }),
    );
    const losses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const rep = await supervisedStep(m, opt, batch);
      expect(rep.skipped).toBe(false);
      losses.push(rep.loss);
    }
    expect(losses.at(-1)!).toBeLessThan(0.1 * losses[0]);
    const res = await sample(
      m,
      rows.map((r) => r.prompt),
      { maxNewTokens: 8, seeds: [1, 2], temperature: 0, eos: tokenizer.eos, pad: tokenizer.pad },
    );
    expect(res.samples.map((s) => tokenizer.decode(s.tokens))).toEqual(pairs.map(([, r]) => r));
    expect(res.samples.every((s) => s.stop === 'eos')).toBe(true);
    disposeBatch(batch);
    opt.dispose();
    m.dispose();
  });
});
