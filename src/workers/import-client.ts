/**
 * Files dropped on the page → imported runs, parsed in a Web Worker (import.worker.ts) so a
 * 100k-record event file never blocks the main thread. Each run comes back as one flat
 * Float64Array of frames over its key table (transferred, not copied), the shape run-data.ts
 * keeps local runs in.
 */
import type { ImportedRun, ImportFile } from '../interop/import';
import { askOnce } from './one-answer';
import type { OneAnswer } from './one-answer';

export interface PackedRun extends Omit<ImportedRun, 'rows' | 'keys'> {
  /** Frame key table; `step` first. */
  columns: string[];
  /** steps × columns values, NaN where a step has no value. */
  frames: Float64Array;
}

interface PackedImport {
  runs: PackedRun[];
  refused: { path: string; reason: string }[];
}

/** One run's rows as frames over the union of their keys. */
export function packRun({ rows, keys: _names, ...rest }: ImportedRun): PackedRun {
  const columns = ['step', ...new Set(rows.flatMap((r) => Object.keys(r)).filter((k) => k !== 'step'))];
  const index = new Map(columns.map((k, i) => [k, i]));
  const frames = new Float64Array(rows.length * columns.length).fill(NaN);
  rows.forEach((row, i) => {
    for (const [k, v] of Object.entries(row)) frames[i * columns.length + index.get(k)!] = v;
  });
  return { ...rest, columns, frames };
}

export type ImportRequest = { files: ImportFile[] };
export type ImportReply = OneAnswer<PackedImport>;

/** Parses the files in a fresh worker, which exits when it has answered. */
export function parseInWorker(files: ImportFile[]): Promise<PackedImport> {
  const worker = new Worker(new URL('./import.worker.ts', import.meta.url), {
    type: 'module',
    name: 'import',
  });
  const request: ImportRequest = { files };
  return askOnce(
    worker,
    'import worker',
    request,
    files.map((f) => f.bytes.buffer as ArrayBuffer),
  );
}
