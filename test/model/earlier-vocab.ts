// Checkpoints as the build before the role block (src/core/vocab.ts) wrote them: 73 ids.
import { readFileSync } from 'node:fs';
import { encodeCheckpoint, signCheckpoint, type CheckpointManifest } from '../../src/model/checkpoint';
import { decodeFramed } from '../../src/core/signed-file';

export const shipped = (path: string) => new Uint8Array(readFileSync(`models/${path}`));

/**
 * A shipped file as the build before the role block wrote it: 73 ids, wte without the block's
 * rows, no migration note. The shipped files were migrated on disk (scripts/rehash-models.ts) by
 * adding rows only, so this is the earlier file byte for byte: its hash is the one it shipped with.
 */
export function earlier(path: string): {
  bytes: Uint8Array;
  manifest: CheckpointManifest;
  weights: ArrayBuffer;
} {
  const { manifest: m, payload } = decodeFramed<CheckpointManifest>('AGWGPT01', 'checkpoint', shipped(path));
  const C = m.config.dModel;
  const all = new Float32Array(payload);
  const weights = new Float32Array(all.length - (m.vocab.length - 73) * C);
  weights.set(all.subarray(0, 73 * C));
  weights.set(all.subarray(m.vocab.length * C), 73 * C);
  const { vocabMigrated: _m, ...notes } = m.notes;
  const ckpt = signCheckpoint(
    {
      format: m.format,
      preset: m.preset,
      config: { ...m.config, vocabSize: 73 },
      vocab: m.vocab.slice(0, 73),
      params: [{ name: 'wte', shape: [73, C] }, ...m.params.slice(1)],
      byteLength: weights.byteLength,
      notes,
    },
    weights.buffer,
  );
  return { bytes: encodeCheckpoint(ckpt), ...ckpt };
}
