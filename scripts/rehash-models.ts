/**
 * `npx tsx scripts/rehash-models.ts [models]` — brings the shipped checkpoints in place up to the
 * current format without retraining: a file of an earlier vocabulary is migrated to today's
 * (src/model/vocab-migration.ts: wte grows by the role block's rows, copies of rows it has; its
 * notes gain `vocabMigrated`), and every file is signed with the current checkpoint version, whose
 * hash covers the whole manifest (notes included). Every other field and every other weight is
 * kept byte for byte. A file already current is left alone.
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
  const old = decodeCheckpoint(new Uint8Array(readFileSync(path))); // migrated here if of an earlier vocabulary
  if (old.manifest.version === VERSION && !old.migrated) {
    console.log(`${path}: already version ${VERSION}, today's vocabulary`);
    continue;
  }
  const { version: _v, hash: _h, fieldHashes: _f, ...header } = old.manifest;
  const bytes = encodeCheckpoint(signCheckpoint(header, old.weights));
  const back = decodeCheckpoint(bytes); // verifies the new file before it replaces the old
  const same = Buffer.compare(Buffer.from(back.weights), Buffer.from(old.weights)) === 0;
  if (!same || back.migrated) throw new Error(`${path}: weights changed on re-signing`);
  writeFileSync(path, bytes);
  const said = old.migrated ? `${old.migrated.replace(' on load', '')}, ` : '';
  console.log(`${path}: ${said}version ${old.manifest.version} → ${VERSION}, hash ${back.manifest.hash}`);
}
