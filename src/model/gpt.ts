/**
 * The policy network: a decoder-only GPT (nanoGPT's model.py, GPT-2 layout) on TensorFlow.js.
 * Learned token + position embeddings, pre-LayerNorm blocks, causal multi-head attention with a
 * large finite negative mask (-1e9, never -Infinity: WGSL may assume no Inf), GELU MLP, output
 * head tied to the token embedding. Seeded CPU init ⇒ identical weights on every backend.
 * Imports tfjs only; the GPT object owns its variables until dispose().
 */
import * as tf from '@tensorflow/tfjs';
import { paramSpecs, type GPTConfig, type ParamSpec } from '../core/gpt-config';
import { addPositions, embed, layerNorm, linear, matmul, mlp, takeRows } from './layers';
import { cachedAttention, selfAttention } from './kernels/attention';
import { transpose2d } from './kernels/rowwise';
import { Prng } from '../core/prng';

/** Additive attention mask value: large and finite (see header). */
export const MASK = -1e9;

/** Options of the general forward pass (the sampler's prefill and decode use all of them). */
interface ForwardOptions {
  /** Positions (B, T) int32 for left-padded rows; default 0..T-1 on every row. */
  pos?: tf.Tensor2D;
  /** Additive attention bias (B or 1, 1, T, S): 0 where a query may look, MASK elsewhere. Default causal. */
  bias?: tf.Tensor4D;
  /**
   * Maps this call's keys and values of layer l, (B, T, C) each with heads side by side, to those
   * attended over, (B, S, C) each: a KV cache when decoding. Runs inside the forward's tidy: the
   * hook must tf.keep what it stores.
   */
  kv?: (layer: number, k: tf.Tensor3D, v: tf.Tensor3D) => [tf.Tensor3D, tf.Tensor3D];
  /** Logits of the last position only: (B, V) instead of (B*T, V). */
  lastOnly?: boolean;
  /** Logits of these flat positions (indices into B*T, distinct) only: (N, V); the last block after its attention runs on them alone. */
  at?: tf.Tensor1D;
}

export class GPT {
  readonly config: GPTConfig;
  readonly specs: readonly ParamSpec[];
  /** Parameters by name, in paramSpecs order. */
  readonly params: ReadonlyMap<string, tf.Variable>;
  private readonly causalBiases = new Map<number, tf.Tensor4D>();

  private constructor(config: GPTConfig, values: Float32Array[]) {
    this.config = config;
    this.specs = paramSpecs(config);
    const params = new Map<string, tf.Variable>();
    this.specs.forEach((s, i) => {
      const n = s.shape.reduce((a, d) => a * d, 1);
      if (values[i]?.length !== n)
        throw new Error(`parameter ${s.name} needs ${n} values, got ${values[i]?.length}`);
      const init = tf.tensor(values[i], s.shape, 'float32');
      params.set(s.name, tf.variable(init, true)); // the variable holds its own copy
      init.dispose();
    });
    this.params = params;
  }

  /**
   * A fresh model; the same seed gives identical weights on every backend. GPT-2 init: N(0, 0.02),
   * residual projections N(0, 0.02/√(2L)) so the residual stream's variance doesn't grow with depth.
   */
  static create(config: GPTConfig, seed: number): GPT {
    const rng = new Prng(seed);
    const values = paramSpecs(config).map((s) => {
      const n = s.shape.reduce((a, d) => a * d, 1);
      if (s.init === 'zeros') return new Float32Array(n);
      if (s.init === 'ones') return new Float32Array(n).fill(1);
      const std = s.init === 'proj' ? 0.02 / Math.sqrt(2 * config.nLayers) : 0.02;
      return normals(rng, n, std);
    });
    return GPT.fromValues(config, values);
  }

  /** A model holding the given values (one Float32Array per paramSpecs entry, in order). */
  static fromValues(config: GPTConfig, values: Float32Array[]): GPT {
    if (values.length !== paramSpecs(config).length)
      throw new Error(`expected ${paramSpecs(config).length} parameter arrays, got ${values.length}`);
    return new GPT(config, values);
  }

  /** Trainable variables in paramSpecs order. */
  get variables(): tf.Variable[] {
    return [...this.params.values()];
  }

  numParams(): number {
    return this.specs.reduce((a, s) => a + s.shape.reduce((x, d) => x * d, 1), 0);
  }

  private p<R extends tf.Rank>(name: string): tf.Tensor<R> {
    const v = this.params.get(name);
    if (!v) throw new Error(`model has no parameter ${name}`);
    return v as unknown as tf.Tensor<R>;
  }

  /** Additive causal bias (1, 1, T, T), cached per T and owned by the model. */
  causalBias(T: number): tf.Tensor4D {
    let bias = this.causalBiases.get(T);
    if (!bias) {
      const data = new Float32Array(T * T);
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) data[i * T + j] = MASK;
      bias = tf.keep(tf.tensor4d(data, [1, 1, T, T]));
      this.causalBiases.set(T, bias);
    }
    return bias;
  }

  /** Logits (B, T, V) of right-padded rows ids (B, T) int32, divided by `temperature`. Caller disposes. */
  logits(ids: tf.Tensor2D, temperature = 1): tf.Tensor3D {
    const [B, T] = ids.shape;
    return tf.tidy(() => {
      const logits = this.forward(ids); // (B*T, V)
      const scaled = temperature === 1 ? logits : tf.div(logits, temperature);
      return tf.reshape(scaled, [B, T, this.config.vocabSize]); // (B, T, V)
    });
  }

  /** The forward pass: ids (B, T) int32 → logits (B*T, V), or (B, V) with lastOnly, (N, V) with `at`. Caller disposes. */
  forward(ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor2D {
    const [B, T] = ids.shape;
    const { dModel: C, contextLength } = this.config;
    if (T > contextLength)
      throw new Error(`sequence length ${T} exceeds the model's context ${contextLength}`);
    return tf.tidy(() => {
      const tok = embed(tf.reshape(ids, [-1]), this.p('wte')); // (B*T, C)
      let x: tf.Tensor2D;
      if (opts.pos) {
        x = tf.add(tok, embed(tf.reshape(opts.pos, [-1]), this.p('wpe'))); // (B*T, C)
      } else {
        const wpe = tf.slice(this.p<tf.Rank.R2>('wpe'), [0, 0], [T, C]); // (T, C)
        x = tf.reshape(addPositions(tf.reshape(tok, [B, T, C]), wpe), [B * T, C]); // (B*T, C)
      }
      const bias = opts.bias ?? this.causalBias(T);
      for (let l = 0; l < this.config.nLayers; l++) {
        const h = `h${l}.`;
        // With `at`, the last block's keys and values still come from every position, but all that
        // follows its attention is position-wise: it runs on the `at` rows alone.
        const at = l === this.config.nLayers - 1 ? opts.at : undefined;
        const a = this.attention(
          l,
          layerNorm(x, this.p(h + 'ln1.g'), this.p(h + 'ln1.b')),
          B,
          T,
          bias,
          opts.kv,
          at,
        ); // (N, C)
        x = tf.add(at ? takeRows(x, at) : x, a); // (N, C): N = B*T, or the `at` rows
        const xn = layerNorm(x, this.p(h + 'ln2.g'), this.p(h + 'ln2.b')); // (N, C)
        x = tf.add(
          x,
          mlp(xn, this.p(h + 'mlp.w1'), this.p(h + 'mlp.b1'), this.p(h + 'mlp.w2'), this.p(h + 'mlp.b2')),
        ); // (N, C) through (N, M)
      }
      if (opts.lastOnly) x = tf.reshape(tf.slice(tf.reshape(x, [B, T, C]), [0, T - 1, 0], [B, 1, C]), [B, C]); // (B, C)
      x = layerNorm(x, this.p('lnf.g'), this.p('lnf.b'));
      return matmul(x, transpose2d(this.p<tf.Rank.R2>('wte'))); // (N, V): tied output head
    });
  }

  /** Causal self-attention of layer l over x (B*T, C) → (B*T, C), or the `at` rows of it. */
  private attention(
    l: number,
    x: tf.Tensor2D,
    B: number,
    T: number,
    bias: tf.Tensor4D,
    kv: ForwardOptions['kv'],
    at?: tf.Tensor1D,
  ): tf.Tensor2D {
    const { dModel: C, nHeads: H } = this.config;
    const h = `h${l}.attn.`;
    const qkv = linear(x, this.p(h + 'wqkv'), this.p(h + 'bqkv')); // (B*T, 3C): q, k, v side by side
    let y: tf.Tensor2D;
    if (!kv) {
      y = selfAttention(qkv, bias, B, H); // (B*T, C), heads merged
    } else {
      const [q, k, v] = tf.split(qkv, 3, 1); // 3 × (B*T, C)
      const [keys, values] = kv(l, tf.reshape(k, [B, T, C]), tf.reshape(v, [B, T, C])); // 2 × (B, S, C)
      y = cachedAttention(q as tf.Tensor2D, keys, values, bias, H); // (B*T, C)
    }
    if (at) y = takeRows(y, at); // (N, C)
    return linear(y, this.p(h + 'wo'), this.p(h + 'bo')); // (B*T or N, C)
  }

  /** Copies every weight from a model of the same config (e.g. to freeze a reference policy). */
  assignFrom(other: GPT): void {
    if (JSON.stringify(other.config) !== JSON.stringify(this.config))
      throw new Error('assignFrom: model configs differ');
    for (const [name, v] of this.params) v.assign(other.params.get(name)!);
  }

  /** Frees the variables and cached masks. The model is unusable afterwards. */
  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    for (const b of this.causalBiases.values()) b.dispose();
    this.causalBiases.clear();
  }
}

/** `n` draws from N(0, std²) by Box–Muller: deterministic weight init on the CPU. */
function normals(rng: Prng, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - rng.next(); // (0, 1]: log(0) would be -Infinity
    const u2 = rng.next();
    const r = Math.sqrt(-2 * Math.log(u1)) * std;
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}
