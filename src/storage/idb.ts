/**
 * IndexedDB: the lab's three databases, how each is opened, its transactions as promises, and what a
 * failure means. The page (src/ui/session/recorder-db.ts) and each run's worker (state-store.ts) use it; it
 * imports no tfjs and no UI, so both may.
 *
 * Two databases for a session, so that no transaction holds a run's state and its frames: they are
 * written in order instead (docs/page.md#two-databases).
 *
 * - `agentwise-lab`, the page's: `sessions` (one record per stored session, keyed by its id) and
 *   `frames` (their metric frames, keyed [session, seq]); record formats in src/ui/session/recorder.ts.
 * - `agentwise-states`, the run workers': `states` (each run's latest state, keyed [session,
 *   stateKey], where a worker has no origin-private files and as earlier builds kept them;
 *   state-store.ts).
 * - `agentwise-workflows`, the page's workflow files and prepared base models: `files` (a dataset
 *   by its SHA-256, a workflow by its hash) and `base` (base models by baseModelsKey); records in
 *   src/ui/session/workflow-library.ts. A database of its own, created at version 1 as it is, so
 *   adding it upgrades neither of the others under a tab of an earlier build.
 *
 * Each is created at version 1 and opened at whatever version it has. One found without a
 * store of ours (made empty by another page or tool) is upgraded to the next version, which adds it.
 * Once the browser closes a database under a connection (the site's storage cleared or evicted),
 * every later call on it fails saying so, rather than open a new, empty one: what would be written
 * there would stand for records that are gone.
 */

interface Schema {
  name: string;
  /** Each object store and its key path. */
  stores: Readonly<Record<string, string | string[]>>;
  /** How the alert names it once the browser closed it (`the browser closed …`). */
  called: string;
}

export const LAB_DB: Schema = {
  name: 'agentwise-lab',
  stores: { sessions: 'id', frames: ['session', 'seq'] },
  called: 'its database',
};

export const WORKFLOWS_DB: Schema = {
  name: 'agentwise-workflows',
  stores: { files: 'key', base: 'key' },
  called: "the workflows' database",
};

export const STATES_DB: Schema = {
  name: 'agentwise-states',
  stores: { states: ['session', 'run'] },
  called: "the run states' database",
};

/** Every record of a session in a store keyed [session, …] (arrays sort after every number and string). */
export const sessionKeys = (session: string): IDBKeyRange => IDBKeyRange.bound([session], [session, []]);

/** A request as a promise of its result. */
export const req = <T>(r: IDBRequest<T>): Promise<T> =>
  new Promise<T>((ok, ko) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => ko(r.error ?? new Error('IndexedDB request failed'));
  });

const done = (tx: IDBTransaction): Promise<void> =>
  new Promise<void>((ok, ko) => {
    tx.oncomplete = () => ok();
    tx.onerror = tx.onabort = () => ko(tx.error ?? new Error('IndexedDB transaction aborted'));
  });

/** A write refused for want of room (the quota, or a full disk), rather than a broken store. */
export const isFull = (e: unknown): boolean =>
  (e instanceof DOMException || e instanceof Error) && e.name === 'QuotaExceededError';

interface Database {
  /**
   * Runs `f` in one transaction over every store of the database; resolves with its result once
   * the transaction has committed, or rejects with what failed (isFull: for want of room).
   */
  transact<T>(mode: IDBTransactionMode, f: (tx: IDBTransaction) => Promise<T> | T): Promise<T>;
  /** The storage-fault seam's `closed`: the connection closes and its `close` event fires, as when storage is cleared. */
  closeAsTheBrowserDoes(): Promise<void>;
  /** Resolves once open; rejects, saying so, once the browser closed it (the site's storage cleared). */
  alive(): Promise<void>;
}

/** One connection to `schema`'s database, opened on first use; `onClose` hears the browser close it. */
export function database(schema: Schema, onClose?: (e: Error) => void): Database {
  let dbp: Promise<IDBDatabase> | null = null;
  /** Set once the browser closed the database under this connection: every call fails with it. */
  let closed: Error | null = null;
  const stores = Object.keys(schema.stores);

  function open(): Promise<IDBDatabase> {
    if (closed) return Promise.reject(closed);
    dbp ??= openAt();
    dbp.catch(() => (dbp = null)); // let a later call try again
    return dbp;
  }

  function openAt(version?: number): Promise<IDBDatabase> {
    return new Promise<IDBDatabase>((ok, ko) => {
      if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
      const r = version === undefined ? indexedDB.open(schema.name) : indexedDB.open(schema.name, version);
      r.onupgradeneeded = () => {
        for (const name of stores)
          if (!r.result.objectStoreNames.contains(name))
            r.result.createObjectStore(name, { keyPath: schema.stores[name] });
      };
      r.onsuccess = () => {
        const db = r.result;
        if (stores.some((name) => !db.objectStoreNames.contains(name))) {
          db.close();
          return void openAt(db.version + 1).then(ok, ko);
        }
        // Fired when the browser deletes the database under the page (storage cleared or evicted).
        db.onclose = () => {
          closed = new Error(`the browser closed ${schema.called} (its storage was cleared)`);
          onClose?.(closed);
        };
        ok(db);
      };
      r.onerror = () => ko(r.error ?? new Error('could not open IndexedDB'));
      r.onblocked = () => ko(new Error('IndexedDB is blocked by another tab'));
    });
  }

  return {
    async transact(mode, f) {
      // Relaxed: committed once the OS has the bytes, not once they are flushed to the disk. A
      // closed or crashed page or browser loses nothing so; only the OS failing could, and a save
      // after every step should not wait on a flush (docs/page.md#a-page-closed-mid-step).
      const tx = (await open()).transaction(stores, mode, { durability: 'relaxed' });
      const [result] = await Promise.all([f(tx), done(tx)]);
      return result;
    },
    async alive() {
      await open();
    },
    async closeAsTheBrowserDoes() {
      const db = await open();
      db.close();
      db.dispatchEvent(new Event('close'));
    },
  };
}
