// The same seeded model gives the same loss and gradients on cpu and wasm (tolerance 1e-5, docs/backends.md#numerical-agreement).
import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { disposeBatch, packRows, toTensors } from '../../src/model/logprobs';
import { AdamW } from '../../src/model/optim';
import { supervisedStep, nextTokenLoss } from '../../src/model/warmstart';
import { maxAbsDiff, tinyModel, useBackend } from './helpers';

const rows = [0, 1, 2, 3, 4].map((r) => ({
  prompt: [1, 20 + r, 21, 9 + r],
  response: [30 + r, 31, 32 + r, 33, 2],
}));

async function lossAndGrads(backend: string) {
  await useBackend(backend);
  const m = tinyModel(42);
  const batch = toTensors(packRows(rows, { contextLength: 32, vocabSize: 73, pad: 0 }));
  const { value, grads } = tf.variableGrads(() => nextTokenLoss(m, batch), m.variables);
  const loss = (await value.data())[0];
  const g = await Promise.all(m.variables.map((v) => grads[v.name].data()));
  tf.dispose([value, ...Object.values(grads)]);
  // Three AdamW steps: the losses stay together too.
  const opt = new AdamW(m, { lr: 1e-2 });
  const losses: number[] = [];
  for (let i = 0; i < 3; i++) losses.push((await supervisedStep(m, opt, batch)).loss);
  opt.dispose();
  disposeBatch(batch);
  m.dispose();
  return { loss, g, losses };
}

describe('cpu and wasm agree', () => {
  afterAll(() => tf.disposeVariables());

  it('loss and every gradient within 1e-5; 3 AdamW steps within 1e-5', async () => {
    const cpu = await lossAndGrads('cpu');
    const wasm = await lossAndGrads('wasm');
    expect(Math.abs(cpu.loss - wasm.loss)).toBeLessThan(1e-5);
    expect(cpu.loss).toBeGreaterThan(3); // ≈ log 73 at init
    cpu.g.forEach((g, i) => expect(maxAbsDiff(g, wasm.g[i])).toBeLessThan(1e-5));
    expect(maxAbsDiff(cpu.losses, wasm.losses)).toBeLessThan(1e-5);
    expect(cpu.losses[2]).toBeLessThan(cpu.losses[0]);
  });
});
