/**
 * The page's database (`agentwise-lab`, its stores `sessions` and `frames`: persist.ts) and a tiny
 * promise wrapper over the raw API. A write refused for want of room is the caller's to keep
 * (persist.ts queues its frames again); any other failure, or the browser closing the database
 * under the page (its storage cleared or evicted), turns recording off with one alert. So does a
 * run state its worker cannot write for any reason but room (stopRecording: worker-messages.ts).
 */
import { isFull } from '../runtime/storage-fault';
import { useLab } from './store';

const DB = 'agentwise-lab';

let dbp: Promise<IDBDatabase> | null = null;
let disabled = false;

export const req = <T>(r: IDBRequest<T>) =>
  new Promise<T>((ok, ko) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => ko(r.error ?? new Error('IndexedDB request failed'));
  });

const done = (tx: IDBTransaction) =>
  new Promise<void>((ok, ko) => {
    tx.oncomplete = () => ok();
    tx.onerror = tx.onabort = () => ko(tx.error ?? new Error('IndexedDB transaction aborted'));
  });

function open(): Promise<IDBDatabase> {
  dbp ??= new Promise<IDBDatabase>((ok, ko) => {
    if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => {
      r.result.createObjectStore('sessions', { keyPath: 'id' });
      r.result.createObjectStore('frames', { keyPath: ['session', 'seq'] });
    };
    r.onsuccess = () => {
      // Fired when the browser deletes the database under the page (storage cleared or evicted).
      r.result.onclose = () =>
        disable(new Error('the browser closed its database (its storage was cleared)'));
      ok(r.result);
    };
    r.onerror = () => ko(r.error ?? new Error('could not open IndexedDB'));
    r.onblocked = () => ko(new Error('IndexedDB is blocked by another tab'));
  });
  return dbp;
}

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
    const tx = (await open()).transaction(['sessions', 'frames'], mode);
    const [result] = await Promise.all([f(tx.objectStore('sessions'), tx.objectStore('frames')), done(tx)]);
    return result;
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

export const frameRange = (id: string) => IDBKeyRange.bound([id, -Infinity], [id, Infinity]);
