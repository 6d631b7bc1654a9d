/**
 * Batched autoregressive sampling with a KV cache: one forward per new token over the whole
 * batch, ONE logits readback per decode step, sampling on the CPU with a seeded generator per
 * trajectory (never tf.multinomial: broken on webgpu and cpu, docs/backends.md#ops-to-avoid).
 * Prompts are left-padded to a bucketed length P and the cache has a bucketed number of slots S,
 * so every decode step has the same shapes (shaders compile once, the WebGPU pool stays bounded).
 */
import * as tf from '@tensorflow/tfjs';
import { MASK, type GPT } from './gpt';
import { bucket } from './logprobs';
import { writeCacheSlot } from './kernels/attention';
import { cachedForward, fusedDecodeAvailable, type DecodeState } from './kernels/decode';
import { Prng } from '../core/prng';

export interface SampleOptions {
  /** Length limit of each response (EOS included). */
  maxNewTokens: number;
  /** One seed per prompt: rollouts of one prompt with different seeds differ, equal seeds repeat. */
  seeds: readonly number[];
  /** Divides the logits; 0 means greedy. Default 1. */
  temperature?: number;
  /** Nucleus sampling: draw from the smallest set of tokens with mass ≥ topP. Default 1 (off). */
  topP?: number;
  eos: number;
  pad: number;
  /** false recomputes the whole prefix every step (for tests and the benchmark). Default true. */
  useCache?: boolean;
  /** Batch rounded up to a multiple of this (default 8); prompt and cache lengths to `lengthMultiple` (16). */
  batchMultiple?: number;
  lengthMultiple?: number;
  /** Sees each step's read-back logits (B*V, padded rows included), e.g. to compare cache vs recompute. */
  onLogits?: (step: number, logits: Float32Array) => void;
}

interface Sample {
  tokens: number[];
  /**
   * log-prob of each token under softmax(logits / temperature), before top-p truncation — what
   * tokenLogprobs(model, batch, temperature) recomputes, as verl recomputes old_log_prob with the
   * rollout temperature. Greedy decoding reports temperature-1 log-probs.
   */
  logp: number[];
  stop: 'eos' | 'length';
}

interface SampleResult {
  samples: Sample[];
  /** Forward passes and logits readbacks made (one each per decode step). */
  forwards: number;
  readbacks: number;
}

/** Samples one response per prompt. The model's weights are only read. */
export async function sample(
  model: GPT,
  prompts: readonly (readonly number[])[],
  opts: SampleOptions,
): Promise<SampleResult> {
  const { vocabSize: V, contextLength: ctx, dModel } = model.config;
  const n = prompts.length;
  const maxNew = opts.maxNewTokens;
  const temperature = opts.temperature ?? 1;
  if (opts.seeds.length !== n) throw new Error(`sample: ${opts.seeds.length} seeds for ${n} prompts`);
  if (!(maxNew >= 1)) throw new Error(`sample: maxNewTokens must be ≥ 1, got ${maxNew}`);
  prompts.forEach((p, r) => {
    if (p.length === 0) throw new Error(`sample: prompt ${r} is empty`);
    p.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= V)
        throw new Error(`sample: prompt ${r} token ${i} is ${id}, outside 0..${V - 1}`);
    });
  });
  const longest = Math.max(...prompts.map((p) => p.length));
  if (longest + maxNew > ctx)
    throw new Error(`sample: prompt of ${longest} tokens + ${maxNew} new exceeds the context ${ctx}`);

  // ---- layout: row b's prompt right-aligned in slots [pads[b], P); new tokens from slot P on
  const lm = opts.lengthMultiple ?? 16;
  const B = bucket(n, opts.batchMultiple ?? 8);
  const P = Math.min(bucket(longest, lm), ctx - maxNew);
  const S = Math.min(ctx, bucket(P + maxNew, lm));
  const pads = Array.from({ length: B }, (_, b) => P - (b < n ? prompts[b].length : 1));
  const tokens = new Int32Array(B * S).fill(opts.pad);
  const positions = new Int32Array(B * S);
  for (let b = 0; b < B; b++) {
    if (b < n) tokens.set(prompts[b], b * S + pads[b]);
    for (let j = 0; j < S; j++) positions[b * S + j] = Math.max(0, j - pads[b]); // positions restart at each row's first token
  }
  const all = Array.from({ length: B }, (_, b) => b);
  const columns = (a: Int32Array, from: number, len: number, rows = all): tf.Tensor2D => {
    const out = new Int32Array(rows.length * len);
    rows.forEach((b, r) => out.set(a.subarray(b * S + from, b * S + from + len), r * len));
    return tf.tensor2d(out, [rows.length, len], 'int32'); // (rows, len)
  };
  // Query slots [q0, q0+Tq) may see keys j with pads[b] ≤ j ≤ query slot, among keys [0, Sk).
  const bias = (q0: number, Tq: number, Sk: number, rows = all): tf.Tensor4D => {
    const m = new Float32Array(rows.length * Tq * Sk).fill(MASK);
    rows.forEach((b, r) => {
      for (let i = 0; i < Tq; i++) m.fill(0, (r * Tq + i) * Sk + pads[b], (r * Tq + i) * Sk + q0 + i + 1);
    });
    return tf.tensor4d(m, [rows.length, 1, Tq, Sk]); // (rows, 1, Tq, Sk)
  };
  // Rows with the same prompt (a group's G rollouts) have the same prefix: the fused decode's prompt
  // step computes each distinct prompt once (`distinct`, one row each) and copies it to its rows (rowOf).
  const distinct: number[] = [];
  const rowOf = new Int32Array(B);
  const firstRow = new Map<string, number>();
  for (let b = 0; b < B; b++) {
    const key = b < n ? prompts[b].join(',') : 'padding row';
    if (!firstRow.has(key)) firstRow.set(key, distinct.push(b) - 1);
    rowOf[b] = firstRow.get(key)!;
  }

  // ---- decode loop: step 0 is the prompt (prefill), then one token per step
  const rngs: Prng[] = opts.seeds.map((s) => new Prng(s));
  const samples: Sample[] = prompts.map(() => ({ tokens: [], logp: [], stop: 'length' }));
  const done = new Array<boolean>(n).fill(false);
  let cacheK: tf.Tensor3D[] = []; // per layer (B, S, C), heads side by side
  let cacheV: tf.Tensor3D[] = []; // per layer (B, S, C)
  let forwards = 0;
  let readbacks = 0;
  // On wasm each step is one kernel writing into caches it owns (kernels/decode.ts); elsewhere the ops of model.forward.
  const fused: DecodeState | null =
    opts.useCache !== false && fusedDecodeAvailable()
      ? {
          config: model.config,
          params: model.params,
          wteT: tf.transpose(model.params.get('wte') as tf.Tensor2D),
          slots: S,
          keys: [],
          values: [],
        }
      : null;
  try {
    for (let step = 0; step < maxNew; step++) {
      const slot = P + step - 1; // the last filled slot; its logits give the next token
      let logits: tf.Tensor2D;
      if (fused) {
        const [from, len, rows] = step === 0 ? [0, P, distinct] : [slot, 1, all];
        const ids = columns(tokens, from, len, rows),
          pos = columns(positions, from, len, rows),
          b = bias(from, len, step === 0 ? P : S, rows);
        const map = step === 0 && distinct.length < B ? tf.tensor1d(rowOf, 'int32') : undefined;
        logits = cachedForward(fused, ids, pos, b, from, map); // (B, V)
        tf.dispose([ids, pos, b, ...(map ? [map] : [])]);
      } else if (step === 0 || opts.useCache === false) {
        const L = slot + 1;
        const ids = columns(tokens, 0, L),
          pos = columns(positions, 0, L),
          b = bias(0, L, L);
        const keep = step === 0 && opts.useCache !== false;
        const kv = (l: number, k: tf.Tensor3D, v: tf.Tensor3D): [tf.Tensor3D, tf.Tensor3D] => {
          cacheK[l] = tf.keep(tf.concat([k, tf.zeros([B, S - L, dModel])], 1)); // (B, S, C)
          cacheV[l] = tf.keep(tf.concat([v, tf.zeros([B, S - L, dModel])], 1)); // (B, S, C)
          return [k, v];
        };
        logits = model.forward(ids, { pos, bias: b, lastOnly: true, kv: keep ? kv : undefined }); // (B, V)
        tf.dispose([ids, pos, b]);
      } else {
        const ids = columns(tokens, slot, 1),
          pos = columns(positions, slot, 1),
          b = bias(slot, 1, S);
        const nextK: tf.Tensor3D[] = [],
          nextV: tf.Tensor3D[] = [];
        // The old caches are disposed right after and never read again: the write may reuse their buffers.
        const kv = (l: number, k: tf.Tensor3D, v: tf.Tensor3D): [tf.Tensor3D, tf.Tensor3D] => {
          nextK[l] = tf.keep(writeCacheSlot(cacheK[l], k, slot)); // (B, S, C)
          nextV[l] = tf.keep(writeCacheSlot(cacheV[l], v, slot)); // (B, S, C)
          return [nextK[l], nextV[l]];
        };
        logits = model.forward(ids, { pos, bias: b, lastOnly: true, kv }); // (B, V)
        tf.dispose([ids, pos, b, ...cacheK, ...cacheV]);
        cacheK = nextK;
        cacheV = nextV;
      }
      forwards++;
      const data = (await logits.data()) as Float32Array; // the one readback of this step
      logits.dispose();
      readbacks++;
      opts.onLogits?.(step, data);
      for (let r = 0; r < n; r++) {
        if (done[r]) continue;
        const { token, logp } = choose(
          data.subarray(r * V, (r + 1) * V),
          temperature,
          opts.topP ?? 1,
          rngs[r],
        );
        samples[r].tokens.push(token);
        samples[r].logp.push(logp);
        tokens[r * S + slot + 1] = token;
        if (token === opts.eos) {
          done[r] = true;
          samples[r].stop = 'eos';
        }
      }
      if (done.every(Boolean)) break;
    }
  } finally {
    tf.dispose([...cacheK, ...cacheV]);
    if (fused) tf.dispose([fused.wteT, ...fused.keys, ...fused.values]);
  }
  return { samples, forwards, readbacks };
}

/** choose's scratch, grown to the largest vocabulary seen: no allocation per row and step (choose is synchronous). */
let probs = new Float64Array(0);
/** The probabilities negated, for a sort without a comparator (ascending: the most probable first). */
let negated = new Float64Array(0);
/**
 * Tokens less probable than this, relative to the likeliest (whose probability is 1 here), are left
 * out of choose's first sort of the nucleus. At 1e-4 the tokens left out of a row of the lab's 89
 * hold under 0.9 % of its mass, so below top-p 0.99 the first sort always finds the nucleus.
 */
const NUCLEUS_FLOOR = 1e-4;
/** The candidates' floors, in turn: those above NUCLEUS_FLOOR, then (if they fall short of the nucleus) every token. */
const FLOORS = [NUCLEUS_FLOOR, 0] as const;

/** Draws one token from a row of logits; returns it with its log-prob (see Sample.logp). */
export function choose(
  logits: Float32Array,
  temperature: number,
  topP: number,
  rng: Prng,
): { token: number; logp: number } {
  const V = logits.length;
  const t = temperature > 0 ? temperature : 1;
  if (probs.length < V) probs = new Float64Array(V);
  const p = probs;
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, (p[i] = logits[i] / t)); // each x / t once
  let sum = 0;
  for (let i = 0; i < V; i++) sum += p[i] = Math.exp(p[i] - max);
  const logZ = max + Math.log(sum);
  let token = 0;
  if (temperature <= 0) {
    for (let i = 1; i < V; i++) if (logits[i] > logits[token]) token = i;
  } else if (topP >= 1) {
    // Every token, in index order: the nucleus is the whole vocabulary and its mass is sum.
    let u = rng.next() * sum;
    token = V - 1;
    for (let k = 0; k < V; k++) {
      u -= p[k];
      if (u < 0) {
        token = k;
        break;
      }
    }
  } else {
    // Candidates in descending probability, cut to the top-p nucleus. Sorted as numbers (a typed
    // array's sort calls no comparator: 89 tokens sorted with one took most of a draw); the drawn
    // token is then the one at its place among the tokens of its probability, in index order, as
    // a stable sort of the indices ordered them. Masses add up in the same order as theirs.
    // Only the tokens at least NUCLEUS_FLOOR as probable as the likeliest are sorted first: each
    // other token is less probable than every one of them, so a nucleus found among them is the
    // nucleus of a sort of all V, masses added in the same order. Where they do not make up the
    // nucleus, all V are sorted. On a peaked row that is a few tokens sorted instead of V.
    if (negated.length < V) negated = new Float64Array(V);
    const cut = topP * sum;
    let s = negated; // cut to the sorted candidates below
    let kept = 0,
      mass = 0;
    for (const floor of FLOORS) {
      let n = 0;
      for (let i = 0; i < V; i++) if (p[i] >= floor) negated[n++] = -p[i];
      s = negated.subarray(0, n).sort();
      kept = 0;
      mass = 0;
      while (kept < n && (kept === 0 || mass < cut)) mass -= s[kept++];
      if (n === V || mass >= cut) break; // the nucleus found, or every token sorted
    }
    let u = rng.next() * mass;
    let at = kept - 1;
    for (let k = 0; k < kept; k++) {
      u += s[k];
      if (u < 0) {
        at = k;
        break;
      }
    }
    let rank = 0;
    while (rank < at && s[at - rank - 1] === s[at]) rank++;
    for (let i = 0; i < V; i++) {
      if (p[i] !== -s[at]) continue;
      if (rank-- === 0) {
        token = i;
        break;
      }
    }
  }
  return { token, logp: logits[token] / t - logZ };
}
