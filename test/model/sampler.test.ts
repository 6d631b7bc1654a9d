import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { disposeBatch, packRows, tokenLogprobs, toTensors } from '../../src/model/logprobs';
import { Prng } from '../../src/core/prng';
import { choose, sample, type SampleOptions } from '../../src/model/sampler';
import { tokenizer } from '../../src/model/tokenizer';
import { BACKENDS, gatherResponses, maxAbsDiff, tinyModel, useBackend } from './helpers';

const prompts = ['\uE001what is 2+3?\uE012', '\uE001hi\uE012', '\uE001a longer prompt here\uE012'].map((s) =>
  tokenizer.encode(s),
);
const base = (over: Partial<SampleOptions> = {}): SampleOptions => ({
  maxNewTokens: 8,
  seeds: [11, 12, 13],
  eos: tokenizer.eos,
  pad: tokenizer.pad,
  ...over,
});

describe.each(BACKENDS)('sampler on %s', (backend) => {
  afterAll(() => tf.disposeVariables());

  it('KV-cache logits equal full-recompute logits and unpadded single-row logits within 1e-4', async () => {
    await useBackend(backend);
    const m = tinyModel(3);
    const V = m.config.vocabSize;
    const cached: Float32Array[] = [];
    const recomputed: Float32Array[] = [];
    const a = await sample(m, prompts, base({ onLogits: (_, d) => cached.push(d.slice()) }));
    const b = await sample(
      m,
      prompts,
      base({ useCache: false, onLogits: (_, d) => recomputed.push(d.slice()) }),
    );
    expect(a.samples.map((x) => x.tokens)).toEqual(b.samples.map((x) => x.tokens));
    expect(cached.length).toBe(recomputed.length);
    cached.forEach((c, s) => expect(maxAbsDiff(c, recomputed[s])).toBeLessThan(1e-4));
    // Each row alone, unpadded, positions from 0: the padding and position layout change nothing.
    for (let r = 0; r < prompts.length; r++) {
      const seq = [...prompts[r], ...a.samples[r].tokens];
      const ids = tf.tensor2d(seq, [1, seq.length], 'int32');
      const logits = m.logits(ids);
      const full = await logits.data();
      tf.dispose([ids, logits]);
      a.samples[r].tokens.forEach((_, s) => {
        const at = prompts[r].length - 1 + s;
        expect(
          maxAbsDiff(full.slice(at * V, (at + 1) * V), cached[s].slice(r * V, (r + 1) * V)),
        ).toBeLessThan(1e-4);
      });
    }
    m.dispose();
  });

  it('same seeds ⇒ same samples; G rollouts of one prompt differ; one readback per step', async () => {
    await useBackend(backend);
    const m = tinyModel(4);
    const G = 6;
    const group = Array.from({ length: G }, () => prompts[0]);
    const seeds = Array.from({ length: G }, (_, i) => 100 + i);
    const r1 = await sample(m, group, base({ seeds, maxNewTokens: 12 }));
    const r2 = await sample(m, group, base({ seeds, maxNewTokens: 12 }));
    expect(r1.samples).toEqual(r2.samples);
    expect(new Set(r1.samples.map((s) => s.tokens.join(','))).size).toBe(G);
    expect(r1.readbacks).toBe(r1.forwards);
    expect(r1.forwards).toBeLessThanOrEqual(12);
    m.dispose();
  });

  it('reports log-probs that tokenLogprobs recomputes at the same temperature', async () => {
    await useBackend(backend);
    const m = tinyModel(5);
    const temperature = 0.7;
    const res = await sample(m, prompts, base({ temperature, topP: 0.9 }));
    const rows = prompts.map((p, r) => ({ prompt: p, response: res.samples[r].tokens }));
    const packed = packRows(rows, { contextLength: 32, vocabSize: m.config.vocabSize, pad: tokenizer.pad });
    const batch = toTensors(packed);
    const { logp, entropy } = tokenLogprobs(m, batch, temperature);
    const got = gatherResponses(packed, await logp.data());
    got.forEach((lp, r) => expect(maxAbsDiff(lp, res.samples[r].logp)).toBeLessThan(1e-4));
    tf.dispose([logp, entropy]);
    disposeBatch(batch);
    m.dispose();
  });

  it('stops at EOS or the length limit and leaks no tensors', async () => {
    await useBackend(backend);
    const m = tinyModel(6);
    const before = tf.memory().numTensors;
    const res = await sample(
      m,
      prompts.slice(0, 2),
      base({ seeds: [1, 2], maxNewTokens: 16, temperature: 3 }),
    );
    expect(tf.memory().numTensors).toBe(before);
    for (const s of res.samples) {
      const eosAt = s.tokens.indexOf(tokenizer.eos);
      if (s.stop === 'eos') expect(eosAt).toBe(s.tokens.length - 1);
      else expect([eosAt, s.tokens.length]).toEqual([-1, 16]);
    }
    await expect(sample(m, prompts, base({ maxNewTokens: 20 }))).rejects.toThrow(/exceeds the context 32/);
    await expect(sample(m, [[999]], base({ seeds: [1] }))).rejects.toThrow(/outside/);
    m.dispose();
  });
});

describe('choose (CPU sampling from one row of logits)', () => {
  const logits = new Float32Array([2, 1, 0.5, -1, -3]);

  it('greedy picks the argmax; top-p keeps only the nucleus', () => {
    expect(choose(logits, 0, 1, new Prng(1)).token).toBe(0);
    const rng = new Prng(2);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(choose(logits, 1, 0.5, rng).token);
    expect([...seen]).toEqual([0]); // p(0) ≈ 0.61 ≥ 0.5 alone
    for (let i = 0; i < 2000; i++) seen.add(choose(logits, 1, 1, rng).token);
    expect(seen.size).toBe(5);
  });

  it('follows the temperature-scaled distribution and reports its log-prob', () => {
    const rng = new Prng(3);
    const counts = new Array(5).fill(0);
    const t = 2;
    const z = Array.from(logits, (l) => Math.exp(l / t));
    const sum = z.reduce((a, b) => a + b, 0);
    for (let i = 0; i < 20000; i++) {
      const { token, logp } = choose(logits, t, 1, rng);
      counts[token]++;
      expect(logp).toBeCloseTo(Math.log(z[token] / sum), 5);
    }
    counts.forEach((c, i) => expect(c / 20000).toBeCloseTo(z[i] / sum, 1));
  });

  it('draws the very tokens a full stable sort of the nucleus drew: ties, flat and peaked rows, every top-p', () => {
    /** The nucleus by sorting every token, descending, ties in index order (as choose once did). */
    const bySort = (row: Float32Array, t: number, topP: number, rng: Prng) => {
      const m = Math.max(...Array.from(row, (l) => l / t));
      const p = Array.from(row, (l) => Math.exp(l / t - m));
      let sum = 0;
      for (const x of p) sum += x;
      const o = p.map((_, i) => i).sort((a, b) => p[b] - p[a]);
      let kept = 0,
        mass = 0;
      while (kept < p.length && (kept === 0 || mass < topP * sum)) mass += p[o[kept++]];
      let u = rng.next() * mass;
      for (let k = 0; k < kept; k++) if ((u -= p[o[k]]) < 0) return o[k];
      return o[kept - 1];
    };
    const gen = new Prng(11);
    let draws = 0;
    for (let row = 0; row < 400; row++) {
      const V = 89;
      // Peaked (a trained policy), flat (step 0), coarse values that tie often, and one likely token
      // over a tail just under choose's first cut (p < 1e-4 of the likeliest at t = 0.6) holding
      // about 0.5 % of the mass: there top-p 0.999 needs the tail, and choose sorts all V.
      const kind = row % 4;
      const spread = [8, 0.3, 2][kind];
      const logits = Float32Array.from({ length: V }, (_, i) => {
        if (kind === 3) return i === row % V ? 0 : -5.6 - gen.next() * 0.5;
        return kind === 2 ? Math.round(gen.next() * 4) * spread : (gen.next() * 2 - 1) * spread;
      });
      for (const topP of [0.1, 0.5, 0.9, 0.95, 0.999]) {
        const [a, b] = [new Prng(row), new Prng(row)];
        for (let i = 0; i < 5; i++, draws++)
          expect(choose(logits, 0.6, topP, a).token).toBe(bySort(logits, 0.6, topP, b));
      }
    }
    expect(draws).toBe(10_000);
  });
});
