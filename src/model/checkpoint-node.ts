/**
 * Node file adapter for checkpoints (scripts, the CLI, tests): the one file in src/model that
 * touches Node APIs. The format and every check live in checkpoint.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { GPTConfig } from './gpt';
import { decodeCheckpoint, encodeCheckpoint, type Checkpoint } from './checkpoint';

export async function writeCheckpointFile(path: string, ckpt: Checkpoint): Promise<void> {
  await writeFile(path, encodeCheckpoint(ckpt));
}

/** Reads and verifies a checkpoint file; the error names the file and what does not match. */
export async function readCheckpointFile(path: string, expect: { vocab?: readonly string[]; config?: GPTConfig } = {}): Promise<Checkpoint> {
  const bytes = await readFile(path);
  try {
    return decodeCheckpoint(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), expect);
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`, { cause: e });
  }
}
