/**
 * Run states in IndexedDB (db `agentwise-states`): the latest saved state of each run of each
 * stored session, so a run survives a reload or a crashed tab and resumes from its last save. A
 * state is kept as read between two steps, before its hashes (src/train/run-state.ts
 * UnsealedRunState, with its fast check): an earlier build kept a state file's encoded bytes
 * (`bytes`), which are still read. Run workers write them (they hold the weights); the
 * page only lists and deletes them, so this file imports no tfjs. Keyed [session, stateKey(run
 * index, label)]: the index into the experiment's runs and the run's label (`1:Dr. MAS #2`).
 * Opening, transactions and a closed database are idb.ts's: once the browser closed it (the site's
 * storage cleared or evicted), the worker's save fails, and the page turns recording off with one
 * alert (src/ui/session/worker-messages.ts), as it does when its own database closes.
 */
import { database, req, sessionKeys, STATES_DB } from './idb';
import { faultAt, refuseIfFull } from './storage-fault';
import type { StorageFault } from './storage-fault';

/** A run's key in the store: its index into experiment.runs and its label (with its seed's `#s`). */
export const stateKey = (runIndex: number, label: string): string => `${runIndex}:${label}`;
/** The label in a stateKey (a label may hold ':' itself; the index never does). */
export const labelOfKey = (key: string): string => key.slice(key.indexOf(':') + 1);

/** `S`: the kept state's type (run-state.ts's, which the page, importing no train code, never reads). */
interface StoredState<S = unknown> {
  session: string;
  /** stateKey(run index, label) (`0:GRPO`, `1:Dr. MAS #1`): stable across page loads, unlike worker ids. */
  run: string;
  /** Steps completed when saved: the resumed run's next step. */
  step: number;
  savedAt: number;
  /** The state as read (UnsealedRunState) and its check (stateCheck). */
  kept?: { state: S; check: string };
  /** An earlier build's: encodeRunState's bytes. */
  bytes?: ArrayBuffer;
}

export type StateInfo = Omit<StoredState, 'bytes' | 'kept'>;

const db = database(STATES_DB);
const states = (tx: IDBTransaction) => tx.objectStore('states');

/** Replaces the run's saved state (`fault`: the test seam of storage-fault.ts). */
export async function putState<S>(s: StoredState<S>, fault?: StorageFault | null): Promise<unknown> {
  refuseIfFull(fault, s.step);
  if (faultAt(fault, 'closed', s.step)) await db.closeAsTheBrowserDoes();
  return db.transact('readwrite', (tx) => req(states(tx).put(s)));
}

export function getState<S>(session: string, key: string): Promise<StoredState<S> | undefined> {
  return db.transact('readonly', (tx) =>
    req(states(tx).get([session, key]) as IDBRequest<StoredState<S> | undefined>),
  );
}

/** What is saved for a session, without the bytes. */
export async function statesOf(session: string): Promise<StateInfo[]> {
  const all = await db.transact('readonly', (tx) =>
    req(states(tx).getAll(sessionKeys(session)) as IDBRequest<StoredState[]>),
  );
  return all.map(({ bytes: _bytes, kept: _kept, ...info }) => info);
}

export function deleteStates(session: string): Promise<unknown> {
  return db.transact('readwrite', (tx) => req(states(tx).delete(sessionKeys(session))));
}
