/**
 * Run states in IndexedDB (db `agentwise-states`): the latest saved state of each run of each
 * stored session, as the encoded bytes of src/train/run-state.ts, so a run survives a reload or a
 * crashed tab and resumes from its last save. Run workers write them (they hold the weights); the
 * page only lists and deletes them, so this file imports no tfjs. Keyed [session, stateKey(run
 * index, label)]: the index into the experiment's runs and the run's label (`1:Dr. MAS #2`). Once
 * the browser closes the database under a connection (the site's storage cleared or evicted),
 * every later call fails saying so, rather than open a new, empty one: a state written there would
 * stand for a session whose frames are gone. The worker's save then fails, and the page turns
 * recording off with one alert (worker-messages.ts), as it does when its own database closes.
 */
import { faultAt, refuseIfFull } from './storage-fault';
import type { StorageFault } from './storage-fault';

/** A run's key in the store: its index into experiment.runs and its label (with its seed's `#s`). */
export const stateKey = (runIndex: number, label: string): string => `${runIndex}:${label}`;
/** The label in a stateKey (a label may hold ':' itself; the index never does). */
export const labelOfKey = (key: string): string => key.slice(key.indexOf(':') + 1);

export interface StoredState {
  session: string;
  /** stateKey(run index, label) (`0:GRPO`, `1:Dr. MAS #1`): stable across page loads, unlike worker ids. */
  run: string;
  /** Steps completed when saved: the resumed run's next step. */
  step: number;
  savedAt: number;
  /** encodeRunState's bytes. */
  bytes: ArrayBuffer;
}

export type StateInfo = Omit<StoredState, 'bytes'>;

const DB = 'agentwise-states';
const STORE = 'states';

let dbp: Promise<IDBDatabase> | null = null;
/** Set once the browser closed the database under this connection: every call fails with it. */
let closed: Error | null = null;

function open(): Promise<IDBDatabase> {
  if (closed) return Promise.reject(closed);
  dbp ??= openAt(1);
  dbp.catch(() => (dbp = null)); // let a later call try again
  return dbp;
}

/** Opens the db; one that exists without our store (made by another page or tool) is upgraded. */
function openAt(version: number): Promise<IDBDatabase> {
  return new Promise<IDBDatabase>((ok, ko) => {
    if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
    const r = indexedDB.open(DB, version);
    r.onupgradeneeded = () => {
      if (!r.result.objectStoreNames.contains(STORE))
        r.result.createObjectStore(STORE, { keyPath: ['session', 'run'] });
    };
    r.onsuccess = () => {
      const db = r.result;
      // Fired when the browser deletes the database under the page (storage cleared or evicted).
      db.onclose = () =>
        (closed = new Error("the browser closed the run states' database (its storage was cleared)"));
      if (db.objectStoreNames.contains(STORE)) return ok(db);
      db.close();
      openAt(db.version + 1).then(ok, ko);
    };
    r.onerror = () => ko(r.error ?? new Error('could not open IndexedDB'));
    r.onblocked = () => ko(new Error('IndexedDB is blocked by another tab'));
  });
}

async function run<T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const tx = (await open()).transaction(STORE, mode);
  const r = f(tx.objectStore(STORE));
  return new Promise<T>((ok, ko) => {
    tx.oncomplete = () => ok(r.result);
    tx.onerror = tx.onabort = () => ko(tx.error ?? r.error ?? new Error('IndexedDB transaction failed'));
  });
}

const sessionRange = (session: string) => IDBKeyRange.bound([session, ''], [session, '\uffff']);

/** Replaces the run's saved state (`fault`: the test seam of storage-fault.ts). */
export async function putState(s: StoredState, fault?: StorageFault | null): Promise<unknown> {
  refuseIfFull(fault, s.step);
  if (faultAt(fault, 'closed', s.step)) closeAsTheBrowserDoes(await open());
  return run('readwrite', (st) => st.put(s));
}

/** The seam's `closed`: the connection closes and its `close` event fires, as when storage is cleared. */
function closeAsTheBrowserDoes(db: IDBDatabase): void {
  db.close();
  db.dispatchEvent(new Event('close'));
}

export function getState(session: string, key: string): Promise<StoredState | undefined> {
  return run('readonly', (st) => st.get([session, key]) as IDBRequest<StoredState | undefined>);
}

/** What is saved for a session, without the bytes. */
export async function statesOf(session: string): Promise<StateInfo[]> {
  const all = await run('readonly', (st) => st.getAll(sessionRange(session)) as IDBRequest<StoredState[]>);
  return all.map(({ bytes: _bytes, ...info }) => info);
}

export function deleteStates(session: string): Promise<unknown> {
  return run('readwrite', (st) => st.delete(sessionRange(session)));
}
