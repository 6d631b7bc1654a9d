/**
 * Checkpoints as a pure in-memory format: a JSON manifest (preset, config, vocabulary, parameter
 * shapes, content hash, free-form recipe notes) plus the float32 weights in paramSpecs order, and a
 * single-file framing for downloads and files (scripts/pretrain.ts writes it, src/cli reads it). Anything corrupt,
 * truncated or mismatched is refused with a message saying what does not match. Imports tfjs only.
 */
import * as tf from '@tensorflow/tfjs';
import { VOCAB } from '../core/vocab';
import { GPT } from './gpt';
import { checkGptConfig, paramSpecs, type GPTConfig } from './gpt-config';

export const FORMAT = 'agentwise-gpt';
export const VERSION = 1;
const MAGIC = 'AGWGPT01'; // 8 ASCII bytes opening a checkpoint file

export interface CheckpointManifest {
  format: typeof FORMAT;
  version: number;
  /** The preset the config came from, if any (informational). */
  preset?: string;
  config: GPTConfig;
  /** The vocabulary in id order: a checkpoint is only valid with the same token ids. */
  vocab: string[];
  params: { name: string; shape: number[] }[];
  /** Bytes of weights (4 × parameter count). */
  byteLength: number;
  /** Hash of the weight bytes (hashBytes): detects corruption, not tampering. */
  hash: string;
  /** Free-form recipe notes: data, steps, seed, commit... */
  notes: Record<string, unknown>;
}

export interface Checkpoint {
  manifest: CheckpointManifest;
  weights: ArrayBuffer;
}

/** Reads the model's weights (one batched readback) into a checkpoint. */
export async function saveCheckpoint(model: GPT, meta: { preset?: string; notes?: Record<string, unknown> } = {}): Promise<Checkpoint> {
  const flat = tf.tidy(() => tf.concat(model.variables.map((v) => tf.reshape(v, [-1])))); // (numParams)
  const data = (await flat.data()) as Float32Array;
  flat.dispose();
  return checkpointOf(model, data.slice(), meta);
}

/** A checkpoint of `model` from weights already read back, flattened in paramSpecs order. */
export function checkpointOf(model: GPT, values: Float32Array, meta: { preset?: string; notes?: Record<string, unknown> } = {}): Checkpoint {
  const whole = values.byteOffset === 0 && values.byteLength === values.buffer.byteLength;
  const weights = (whole ? values : values.slice()).buffer as ArrayBuffer;
  const manifest: CheckpointManifest = {
    format: FORMAT,
    version: VERSION,
    ...(meta.preset ? { preset: meta.preset } : {}),
    config: { ...model.config },
    vocab: [...VOCAB],
    params: model.specs.map((s) => ({ name: s.name, shape: [...s.shape] })),
    byteLength: weights.byteLength,
    hash: hashBytes(new Uint8Array(weights)),
    notes: meta.notes ?? {},
  };
  return { manifest, weights };
}

/** Throws, saying what does not match, unless the checkpoint is whole and fits this lab (and `config`, if given). */
export function verifyCheckpoint(ckpt: Checkpoint, expect: { vocab?: readonly string[]; config?: GPTConfig } = {}): void {
  const m = ckpt.manifest;
  if (m?.format !== FORMAT) throw new Error(`not an ${FORMAT} checkpoint (format is ${JSON.stringify(m?.format)})`);
  if (m.version !== VERSION) throw new Error(`checkpoint version ${m.version} is not supported (this lab reads version ${VERSION})`);
  const vocab = expect.vocab ?? VOCAB;
  if (!Array.isArray(m.vocab) || m.vocab.length !== vocab.length) throw new Error(`vocabulary size differs: checkpoint has ${m.vocab?.length}, this lab ${vocab.length}`);
  const at = m.vocab.findIndex((ch, i) => ch !== vocab[i]);
  if (at >= 0) throw new Error(`vocabulary differs at id ${at}: checkpoint has ${JSON.stringify(m.vocab[at])}, this lab ${JSON.stringify(vocab[at])}`);
  if (m.config?.vocabSize !== vocab.length) throw new Error(`config.vocabSize ${m.config?.vocabSize} does not match the vocabulary's ${vocab.length}`);
  if (expect.config) {
    for (const key of Object.keys(expect.config) as (keyof GPTConfig)[]) {
      if (m.config[key] !== expect.config[key]) throw new Error(`config differs: ${key} is ${m.config[key]} in the checkpoint, ${expect.config[key]} in the model`);
    }
  }
  // Sizes from the header are bounded before anything is built from them.
  checkGptConfig(m.config);
  const specs = paramSpecs(m.config);
  if (!Array.isArray(m.params)) throw new Error('checkpoint has no parameter list');
  if (m.params.length !== specs.length) throw new Error(`checkpoint lists ${m.params?.length} parameters; its config needs ${specs.length}`);
  specs.forEach((s, i) => {
    const p = m.params[i];
    if (p?.name !== s.name || !Array.isArray(p.shape) || p.shape.join() !== s.shape.join()) {
      throw new Error(`parameter ${i} is ${p.name} [${p.shape}] in the checkpoint, but its config needs ${s.name} [${s.shape}]`);
    }
  });
  const need = 4 * specs.reduce((a, s) => a + s.shape.reduce((x, d) => x * d, 1), 0);
  if (m.byteLength !== need) throw new Error(`manifest says ${m.byteLength} weight bytes; its parameters need ${need}`);
  if (ckpt.weights.byteLength !== need) throw new Error(`weights truncated or padded: ${ckpt.weights.byteLength} bytes, expected ${need}`);
  const hash = hashBytes(new Uint8Array(ckpt.weights));
  if (hash !== m.hash) throw new Error(`content hash mismatch: manifest says ${m.hash}, weights hash to ${hash} (corrupt file?)`);
}

/** A new model from a verified checkpoint. Caller disposes the model. */
export function loadCheckpoint(ckpt: Checkpoint, expect: { vocab?: readonly string[]; config?: GPTConfig } = {}): GPT {
  verifyCheckpoint(ckpt, expect);
  return GPT.fromValues(ckpt.manifest.config, splitWeights(ckpt));
}

/** Overwrites an existing model's weights (same config required), e.g. to reset to a base model. */
export function loadCheckpointInto(model: GPT, ckpt: Checkpoint): void {
  verifyCheckpoint(ckpt, { config: model.config });
  const values = splitWeights(ckpt);
  tf.tidy(() => model.variables.forEach((v, i) => v.assign(tf.tensor(values[i], v.shape, 'float32'))));
}

function splitWeights(ckpt: Checkpoint): Float32Array[] {
  let offset = 0;
  return ckpt.manifest.params.map((p) => {
    const n = p.shape.reduce((a, d) => a * d, 1);
    const values = new Float32Array(ckpt.weights, 4 * offset, n);
    offset += n;
    return values;
  });
}

/** One file: MAGIC (8 bytes) | manifest byte length (u32 LE) | manifest UTF-8 | zero pad to 4 | weights. */
export function encodeCheckpoint(ckpt: Checkpoint): Uint8Array {
  return encodeFramed(MAGIC, ckpt.manifest, ckpt.weights);
}

/** Parses encodeCheckpoint's framing and verifies the result (verifyCheckpoint). */
export function decodeCheckpoint(bytes: Uint8Array | ArrayBuffer, expect: { vocab?: readonly string[]; config?: GPTConfig } = {}): Checkpoint {
  const { manifest, payload } = decodeFramed<CheckpointManifest>(MAGIC, 'Agentwise checkpoint', bytes);
  const ckpt = { manifest, weights: payload };
  verifyCheckpoint(ckpt, expect);
  return ckpt;
}

/**
 * The framing shared by every binary file of the lab: an 8-byte ASCII magic | JSON length (u32 LE)
 * | JSON | zero pad to 4 | payload. The pad keeps the payload float32-aligned for zero-copy views.
 */
export function encodeFramed(magic: string, manifest: unknown, payload: ArrayBuffer): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(manifest));
  const start = Math.ceil((12 + json.length) / 4) * 4;
  const out = new Uint8Array(start + payload.byteLength);
  out.set(new TextEncoder().encode(magic), 0);
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 12);
  out.set(new Uint8Array(payload), start);
  return out;
}

/** Splits encodeFramed's bytes; `what` names the kind of file in errors. Checks only the framing. */
export function decodeFramed<T>(magic: string, what: string, bytes: Uint8Array | ArrayBuffer): { manifest: T; payload: ArrayBuffer } {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < 12 || new TextDecoder().decode(b.subarray(0, 8)) !== magic) throw new Error(`not an ${what} file (bad magic bytes)`);
  const jsonLength = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(8, true);
  if (12 + jsonLength > b.length) throw new Error(`${what} truncated: manifest of ${jsonLength} bytes, only ${b.length - 12} present`);
  let manifest: T;
  try {
    manifest = JSON.parse(new TextDecoder().decode(b.subarray(12, 12 + jsonLength)));
  } catch (e) {
    throw new Error(`${what} manifest is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  const start = Math.ceil((12 + jsonLength) / 4) * 4;
  // A fresh, exact-length copy: aligned, and independent of the input (a Node Buffer may be a view
  // into a shared pool, where .slice() would not copy).
  return { manifest, payload: new Uint8Array(b.subarray(start)).buffer as ArrayBuffer };
}

/**
 * 64-bit hex hash of bytes: two 32-bit multiply-xorshift lanes (murmur3-style mixing) over the
 * bytes, with the length folded in. Fast in plain JS; not cryptographic.
 */
export function hashBytes(bytes: Uint8Array): string {
  let h1 = 0x811c9dc5 ^ bytes.length;
  let h2 = 0x01000193 ^ Math.imul(bytes.length, 0x9e3779b1);
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i], 0x01000193);
    h2 = Math.imul(h2 ^ bytes[i], 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  const fin = (h: number): number => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  return fin(h1).toString(16).padStart(8, '0') + fin(h2 ^ h1).toString(16).padStart(8, '0');
}
