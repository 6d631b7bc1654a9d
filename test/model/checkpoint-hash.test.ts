/**
 * A checkpoint's hash covers its whole manifest, notes included: an edited note is refused like an
 * edited weight, naming what was edited. Version 1 files (hash over the weights only) still load,
 * and the loader says their notes are unverified.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExperimentSchema } from '../../src/core/config';
import { decodeCheckpoint, VERSION, type CheckpointManifest } from '../../src/model/checkpoint';
import { decodeFramed, encodeFramed, hashBytes } from '../../src/core/signed-file';
import { loadBase } from '../../src/train/base';

const MAGIC = 'AGWGPT01';
const alice = new Uint8Array(readFileSync('models/sync/per-agent/alice.ckpt'));
const exp = ExperimentSchema.parse({ task: 'sync', models: { preset: 'nano', assignment: 'per-agent' } });
const shipped = async (path: string) => new Uint8Array(readFileSync(`models/${path}`));

/** Re-frames a checkpoint file with its manifest edited by `f` (hashes left as they were). */
function edit(bytes: Uint8Array, f: (m: CheckpointManifest) => void): Uint8Array {
  const { manifest, payload } = decodeFramed<CheckpointManifest>(MAGIC, 'checkpoint', bytes);
  f(manifest);
  return encodeFramed(MAGIC, manifest, payload);
}

/** The same checkpoint as version 1 wrote it: no field hashes, a hash of the weights only. */
function asVersion1(bytes: Uint8Array): Uint8Array {
  const { manifest, payload } = decodeFramed<CheckpointManifest>(MAGIC, 'checkpoint', bytes);
  const { fieldHashes: _f, hash: _h, notes, ...rest } = manifest;
  const old = { ...rest, version: 1, hash: hashBytes(new Uint8Array(payload)), notes };
  return encodeFramed(MAGIC, old, payload);
}

describe('a checkpoint hash covers every byte of the file', () => {
  it('ships every base model at the current version, whose hash covers the notes', async () => {
    expect(decodeCheckpoint(alice).manifest.version).toBe(VERSION);
    expect(VERSION).toBe(2);
    const r = await loadBase(exp, shipped);
    expect(r.notes).toEqual({
      alice: 'shipped base (val success 0.49)',
      bob: 'shipped base (val success 0.49)',
    });
  });

  it('refuses an edited note, naming it, as it refuses an edited weight', async () => {
    const claimed = edit(alice, (m) => ((m.notes.validation as { avg: number }).avg = 0.95));
    expect(() => decodeCheckpoint(claimed)).toThrow(
      'content hash mismatch: notes.validation was edited (corrupt or edited file?)',
    );
    const added = edit(alice, (m) => (m.notes.reviewedBy = 'someone'));
    expect(() => decodeCheckpoint(added)).toThrow(/content hash mismatch: notes\.reviewedBy was added/);
    const removed = edit(alice, (m) => delete m.notes.seed);
    expect(() => decodeCheckpoint(removed)).toThrow(/content hash mismatch: notes\.seed was removed/);
    const preset = edit(alice, (m) => (m.preset = 'small'));
    expect(() => decodeCheckpoint(preset)).toThrow(/content hash mismatch: preset was edited/);
    const weight = alice.slice();
    weight[weight.length - 7] ^= 0x10;
    expect(() => decodeCheckpoint(weight)).toThrow(
      /content hash mismatch: weights hash to [0-9a-f]{16}, manifest says [0-9a-f]{16}/,
    );
    // The loaders name the file: a shipped base, and a user's --init file.
    const read = async (path: string) => (path.endsWith('alice.ckpt') ? claimed : shipped(path));
    await expect(loadBase(exp, read)).rejects.toThrow(
      /models\/sync\/per-agent\/alice\.ckpt: content hash mismatch: notes\.validation was edited/,
    );
    await expect(loadBase(exp, shipped, [{ name: 'alice.ckpt', bytes: claimed }])).rejects.toThrow(
      /^alice\.ckpt: content hash mismatch: notes\.validation was edited/,
    );
  });

  it('refuses a version 2 file passed off as version 1 with its old hash kept', () => {
    const downgraded = edit(alice, (m) => (m.version = 1));
    expect(() => decodeCheckpoint(downgraded)).toThrow(/content hash mismatch: manifest says/);
  });

  it('refuses bytes that parse to the same manifest but are not as written: spaces, a non-zero pad', () => {
    const { manifest, payload } = decodeFramed<CheckpointManifest>(MAGIC, 'checkpoint', alice);
    // The same manifest written with a space after each ':' (what JSON.parse reads alike), framed as encodeFramed frames.
    const spacedJson = new TextEncoder().encode(JSON.stringify(manifest).replace(/":/g, '": '));
    const spaced = new Uint8Array(Math.ceil((12 + spacedJson.length) / 4) * 4 + payload.byteLength);
    spaced.set(alice.subarray(0, 8));
    new DataView(spaced.buffer).setUint32(8, spacedJson.length, true);
    spaced.set(spacedJson, 12);
    spaced.set(new Uint8Array(payload), spaced.length - payload.byteLength);
    expect(() => decodeCheckpoint(spaced)).toThrow(
      /Agentwise checkpoint manifest was edited: character \d+ is not as this lab writes it/,
    );
    // bob's manifest leaves 2 pad bytes before its weights.
    const bob = new Uint8Array(readFileSync('models/sync/per-agent/bob.ckpt'));
    const end = 12 + new DataView(bob.buffer, bob.byteOffset).getUint32(8, true);
    expect(end % 4).toBe(2);
    const pad = bob.slice();
    pad[end + 1] = 1;
    expect(() => decodeCheckpoint(pad)).toThrow(`Agentwise checkpoint padding byte ${end + 1} is not zero`);
  });

  it('loads a version 1 file, saying its notes are unverified; its weights are still checked', async () => {
    const old = asVersion1(alice);
    expect(decodeCheckpoint(old).manifest.version).toBe(1);
    const read = async (path: string) => (path.endsWith('alice.ckpt') ? old : shipped(path));
    const bob = asVersion1(new Uint8Array(readFileSync('models/sync/per-agent/bob.ckpt')));
    const r = await loadBase(exp, read, [{ name: 'my-bob.ckpt', bytes: bob }]);
    expect(r.notes.alice).toBe(
      'shipped base (val success 0.49; its notes and settings are unverified: a version 1 file, whose hash covers only its weights)',
    );
    expect(r.notes.bob).toMatch(/^checkpoint file my-bob\.ckpt \(its notes and settings are unverified/);
    const flipped = old.slice();
    flipped[flipped.length - 3] ^= 1;
    expect(() => decodeCheckpoint(flipped)).toThrow(
      /content hash mismatch: manifest says [0-9a-f]+, weights hash/,
    );
  });
});

describe('checkpoint headers of the wrong shape (found by test/fuzz)', () => {
  it('are refused with a message naming the field, not a TypeError', () => {
    const obj = '{"toString":1,"valueOf":1}';
    const { manifest, payload } = decodeFramed<CheckpointManifest>(MAGIC, 'checkpoint', alice);
    const text = JSON.stringify(manifest).replace('"shape":[64,256]', `"shape":[${obj},256]`);
    expect(text).toContain(obj);
    expect(() => decodeCheckpoint(encodeFramed(MAGIC, JSON.parse(text), payload))).toThrow(
      `parameter 10 is h0.mlp.w1 [${obj},256] in the checkpoint, but its config needs h0.mlp.w1 [64,256]`,
    );
    const hashes = JSON.stringify(manifest).replace(/"weights":"[0-9a-f]+"/, `"weights":${obj}`);
    const flipped = encodeFramed(MAGIC, JSON.parse(hashes), payload);
    flipped[flipped.length - 1] ^= 1;
    expect(() => decodeCheckpoint(flipped)).toThrow(
      new RegExp(`weights hash to [0-9a-f]{16}, manifest says \\{"toString":1,"valueOf":1\\}`),
    );
  });
});
