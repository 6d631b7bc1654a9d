/**
 * Imports (runs read from other trainers' files) kept in IndexedDB beside the trained sessions, as
 * sessions of kind 'import' under ids of their own, through persist.ts's transactions.
 */
import { req } from '../storage/idb';
import type { RunId } from '../workers/protocol';
import { recordingOff, withTx } from './lab-db';
import type { StoredFrame } from './persist';
import { useLab } from './store';
import type { StoredRun, StoredSession } from './store';

/** Frames per transaction when an import is stored: each a short task (8,300 steps: 83 of them). */
const IMPORT_CHUNK = 100;

/**
 * Stores an import as a session of kind 'import': its frames in chunks, then its record, so a
 * reload in the middle never lists half an import. Returns whether it was stored.
 */
export async function storeImport(
  id: string,
  runs: StoredRun[],
  frames: ReadonlyMap<RunId, readonly Float64Array[]>,
): Promise<boolean> {
  const all: StoredFrame[] = [];
  for (const r of runs)
    for (const values of frames.get(r.id) ?? [])
      all.push({ session: id, seq: all.length, run: r.id, step: values[0], values });
  for (let i = 0; i < all.length && !recordingOff(); i += IMPORT_CHUNK) {
    // Copies, not views, made chunk by chunk: IndexedDB would store a view's whole buffer.
    const chunk = all.slice(i, i + IMPORT_CHUNK).map((f) => ({ ...f, values: f.values.slice() }));
    await withTx('readwrite', (_s, fr) => chunk.forEach((f) => fr.put(f)), undefined);
  }
  const rec: StoredSession = {
    id,
    kind: 'import',
    shown: true,
    createdAt: Date.now(),
    experiment: '',
    runs,
    lastStep: Math.max(0, ...runs.map((r) => r.lastStep)),
  };
  if (!recordingOff()) await withTx('readwrite', (s) => void s.put(rec), undefined);
  if (recordingOff()) return false;
  useLab.setState((s) => ({ pastSessions: [rec, ...(s.pastSessions ?? [])] }));
  return true;
}

/** Marks a stored import as on the charts or not (it comes back after a reload if it is). */
export async function setImportShown(id: string, shown: boolean): Promise<void> {
  const rec = await withTx(
    'readonly',
    (s) => req(s.get(id) as IDBRequest<StoredSession | undefined>),
    undefined,
  );
  if (rec?.kind !== 'import') return;
  const next = { ...rec, shown };
  await withTx('readwrite', (s) => void s.put(next), undefined);
  useLab.setState((s) => ({ pastSessions: s.pastSessions?.map((p) => (p.id === id ? next : p)) ?? null }));
}
