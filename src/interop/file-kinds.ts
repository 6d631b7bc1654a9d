/**
 * Which files an import reads, by their names alone: TensorBoard event files, CSVs (W&B's and the
 * lab's), the lab's JSON. Apart from their readers (import.ts) so that the page, which asks this of
 * every file picked or dropped, need not load the readers (protobuf, CRC-32C, CSV) to ask; they run
 * in the import worker. Pure.
 */

/** TensorBoard finds event files by this infix. */
export const EVENT_FILE_INFIX = 'tfevents';

/** A path's last part. */
export const base = (path: string) => path.split('/').pop() ?? path;

export function fileKind(path: string): 'events' | 'csv' | 'json' | null {
  if (base(path).includes(EVENT_FILE_INFIX)) return 'events';
  if (/\.csv$/i.test(path)) return 'csv';
  if (/\.json$/i.test(path)) return 'json';
  return null;
}

/**
 * Whether a file met inside a folder is read: event files and CSVs, as TensorBoard and W&B lay
 * them out. A JSON is read only when given itself: a session folder's config.json or summary.json
 * is no run.
 */
export const readInFolder = (path: string): boolean => {
  const kind = fileKind(path);
  return kind === 'events' || kind === 'csv';
};
