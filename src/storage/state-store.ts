/**
 * Run states in IndexedDB (db `agentwise-states`): the latest saved state of each run of each
 * stored session, so a run survives a reload or a crashed tab and resumes from its last save. A
 * state is kept as read between two steps, before its hashes (src/train/run-state.ts
 * UnsealedRunState, with its fast check), its payload (every weight and moment, 4.1 MB for the
 * default experiment) as a Blob: Chromium's put copies a Blob's bytes once, where it serializes and
 * compresses an ArrayBuffer's, and a save every step paid for that in the run's thread
 * (docs/figures.md#where-a-steps-time-goes). Earlier builds kept the payload as an ArrayBuffer, and
 * before that a state file's encoded bytes (`bytes`): both are still read. Run workers write them (they hold the weights); the
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

/** What a kept state needs here: its payload, whatever else it holds. */
interface HasPayload {
  payload: ArrayBuffer;
}
/** A kept state as stored: its payload a Blob (an ArrayBuffer where an earlier build put it). */
type Stored<S extends HasPayload> = Omit<S, 'payload'> & { payload: Blob | ArrayBuffer };

/** `S`: the kept state's type (run-state.ts's, which the page, importing no train code, never reads). */
interface StoredState<S extends HasPayload = HasPayload> {
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
type StoredRecord<S extends HasPayload> = Omit<StoredState<S>, 'kept'> & {
  kept?: { state: Stored<S>; check: string };
};

const db = database(STATES_DB);
const states = (tx: IDBTransaction) => tx.objectStore('states');

/** Replaces the run's saved state (`fault`: the test seam of storage-fault.ts). */
export async function putState<S extends HasPayload>(
  s: StoredState<S>,
  fault?: StorageFault | null,
): Promise<unknown> {
  refuseIfFull(fault, s.step);
  if (faultAt(fault, 'closed', s.step)) await db.closeAsTheBrowserDoes();
  const { kept, ...rest } = s;
  const record: StoredRecord<S> = kept
    ? { ...rest, kept: { ...kept, state: { ...kept.state, payload: new Blob([kept.state.payload]) } } }
    : rest;
  return db.transact('readwrite', (tx) => req(states(tx).put(record)));
}

/** The run's saved state, its payload read back into an ArrayBuffer (as it was put). */
export async function getState<S extends HasPayload>(
  session: string,
  key: string,
): Promise<StoredState<S> | undefined> {
  const record = await db.transact('readonly', (tx) =>
    req(states(tx).get([session, key]) as IDBRequest<StoredRecord<S> | undefined>),
  );
  if (!record?.kept) return record as StoredState<S> | undefined;
  const { payload } = record.kept.state;
  const bytes = payload instanceof Blob ? await payload.arrayBuffer() : payload;
  return { ...record, kept: { ...record.kept, state: { ...record.kept.state, payload: bytes } as S } };
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
