/**
 * `npx tsx scripts/rehash-models.ts [models]` — re-signs the shipped checkpoints in place with the
 * current checkpoint version, whose hash covers the whole manifest (notes included), without
 * retraining: each file's weights and fields are kept byte for byte, only `version`, `fieldHashes`
 * and `hash` change. A file already at the current version is left alone.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCheckpoint, encodeCheckpoint, signCheckpoint, VERSION } from '../src/model/checkpoint';

const root = process.argv[2] ?? 'models';
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ckpt'))
  .sort();
for (const file of files) {
  const path = join(root, file);
  const old = decodeCheckpoint(new Uint8Array(readFileSync(path)));
  if (old.manifest.version === VERSION) {
    console.log(`${path}: already version ${VERSION}`);
    continue;
  }
  const { version: _v, hash: _h, fieldHashes: _f, ...header } = old.manifest;
  const bytes = encodeCheckpoint(signCheckpoint(header, old.weights));
  const back = decodeCheckpoint(bytes); // verifies the new file before it replaces the old
  const same = Buffer.compare(Buffer.from(back.weights), Buffer.from(old.weights)) === 0;
  if (!same) throw new Error(`${path}: weights changed on re-signing`);
  writeFileSync(path, bytes);
  console.log(`${path}: version ${old.manifest.version} → ${VERSION}, hash ${back.manifest.hash}`);
}
