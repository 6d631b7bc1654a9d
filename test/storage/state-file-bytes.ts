/** Run state files in memory (src/storage/state-files.ts's frame), for the tests that read them without OPFS. */
import { frameHead, type ReadAt } from '../../src/storage/state-files';

/** A state file's bytes: its frame head, then a payload of `n` bytes counting from `from`. */
export function stateFile(
  header: { step: number } & Record<string, unknown>,
  n: number,
  from = 0,
): Uint8Array {
  const head = frameHead(header, n);
  const file = new Uint8Array(head.length + n);
  file.set(head);
  for (let i = 0; i < n; i++) file[head.length + i] = (from + i) & 255;
  return file;
}

/** Reads a file in memory at once, as a sync access handle does. */
export const readOf =
  (file: Uint8Array): ReadAt<Uint8Array> =>
  (at, length) =>
    file.slice(at, at + length);
