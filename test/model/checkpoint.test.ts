import * as tf from '@tensorflow/tfjs';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShippedBase } from '../../src/cli/base-models';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { VOCAB } from '../../src/core/vocab';
import {
  decodeCheckpoint,
  encodeCheckpoint,
  loadCheckpoint,
  loadCheckpointInto,
  saveCheckpoint,
  type Checkpoint,
} from '../../src/model/checkpoint';
import { encodeFramed } from '../../src/core/signed-file';
import { maxAbsDiff, tinyConfig, tinyModel, useBackend } from './helpers';

const weights = (m: { variables: tf.Variable[] }) => Promise.all(m.variables.map((v) => v.data()));
const mutate = (ckpt: Checkpoint, f: (c: Checkpoint) => void): Checkpoint => {
  const copy = { manifest: structuredClone(ckpt.manifest), weights: ckpt.weights.slice(0) };
  f(copy);
  return copy;
};

describe('checkpoints', () => {
  let ckpt: Checkpoint;
  beforeAll(async () => {
    await useBackend('wasm');
    const m = tinyModel(5);
    ckpt = await saveCheckpoint(m, { preset: 'nano', notes: { recipe: 'test', steps: 0 } });
    m.dispose();
  });
  afterAll(() => tf.disposeVariables());

  it('round-trips in memory, through the single-file encoding and through a Node file', async () => {
    const ref = await weights(tinyModel(5));
    const back = loadCheckpoint(decodeCheckpoint(encodeCheckpoint(ckpt)));
    (await weights(back)).forEach((w, i) => expect(maxAbsDiff(w, ref[i])).toBe(0));
    const path = join(mkdtempSync(join(tmpdir(), 'agw-')), 'nano.agw');
    writeFileSync(path, encodeCheckpoint(ckpt)); // the bytes scripts/pretrain.ts writes and the CLI reads
    const fromFile = decodeCheckpoint(new Uint8Array(readFileSync(path)));
    expect(fromFile.manifest).toEqual(ckpt.manifest);
    expect(fromFile.manifest.notes).toEqual({ recipe: 'test', steps: 0 });
    const other = tinyModel(6);
    loadCheckpointInto(other, fromFile);
    (await weights(other)).forEach((w, i) => expect(maxAbsDiff(w, ref[i])).toBe(0));
    back.dispose();
    other.dispose();
  });

  it('refuses corrupt, truncated and mismatched checkpoints, saying what does not match', async () => {
    const bytes = encodeCheckpoint(ckpt);
    const flipped = bytes.slice();
    flipped[flipped.length - 5] ^= 0x40;
    expect(() => decodeCheckpoint(flipped)).toThrow(/content hash mismatch/);
    expect(() => decodeCheckpoint(bytes.slice(0, bytes.length - 100))).toThrow(
      /weights truncated.*expected \d+/,
    );
    expect(() => decodeCheckpoint(bytes.slice(0, 40))).toThrow(/truncated: manifest of \d+ bytes/);
    expect(() => decodeCheckpoint(new TextEncoder().encode('{"hello": 1}'))).toThrow(/bad magic/);
    const badJson = bytes.slice();
    badJson[13] = 0x7b; // the manifest now opens with '{{'
    expect(() => decodeCheckpoint(badJson)).toThrow(/not valid JSON/);
    const vocab = mutate(ckpt, (c) => (c.manifest.vocab[20] = 'Z'));
    expect(() => loadCheckpoint(vocab)).toThrow(/vocabulary differs at id 20: checkpoint has "Z"/);
    expect(() => loadCheckpoint(ckpt, { vocab: [...VOCAB, '~'] })).toThrow(/vocabulary size differs/);
    const shape = mutate(ckpt, (c) => (c.manifest.params[3].shape = [1, 2]));
    expect(() => loadCheckpoint(shape)).toThrow(/parameter 3 is h0.ln1.b \[1,2\] in the checkpoint/);
    const wrongModel = tinyModel(1, { dModel: 32 });
    expect(() => loadCheckpointInto(wrongModel, ckpt)).toThrow(
      /config differs: dModel is 64 in the checkpoint, 32 in the model/,
    );
    expect(() => loadCheckpoint(ckpt, { config: tinyConfig({ contextLength: 16 }) })).toThrow(
      /contextLength is 32/,
    );
    const version = mutate(ckpt, (c) => (c.manifest.version = 9));
    expect(() => loadCheckpoint(version)).toThrow(/version 9 is not supported/);
    expect(() => loadShippedBase(DEFAULT_EXPERIMENT, 'models', ['/nonexistent/x.agw'])).toThrow(
      /--init: no such file \/nonexistent\/x.agw/,
    );
    wrongModel.dispose();
  });

  it('refuses a header whose sizes exceed the limits before building anything from them', () => {
    // The probe: a 1.9 KB file whose header claims 3e7 layers made --init allocate for 125 s.
    const huge = { ...ckpt.manifest, config: { ...ckpt.manifest.config, nLayers: 3e7 } };
    const bytes = encodeFramed('AGWGPT01', huge, new ArrayBuffer(256));
    expect(bytes.length).toBeLessThan(4000);
    expect(() => decodeCheckpoint(bytes)).toThrow(
      /model config nLayers is 30000000; this lab builds at most 48/,
    );
    const badHeads = { ...ckpt.manifest, config: { ...ckpt.manifest.config, nHeads: 0.5 } };
    expect(() => decodeCheckpoint(encodeFramed('AGWGPT01', badHeads, ckpt.weights))).toThrow(
      /nHeads must be a positive integer, got 0.5/,
    );
    const noParams = { ...ckpt.manifest, params: 'all of them' };
    expect(() => decodeCheckpoint(encodeFramed('AGWGPT01', noParams, ckpt.weights))).toThrow(
      /checkpoint has no parameter list/,
    );
  });
});
