/**
 * Reads a checkpoint written with an earlier vocabulary as one of today's. Ids never move
 * (src/core/vocab.ts appends role tokens in a reserved block), so an earlier vocabulary is a prefix
 * of today's and only the token table `wte` lacks rows: the missing rows are added here, and the
 * checkpoint's notes say so (`vocabMigrated`). decodeCheckpoint migrates any such file on load
 * (the file is left as it is, and the loader says so); scripts/rehash-models.ts migrated the
 * shipped ones on disk.
 *
 * A new row copies a row the model already has, never a fresh draw, so the migrated model computes
 * what the old one did: a renamed role's row is its old role's (plan's planner reads as the
 * `solver` token did, RENAMED_ROLES), and any other row is PAD's — never a target, so its logit is
 * one the model has learned to keep low and sampling does not start emitting unused slots.
 * Pure: no tfjs.
 */
import { RENAMED_ROLES, roleToken, VOCAB } from '../core/vocab';
import type { GPTConfig } from '../core/gpt-config';

/** The fields of a checkpoint manifest a migration rewrites. */
interface Header {
  config: GPTConfig;
  vocab: string[];
  params: { name: string; shape: number[] }[];
  byteLength: number;
  notes: Record<string, unknown>;
}

/** Whether `old` is an earlier form of `to`: shorter, and every id it has holds the same character. */
export function isEarlierVocab(old: unknown, to: readonly string[] = VOCAB): old is string[] {
  return Array.isArray(old) && old.length < to.length && old.every((ch, i) => ch === to[i]);
}

/** Per token of a renamed role: the token of the role it was, and both names. */
function sourceTokens(): Map<string, { token: string; was: string; now: string }> {
  const from = new Map<string, { token: string; was: string; now: string }>();
  for (const renames of Object.values(RENAMED_ROLES))
    for (const [was, now] of Object.entries(renames))
      from.set(roleToken(now), { token: roleToken(was), was, now });
  return from;
}

/**
 * `header` and `weights` over `to` (default VOCAB), wte grown by the missing rows; the notes gain
 * `vocabMigrated`, which says what was added. Call only when isEarlierVocab(header.vocab, to) and
 * the checkpoint has been verified against its own vocabulary.
 */
export function migrateVocab<H extends Header>(
  header: H,
  weights: ArrayBuffer,
  to: readonly string[] = VOCAB,
): { header: H; weights: ArrayBuffer } {
  const oldV = header.vocab.length;
  const newV = to.length;
  const wte = header.params[0];
  if (wte?.name !== 'wte' || wte.shape[0] !== oldV)
    throw new Error(`cannot migrate the vocabulary: the first parameter is not wte [${oldV}, …]`);
  const C = wte.shape[1];
  const src = new Float32Array(weights);
  const out = new Float32Array(src.length + (newV - oldV) * C);
  out.set(src.subarray(0, oldV * C));
  const from = sourceTokens();
  const copied: string[] = [];
  for (let id = oldV; id < newV; id++) {
    const source = from.get(to[id]);
    const at = source !== undefined ? header.vocab.indexOf(source.token) : -1;
    if (at >= 0) copied.push(`${source!.now} (${id}) from ${source!.was} (${at})`);
    const row = at >= 0 ? at : 0;
    out.set(src.subarray(row * C, (row + 1) * C), id * C);
  }
  out.set(src.subarray(oldV * C), newV * C);
  const note =
    `${oldV} → ${newV} ids: wte rows ${oldV}–${newV - 1} added, ` +
    (copied.length ? `${copied.join(', ')}, the rest from PAD (0)` : 'copies of PAD (0)');
  return {
    header: {
      ...header,
      config: { ...header.config, vocabSize: newV },
      vocab: [...to],
      params: [{ name: 'wte', shape: [newV, C] }, ...header.params.slice(1)],
      byteLength: out.byteLength,
      notes: { ...header.notes, vocabMigrated: note },
    },
    weights: out.buffer,
  };
}

/**
 * AdamW moments (or any per-weight array in parameter order) of a model whose wte grows from
 * `oldV` to `newV` rows of `C`: the new rows are zeros, as for a weight that has had no gradient.
 */
export function growMoments(values: Float32Array, oldV: number, newV: number, C: number): Float32Array {
  const out = new Float32Array(values.length + (newV - oldV) * C);
  out.set(values.subarray(0, oldV * C));
  out.set(values.subarray(oldV * C), newV * C);
  return out;
}
