/**
 * The update's loss terms run each distinct row of a term once, packed in length groups
 * (lengthGroups), and copy its log-probs to the rows that repeat it: the loss, its diagnostics and
 * its gradient must be those of every row packed as one padded batch, with the aggregation weights
 * of the whole mini-batch (B = its rows), within float32 rounding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { aggregationWeights } from '../rl/reference-loss';
import { OptimSchema, type Optim } from '../../src/core/config-sections';
import { lengthGroups, packRows, toTensors, tokenLogprobs, disposeBatch } from '../../src/model/logprobs';
import { AdamW } from '../../src/model/optim';
import type { Role } from '../../src/core/vocab';
import type { Row } from '../../src/tasks/orchestrator';
import type { PolicyModel } from '../../src/train/models';
import type { SampledTokens } from '../../src/train/policy';
import { ppoLoss } from '../../src/train/ppo-loss';
import { lossTerms } from '../../src/train/ppo-update';
import { maxAbsDiff, scatterResponses, tinyModel, useBackend } from '../model/helpers';

const CONTEXT = 64;

/** Rows of two agents with lengths from 4 to 60 positions: several length groups. */
function makeRows(n: number, agents: readonly Role[], seed: number): Row<SampledTokens>[] {
  let s = seed;
  const rand = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const ids = (k: number) => Array.from({ length: k }, () => 3 + Math.floor(rand() * 70));
  return Array.from({ length: n }, (_, i) => {
    const promptIds = [1, ...ids(2 + Math.floor(rand() ** 2 * 45))];
    const responseIds = ids(1 + Math.floor(rand() * 12));
    return {
      agent: agents[i % agents.length],
      group: 0,
      traj: i,
      turn: 0,
      reward: 0,
      response: '',
      promptIds,
      responseIds,
      oldLogp: responseIds.map(() => -4.3 + rand()),
      stop: 'eos',
    } as unknown as Row<SampledTokens>;
  });
}

/** The reference: all rows in one padded batch (B = the rows), one masked term per agent. */
function oneBatchTerms(
  m: PolicyModel,
  rows: readonly Row<SampledTokens>[],
  adv: Float64Array,
  optim: Optim,
  agents: readonly (Role | null)[],
) {
  const cfg = m.model.config;
  const packed = packRows(
    rows.map((r) => ({ prompt: r.promptIds, response: r.responseIds })),
    { contextLength: cfg.contextLength, vocabSize: cfg.vocabSize, pad: 0, batchMultiple: 1 },
  );
  const { B, T } = packed;
  const w = aggregationWeights(optim.lossAgg, { mask: packed.mask, B, T, lMax: 13 });
  const batch = toTensors(packed);
  const oldLogp = tf.tensor2d(
    scatterResponses(
      packed,
      rows.map((r) => r.oldLogp),
    ),
    [B, T],
  );
  const advT = tf.tensor2d(
    scatterResponses(
      packed,
      rows.map((r, b) => r.responseIds.map(() => adv[b])),
    ),
    [B, T],
  );
  const refLogp = m.ref ? tf.tidy(() => tokenLogprobs(m.ref!, batch).logp) : undefined;
  const terms = agents.map((agent) => () => {
    const sel = Float32Array.from({ length: B * T }, (_, j) =>
      agent === null || rows[Math.floor(j / T)].agent === agent ? 1 : 0,
    );
    const { logp, entropy } = tokenLogprobs(m.model, batch);
    const mask = tf.mul(batch.mask, tf.tensor2d(sel, [B, T])) as tf.Tensor2D;
    const weights = tf.tensor2d(
      Float32Array.from(w, (x, j) => x * sel[j]),
      [B, T],
    );
    return ppoLoss(
      { logp, entropy, oldLogp, adv: advT, mask, weights, ...(refLogp ? { refLogp } : {}) },
      optim,
    );
  });
  return {
    terms,
    dispose: () => (disposeBatch(batch), tf.dispose([oldLogp, advT, ...(refLogp ? [refLogp] : [])])),
  };
}

type Term = () => { loss: tf.Scalar; stats: tf.Tensor; tokens: tf.Scalar };

/** A term's loss, stats (its token count last) and gradient, read back. */
async function evaluate(term: Term, vars: tf.Variable[]) {
  let stats: tf.Tensor | undefined;
  const { value, grads } = tf.variableGrads(() => {
    const out = term();
    stats = tf.keep(tf.concat([out.stats, tf.reshape(out.tokens, [1])]));
    return out.loss;
  }, vars);
  const g = tf.concat(vars.map((v) => tf.reshape(grads[v.name], [-1])));
  const out = { loss: (await value.data())[0], stats: Array.from(await stats!.data()), grad: await g.data() };
  tf.dispose([value, stats!, g, ...Object.values(grads)]);
  return out;
}

describe('loss terms on distinct rows in length groups', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => tf.disposeVariables());

  const cases = [
    { lossAgg: 'token-mean', klCoef: 0, entropyCoef: 0 },
    { lossAgg: 'seq-mean-token-mean', klCoef: 0.1, entropyCoef: 0.01 },
  ] as const;
  it.each(cases)(
    '$lossAgg (KL $klCoef, entropy $entropyCoef): loss, stats and gradient of one padded batch within 1e-5',
    async (c) => {
      const optim = OptimSchema.parse(c);
      // 40 rows and 16 copies of some of them (the same prompt and response, as a group's rollouts often have).
      const made = makeRows(40, ['verifier', 'search'], 3);
      const rows = [...made, ...made.slice(0, 16).map((r, i) => ({ ...r, traj: 40 + i }))];
      const adv = Float64Array.from(rows, (_, i) => Math.sin(i * 1.7) * 1.4);
      const idx = rows.map((_, i) => i);
      // The grouping under test is not trivial: rows of 4 to 60 positions fall in several groups.
      const lengths = rows.map((r) => r.promptIds.length + r.responseIds.length);
      expect(lengthGroups(lengths, { contextLength: CONTEXT }).length).toBeGreaterThan(1);
      for (const agents of [['verifier'], ['verifier', 'search']] as Role[][]) {
        const model = tinyModel(4, { contextLength: CONTEXT });
        const m: PolicyModel = {
          id: agents.join('+'),
          preset: 'nano',
          agents,
          model,
          opt: new AdamW(model, { lr: 1e-3, clipNorm: 1 }),
          ref: c.klCoef ? tinyModel(5, { contextLength: CONTEXT }) : null,
        };
        const own = agents.length === 1 ? idx.filter((i) => rows[i].agent === agents[0]) : idx;
        const grouped = lossTerms(m, rows, adv, own, { optim, temperature: 1, lMax: 13, seed: 0 });
        const reference = oneBatchTerms(
          m,
          own.map((i) => rows[i]),
          Float64Array.from(own, (i) => adv[i]),
          optim,
          agents.length === 1 ? [null] : agents,
        );
        expect(grouped.terms.length).toBe(reference.terms.length);
        // Each term's 20 distinct rows go through the model once (exact B on wasm), not its 28 rows.
        for (const t of grouped.termInputs)
          expect(t.batches.reduce((n, b) => n + b.inputs.shape[0], 0)).toBe(20);
        for (let k = 0; k < grouped.terms.length; k++) {
          const got = await evaluate(grouped.terms[k] as Term, model.variables);
          const want = await evaluate(reference.terms[k], model.variables);
          expect(Math.abs(got.loss - want.loss)).toBeLessThan(1e-5);
          expect(Math.abs(want.loss)).toBeGreaterThan(1e-3);
          expect(maxAbsDiff(got.stats, want.stats)).toBeLessThan(
            1e-4 * Math.max(1, ...want.stats.map(Math.abs)),
          );
          expect(maxAbsDiff(got.grad, want.grad)).toBeLessThan(1e-5);
          expect(Math.max(...Array.from(want.grad, Math.abs))).toBeGreaterThan(1e-3);
        }
        grouped.dispose();
        reference.dispose();
        m.opt.dispose();
        model.dispose();
        m.ref?.dispose();
      }
    },
  );
});

describe('lengthGroups', () => {
  it('cuts sorted rows only where the length bucket changes, and only where the padding saved pays for a pass', () => {
    // 40 rows of 17 positions and 40 of 64: two groups (one batch would pad 40 rows by 47 positions).
    const lengths = [...Array.from({ length: 40 }, () => 65), ...Array.from({ length: 40 }, () => 18)];
    const groups = lengthGroups(lengths, { contextLength: 128 });
    expect(groups.map((g) => g.length)).toEqual([40, 40]);
    expect(groups[0].every((i) => i >= 40)).toBe(true); // shortest first
    // One short row among long ones rides with them: a pass of its own costs more than its padding.
    expect(
      lengthGroups([65, 65, 65, 65, 65, 65, 65, 18], { contextLength: 128 }).map((g) => g.length),
    ).toEqual([8]);
    // Rows of one bucket are never split, and every row is in exactly one group.
    const mixed = Array.from({ length: 90 }, (_, i) => 5 + ((i * 37) % 100));
    const g = lengthGroups(mixed, { contextLength: 128 });
    expect(g.flat().sort((a, b) => a - b)).toEqual(mixed.map((_, i) => i));
    const T = (n: number) => Math.ceil((n - 1) / 16);
    for (let k = 1; k < g.length; k++) expect(T(mixed[g[k][0]])).toBeGreaterThan(T(mixed[g[k - 1].at(-1)!]));
    expect(lengthGroups([], { contextLength: 128 })).toEqual([]);
  });
});
