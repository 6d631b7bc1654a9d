/**
 * Run states: the latest saved state of each run of each stored session, so a run survives a
 * reload or a crashed tab and resumes from its last save. A state is kept as read between two
 * steps, before its hashes (src/train/run-state.ts UnsealedRunState, with its fast check), its
 * payload every weight and moment (4.1 MB for the default experiment). Run workers write them
 * (they hold the weights); the page only lists and deletes them, so this file imports no tfjs.
 * Keyed by session and stateKey(run index, label): the index into the experiment's runs and the
 * run's label (`1:Dr. MAS #2`).
 *
 * Where a worker has origin-private files (OPFS sync access handles), a state goes to its run's
 * pair of files (state-files.ts), written in place from the worker's thread: a save every step
 * costs a fraction of a millisecond of CPU there, where an IndexedDB put cost some 16 ms across the
 * browser's threads (docs/figures.md#where-a-steps-time-goes). Elsewhere, and for every state an
 * earlier build kept, IndexedDB (db `agentwise-states`): the payload a Blob (Chromium's put copies
 * a Blob's bytes once, where it serializes and compresses an ArrayBuffer's), an ArrayBuffer in
 * earlier builds, and before that a state file's encoded bytes (`bytes`): all still read, a run's
 * files first. Opening, transactions and a closed database are idb.ts's: once the browser closed it
 * (the site's storage cleared or evicted; a worker saving to files keeps its connection open to
 * hear so), the worker's save fails, and the page turns recording off with one alert
 * (src/ui/session/worker-messages.ts), as it does when its own database closes.
 */
import { uncarry, type CarriedFrames } from '../core/carried-frames';
import { database, req, sessionKeys, STATES_DB } from './idb';
import { deleteFiles, fileHeaders, filesAvailable, StateFiles, type SlotState } from './state-files';
import { faultAt, refuseIfFull } from './storage-fault';
import type { StorageFault } from './storage-fault';

/** A run's key in the store: its index into experiment.runs and its label (with its seed's `#s`). */
export const stateKey = (runIndex: number, label: string): string => `${runIndex}:${label}`;
/** The label in a stateKey (a label may hold ':' itself; the index never does). */
export const labelOfKey = (key: string): string => key.slice(key.indexOf(':') + 1);

/** What a kept state needs here: its payload, whatever else it holds. */
export interface HasPayload {
  payload: ArrayBuffer;
}
/** A kept state as stored: its payload a Blob (an ArrayBuffer where an earlier build put it). */
type Stored<S extends HasPayload> = Omit<S, 'payload'> & { payload: Blob | ArrayBuffer };

/** `S`: the kept state's type (run-state.ts's, which the page, importing no train code, never reads). */
export interface StoredState<S extends HasPayload = HasPayload> {
  session: string;
  /** stateKey(run index, label) (`0:GRPO`, `1:Dr. MAS #1`): stable across page loads, unlike worker ids. */
  run: string;
  /** Steps completed when saved: the resumed run's next step. */
  step: number;
  savedAt: number;
  /**
   * The state as read (UnsealedRunState), its check (stateCheck) and the frames of its run the page
   * had not stored when it was written (src/core/carried-frames.ts).
   */
  kept?: { state: S; check: string; frames?: CarriedFrames };
  /** An earlier build's: encodeRunState's bytes. */
  bytes?: ArrayBuffer;
}

/** What is saved of a run, without the bytes; `carriedFrom`: the first step of the frames its state carries. */
export type StateInfo = Omit<StoredState, 'bytes' | 'kept'> & { carriedFrom?: number };
type StoredRecord<S extends HasPayload> = Omit<StoredState<S>, 'kept'> & {
  kept?: { state: Stored<S>; check: string; frames?: CarriedFrames };
};

const db = database(STATES_DB);
const states = (tx: IDBTransaction) => tx.objectStore('states');

/** A state file's header: the record without its payload, the check and carried frames beside the state. */
export type FileRecord<S extends HasPayload> = Omit<StoredState<S>, 'kept' | 'bytes'> & {
  check: string;
  state: Omit<S, 'payload'>;
  frames?: CarriedFrames;
};

/** This worker's state files, by [session, run], opened (and locked) on first use; null without OPFS. */
const held = new Map<string, Promise<StateFiles | null>>();
function filesOf(session: string, run: string): Promise<StateFiles | null> {
  if (!filesAvailable()) return Promise.resolve(null);
  const key = JSON.stringify([session, run]);
  let files = held.get(key);
  if (!files) {
    files = StateFiles.open(session, run);
    held.set(key, files);
    files.catch(() => held.delete(key)); // a later save tries again
  }
  return files;
}

/** Lets go of this worker's state files (its run paused or done), so another tab's workers may take them. */
export async function releaseStateFiles(): Promise<void> {
  for (const files of held.values()) (await files.catch(() => null))?.release();
}

/** Replaces the run's saved state (`fault`: the test seam of storage-fault.ts). */
export async function putState<S extends HasPayload>(
  s: StoredState<S>,
  fault?: StorageFault | null,
): Promise<unknown> {
  refuseIfFull(fault, s.step);
  if (faultAt(fault, 'closed', s.step)) await db.closeAsTheBrowserDoes();
  const { kept, ...rest } = s;
  const files = kept ? await filesOf(s.session, s.run) : null;
  if (kept && files) {
    await db.alive(); // throws once the browser cleared the site's storage
    const { payload, ...state } = kept.state;
    const header: FileRecord<S> = {
      ...rest,
      check: kept.check,
      state,
      ...(kept.frames && { frames: kept.frames }),
    };
    return files.write(header, payload);
  }
  const record: StoredRecord<S> = kept
    ? { ...rest, kept: { ...kept, state: { ...kept.state, payload: new Blob([kept.state.payload]) } } }
    : rest;
  return db.transact('readwrite', (tx) => req(states(tx).put(record)));
}

/** The run's state in IndexedDB, its payload read back into an ArrayBuffer (as it was put). */
async function storedState<S extends HasPayload>(
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

/**
 * The first of a run's file states (newest first, as StateFiles.states gives them) that `open`
 * takes: its file and what `open` gave; else what `open` threw first, or null where there is none.
 */
export function firstOpened<S extends HasPayload, T>(
  states: readonly SlotState<FileRecord<S>>[],
  open: (s: StoredState<S>) => T,
): { slot: number; got: T } | { failed: unknown } | null {
  let failed: { failed: unknown } | null = null;
  for (const { slot, header, payload } of states) {
    const { check, state, frames, ...rest } = header;
    try {
      const kept = { state: { ...state, payload } as S, check, ...(frames && { frames }) };
      return { slot, got: open({ ...rest, kept }) };
    } catch (e) {
      failed ??= { failed: e };
    }
  }
  return failed;
}

/**
 * The run's newest saved state that `open` takes (it throws for one that is not whole: its check
 * fails): its files' two states, newest first, then what IndexedDB holds for it; undefined where
 * there is none. Throws what `open` threw first where none is taken. A run that goes on from one
 * of its files writes its next state to the other.
 */
export async function openState<S extends HasPayload, T>(
  session: string,
  key: string,
  open: (s: StoredState<S>) => T,
): Promise<T | undefined> {
  const files = await filesOf(session, key);
  const taken = firstOpened((await files?.states<FileRecord<S>>()) ?? [], open);
  if (taken && 'slot' in taken) {
    files!.resumedFrom(taken.slot);
    return taken.got;
  }
  let failed = taken && { e: taken.failed };
  const stored = await storedState<S>(session, key);
  if (stored)
    try {
      return open(stored);
    } catch (e) {
      failed ??= { e };
    }
  if (failed) throw failed.e;
  return undefined;
}

/** What is saved for a session, without the bytes: each run's files where it has them, else IndexedDB's record. */
export async function statesOf(session: string): Promise<StateInfo[]> {
  const [all, headers] = await Promise.all([
    db.transact('readonly', (tx) =>
      req(states(tx).getAll(sessionKeys(session)) as IDBRequest<StoredState[]>),
    ),
    fileHeaders<FileRecord<HasPayload>>(session),
  ]);
  const info = new Map<string, StateInfo>(
    all.map(({ bytes: _bytes, kept, ...i }) => [i.run, carriedFrom(i, kept?.frames)]),
  );
  for (const [run, { check: _check, state: _state, frames, ...i }] of headers)
    info.set(run, carriedFrom(i, frames));
  return [...info.values()];
}

/** `info` with the first step of the frames its state carries, where they read back whole (uncarry). */
function carriedFrom(info: StateInfo, frames: unknown): StateInfo {
  return frames !== undefined && uncarry(frames, info.step)
    ? { ...info, carriedFrom: (frames as CarriedFrames).from }
    : info;
}

/** Deletes a session's saved states, files and records. */
export async function deleteStates(session: string): Promise<unknown> {
  return Promise.all([
    db.transact('readwrite', (tx) => req(states(tx).delete(sessionKeys(session)))),
    deleteFiles(session),
  ]);
}
