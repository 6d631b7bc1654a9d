/**
 * Checkpoints as a pure in-memory format: a JSON manifest (preset, config, vocabulary, parameter
 * shapes, content hash, free-form recipe notes) plus the float32 weights in paramSpecs order, and a
 * single-file framing for downloads and files (scripts/pretrain.ts writes it, src/cli reads it). Anything corrupt,
 * truncated or mismatched is refused with a message saying what does not match. Imports tfjs only.
 */
import * as tf from '@tensorflow/tfjs';
import { VOCAB } from '../core/vocab';
import { GPT } from './gpt';
import { checkGptConfig, paramSpecs, type GPTConfig } from '../core/gpt-config';
import { isEarlierVocab, migrateVocab } from './vocab-migration';
import { contentHash, decodeFramed, encodeFramed, hashBytes, headerHash, shown } from '../core/signed-file';

const FORMAT = 'agentwise-gpt';
/** 2: the hash covers the whole manifest, notes included (version 1's covered the weights only). */
export const VERSION = 2;
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
  /**
   * contentHash of every other field and of the weights (version 1: of the weights only). Detects
   * corruption and edits, not a forger who recomputes it.
   */
  hash: string;
  /** Per part (each field, each note, the weights) its own hash, so a refusal names what was edited. */
  fieldHashes?: Record<string, string>;
  /** Free-form recipe notes: data, steps, seed, commit... */
  notes: Record<string, unknown>;
}

export interface Checkpoint {
  manifest: CheckpointManifest;
  weights: ArrayBuffer;
  /**
   * Set by decodeCheckpoint when it migrated a file of an earlier vocabulary on load
   * (vocab-migration.ts): what a loader says beside it. Not part of any file.
   */
  migrated?: string;
}

/** Reads the model's weights (one batched readback) into a checkpoint. */
export async function saveCheckpoint(
  model: GPT,
  meta: { preset?: string; notes?: Record<string, unknown> } = {},
): Promise<Checkpoint> {
  const flat = tf.tidy(() => tf.concat(model.variables.map((v) => tf.reshape(v, [-1])))); // (numParams)
  const data = (await flat.data()) as Float32Array;
  flat.dispose();
  return checkpointOf(model, data.slice(), meta);
}

/** A checkpoint of `model` from weights already read back, flattened in paramSpecs order. */
export function checkpointOf(
  model: GPT,
  values: Float32Array,
  meta: { preset?: string; notes?: Record<string, unknown> } = {},
): Checkpoint {
  const whole = values.byteOffset === 0 && values.byteLength === values.buffer.byteLength;
  const weights = (whole ? values : values.slice()).buffer as ArrayBuffer;
  return signCheckpoint(checkpointHeader(model, meta), weights);
}

/** What a checkpoint of `model` says before its hashes (checkpointOf signs it over the weights). */
export type CheckpointHeader = Omit<CheckpointManifest, 'version' | 'hash' | 'fieldHashes'>;

/** The header of a checkpoint of `model`: what a run state read between two steps keeps unsigned. */
export function checkpointHeader(
  model: GPT,
  meta: { preset?: string; notes?: Record<string, unknown> } = {},
): CheckpointHeader {
  return {
    format: FORMAT,
    ...(meta.preset ? { preset: meta.preset } : {}),
    config: { ...model.config },
    vocab: [...VOCAB],
    params: model.specs.map((s) => ({ name: s.name, shape: [...s.shape] })),
    byteLength: model.numParams() * 4,
    notes: meta.notes ?? {},
  };
}

/** A checkpoint of the current version over `header` and `weights`: its hash and field hashes set. */
export function signCheckpoint(header: CheckpointHeader, weights: ArrayBuffer): Checkpoint {
  const { format, preset, config, vocab, params, byteLength, notes } = header;
  const unsigned = {
    ...{ format, version: VERSION, ...(preset ? { preset } : {}) },
    ...{ config, vocab, params, byteLength, notes },
  };
  const fieldHashes = Object.fromEntries(partHashes(unsigned, weights));
  const signed = { ...unsigned, fieldHashes };
  // The weights were just hashed for their field: fold that hash in rather than hash them again.
  return { manifest: { ...signed, hash: headerHash(signed, fieldHashes.weights) }, weights };
}

/** Throws, saying what does not match, unless the checkpoint is whole and fits this lab (and `config`, if given). */
export function verifyCheckpoint(
  ckpt: Checkpoint,
  expect: { vocab?: readonly string[]; config?: GPTConfig } = {},
): void {
  const m = ckpt.manifest;
  if (m?.format !== FORMAT)
    throw new Error(`not an ${FORMAT} checkpoint (format is ${JSON.stringify(m?.format)})`);
  if (m.version !== 1 && m.version !== VERSION)
    throw new Error(
      `checkpoint version ${shown(m.version)} is not supported (this lab reads versions 1–${VERSION})`,
    );
  const vocab = expect.vocab ?? VOCAB;
  if (!Array.isArray(m.vocab) || m.vocab.length !== vocab.length)
    throw new Error(
      `vocabulary size differs: checkpoint has ${shown(m.vocab?.length)}, this lab ${vocab.length}`,
    );
  const at = m.vocab.findIndex((ch, i) => ch !== vocab[i]);
  if (at >= 0)
    throw new Error(
      `vocabulary differs at id ${at}: checkpoint has ${JSON.stringify(m.vocab[at])}, this lab ${JSON.stringify(vocab[at])}`,
    );
  if (m.config?.vocabSize !== vocab.length)
    throw new Error(
      `config.vocabSize ${shown(m.config?.vocabSize)} does not match the vocabulary's ${vocab.length}`,
    );
  if (expect.config) {
    for (const key of Object.keys(expect.config) as (keyof GPTConfig)[]) {
      if (m.config[key] !== expect.config[key])
        throw new Error(
          `config differs: ${key} is ${shown(m.config[key])} in the checkpoint, ${expect.config[key]} in the model`,
        );
    }
  }
  // Sizes from the header are bounded before anything is built from them.
  checkGptConfig(m.config);
  const specs = paramSpecs(m.config);
  if (!Array.isArray(m.params)) throw new Error('checkpoint has no parameter list');
  if (m.params.length !== specs.length)
    throw new Error(
      `checkpoint lists ${shown(m.params.length)} parameters; its config needs ${specs.length}`,
    );
  specs.forEach((s, i) => {
    const p = m.params[i];
    if (p?.name !== s.name || JSON.stringify(p.shape) !== JSON.stringify(s.shape)) {
      throw new Error(
        `parameter ${i} is ${shown(p?.name)} ${shown(p?.shape)} in the checkpoint, but its config needs ${s.name} [${s.shape}]`,
      );
    }
  });
  if (!m.notes || typeof m.notes !== 'object' || Array.isArray(m.notes))
    throw new Error(`checkpoint notes must be an object, got ${JSON.stringify(m.notes)}`);
  const need = 4 * specs.reduce((a, s) => a + s.shape.reduce((x, d) => x * d, 1), 0);
  if (m.byteLength !== need)
    throw new Error(`manifest says ${shown(m.byteLength)} weight bytes; its parameters need ${need}`);
  if (ckpt.weights.byteLength !== need)
    throw new Error(`weights truncated or padded: ${ckpt.weights.byteLength} bytes, expected ${need}`);
  if (m.version === 1) {
    const hash = hashBytes(new Uint8Array(ckpt.weights));
    if (hash !== m.hash)
      throw new Error(
        `content hash mismatch: manifest says ${shown(m.hash)}, weights hash to ${hash} (corrupt file?)`,
      );
  } else if (contentHash(m, ckpt.weights) !== m.hash) {
    throw new Error(`content hash mismatch: ${whatWasEdited(m, ckpt.weights)} (corrupt or edited file?)`);
  }
}

/** What a loader should say beside a checkpoint it accepted whose manifest no hash covers, or null. */
export function unverifiedNote(m: CheckpointManifest): string | null {
  return m.version === 1
    ? 'its notes and settings are unverified: a version 1 file, whose hash covers only its weights'
    : null;
}

/** Each top-level field but the hashes, each note on its own, and the weights, with its hash. */
function partHashes(m: object, weights: ArrayBuffer): Map<string, string> {
  const parts = new Map<string, string>();
  const hashJson = (v: unknown) => hashBytes(new TextEncoder().encode(JSON.stringify(v) ?? 'undefined'));
  for (const [key, value] of Object.entries(m)) {
    if (key === 'hash' || key === 'fieldHashes') continue;
    if (key === 'notes' && value && typeof value === 'object' && !Array.isArray(value))
      for (const [note, v] of Object.entries(value)) parts.set(`notes.${note}`, hashJson(v));
    else parts.set(key, hashJson(value));
  }
  parts.set('weights', hashBytes(new Uint8Array(weights)));
  return parts;
}

/** Names the parts whose hash differs from the manifest's field hashes: why contentHash failed. */
function whatWasEdited(m: CheckpointManifest, weights: ArrayBuffer): string {
  const fh = m.fieldHashes;
  const said = new Map(fh && typeof fh === 'object' ? Object.entries(fh) : []);
  const now = partHashes(m, weights);
  const found: string[] = [];
  for (const [part, hash] of now) {
    if (!said.has(part)) found.push(`${part} was added`);
    else if (said.get(part) !== hash)
      found.push(
        part === 'weights'
          ? `weights hash to ${hash}, manifest says ${shown(said.get(part))}`
          : `${part} was edited`,
      );
  }
  for (const part of said.keys()) if (!now.has(part)) found.push(`${part} was removed`);
  return found.length > 0
    ? found.slice(0, 3).join('; ') + (found.length > 3 ? ` (and ${found.length - 3} more)` : '')
    : `manifest says ${shown(m.hash)}, header and weights hash to ${contentHash(m, weights)}`;
}

/** A new model from a verified checkpoint. Caller disposes the model. */
export function loadCheckpoint(
  ckpt: Checkpoint,
  expect: { vocab?: readonly string[]; config?: GPTConfig } = {},
): GPT {
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

/**
 * Parses encodeCheckpoint's framing and verifies the result (verifyCheckpoint). A checkpoint of an
 * earlier vocabulary (a prefix of today's) is migrated to today's (migrateCheckpoint).
 */
export function decodeCheckpoint(
  bytes: Uint8Array | ArrayBuffer,
  expect: { vocab?: readonly string[]; config?: GPTConfig } = {},
): Checkpoint {
  const { manifest, payload } = decodeFramed<CheckpointManifest>(MAGIC, 'Agentwise checkpoint', bytes);
  const ckpt = migrateCheckpoint({ manifest, weights: payload }, expect.vocab);
  verifyCheckpoint(ckpt, expect);
  return ckpt;
}

/**
 * `ckpt` as it is, or, where it was written with an earlier vocabulary (a prefix of `vocab`), first
 * verified as written, then grown to `vocab` (vocab-migration.ts) and signed anew in memory, with
 * `migrated` set. A version 1 file stays one (its hash covers the weights alone): migrating makes
 * its notes no more verified than they were.
 */
export function migrateCheckpoint(ckpt: Checkpoint, vocab: readonly string[] = VOCAB): Checkpoint {
  const { manifest, weights } = ckpt;
  if (!isEarlierVocab(manifest?.vocab, vocab)) return ckpt;
  verifyCheckpoint(ckpt, { vocab: manifest.vocab });
  const { version, hash: _h, fieldHashes: _f, ...header } = manifest;
  const grown = migrateVocab(header, weights, vocab);
  const signed =
    version === 1
      ? {
          manifest: { ...grown.header, version, hash: hashBytes(new Uint8Array(grown.weights)) },
          weights: grown.weights,
        }
      : signCheckpoint(grown.header, grown.weights);
  return {
    ...signed,
    migrated: `vocabulary migrated on load, ${manifest.vocab.length} → ${vocab.length} ids`,
  };
}
