/**
 * The page's database (`agentwise-lab`, its stores `sessions` and `frames`: persist.ts) over
 * src/storage/idb.ts, and what the page does when it fails. A write refused for want of room is
 * the caller's to keep (persist.ts queues its frames again); any other failure, or the browser
 * closing the database under the page (its storage cleared or evicted), turns recording off with
 * one alert. So does a run state its worker cannot write for any reason but room (stopRecording:
 * worker-messages.ts).
 */
import { database, isFull, LAB_DB } from '../storage/idb';
import { useLab } from './store';

const db = database(LAB_DB, (e) => disable(e));
let disabled = false;

/**
 * Runs `f` in one transaction; on failure `fallback` is returned, and unless the write was refused
 * for want of room (the caller keeps what it wrote: flush) recording stops with one alert.
 */
export async function withTx<T>(
  mode: IDBTransactionMode,
  f: (s: IDBObjectStore, fr: IDBObjectStore) => Promise<T> | T,
  fallback: T,
): Promise<T> {
  if (disabled) return fallback;
  try {
    return await db.transact(mode, (tx) => f(tx.objectStore('sessions'), tx.objectStore('frames')));
  } catch (e) {
    if (!isFull(e)) disable(e);
    return fallback;
  }
}

/** Recording stopped after an IndexedDB failure (said once in the page). */
export const recordingOff = (): boolean => disabled;

function disable(e: unknown): void {
  if (disabled) return;
  stopRecording(e instanceof Error ? e.message : String(e));
  useLab.setState({ pastSessions: [] }); // this database's list can be read no more
}

/**
 * Recording stops, saying `reason` once in the alert area (the status bar then says nothing is
 * being saved, and offers the downloads: Unsaved.tsx). Training goes on; what is stored stays.
 */
export function stopRecording(reason: string): void {
  if (disabled) return;
  disabled = true;
  useLab.setState({ persistError: `runs will not survive a reload: ${reason}` });
}
