/**
 * Runs kept in IndexedDB (db `agentwise-lab`): one `sessions` record per Train session (its
 * experiment hash, runs with their key tables and live-parameter markers) and its metric frames in
 * `frames`, keyed [session, seq]. Frames are queued as they arrive and written in one transaction
 * at most every second (or every 20 frames), and at once when a run loads or its worker is about
 * to save its state (which waits until they are stored: framesStored); a new marker is written
 * the same way. Writes land in call order. An import (runs read from
 * other trainers' files) is stored the same way as a session of kind 'import', under an id of its
 * own (persist-import.ts), so it never replaces a trained session. A write refused for want of
 * room keeps its frames queued, to go with the next flush (unsaved.ts says what is not saved);
 * any other IndexedDB failure, or the browser closing the database (its storage cleared), turns
 * recording off with one alert. Training goes on either way. A tab records a session only while it
 * has claimed the session's writer lock (writer-lock.ts); a paused or finished tab lets it go (handoff.ts). A
 * live change claims it back first and is written before the tab lets go again (lab.ts setLiveNext);
 * anything else recorded meanwhile (a queued run's keys) waits until it claims it again, or is
 * dropped if another tab took the session over.
 */
import type { RunId } from '../workers/protocol';
import { req, sessionKeys } from '../storage/idb';
import { deleteStates } from '../storage/state-store';
import { refuseIfFull } from '../storage/storage-fault';
import { recordingOff, withTx } from './lab-db';
import { framesSaved, framesUnsaved, storageFault } from './unsaved';
import { claim, letGo } from './writer-lock';
import { useLab } from './store';
import type { LabState, RunView, StoredRun, StoredSession } from './store';

export interface StoredFrame {
  session: string;
  seq: number;
  run: RunId;
  step: number;
  values: Float64Array;
}

const FLUSH_MS = 1000;
const FLUSH_FRAMES = 20;

// ─── recording the live session ─────────────────────────────────────────────

let current: StoredSession | null = null;
let seq = 0;
let queue: StoredFrame[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;
/** The session record changed without a new frame (a marker while paused): write it anyway. */
let recordDirty = false;
/** The last write started: each goes after the one before, so writes land in call order. */
let writing: Promise<void> = Promise.resolve();
const inOrder = (write: () => Promise<void>): Promise<void> => (writing = writing.then(write));
/** This tab let the recorded session go while its runs are stopped: it writes nothing into it meanwhile. */
let away = false;

/** The id of the session being recorded (the live runs'), or null. */
export const recordingId = (): string | null => current?.id ?? null;

/** Starts recording a new session; returns its id (also the key of its runs' saved states). */
export function beginSession(experiment: string, runs: RunView[]): string {
  void flush();
  current = {
    id: `s${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    createdAt: Date.now(),
    experiment,
    runs: runs.map((r) => ({
      ...{ id: r.id, label: r.label, seed: r.seed, runIndex: r.runIndex, color: r.color },
      ...{ keys: [], agents: [], models: [], base: {}, lastStep: 0, markers: [] },
    })),
    lastStep: 0,
  };
  seq = 0;
  recordDirty = false;
  away = false;
  const rec = current;
  void claim(rec.id); // a new id: no other tab has claimed it
  useLab.setState((s) => ({ pastSessions: [rec, ...(s.pastSessions ?? [])] }));
  void withTx('readwrite', (s) => void s.put(rec), undefined);
  return rec.id;
}

/**
 * Records into a stored session again (its runs resume): new frames follow its stored ones. With
 * `experiment`, the record takes it (Continue for N more steps: the same runs, more steps), so a
 * reload restores the session under the experiment that ran.
 */
export async function continueSession(id: string, experiment?: string): Promise<boolean> {
  await flush();
  // The record, and the key of its last frame (a reverse key cursor: no frame is read).
  const got = await withTx(
    'readonly',
    async (s, fr) => {
      const [session, last] = await Promise.all([
        req(s.get(id) as IDBRequest<StoredSession | undefined>),
        req(fr.openKeyCursor(sessionKeys(id), 'prev')),
      ]);
      return session ? { session, nextSeq: last ? (last.primaryKey as [string, number])[1] + 1 : 0 } : null;
    },
    null,
  );
  if (!got) return false;
  current = got.session;
  away = false;
  current.runs.forEach((r) => (r.markers ??= []));
  seq = got.nextSeq;
  recordDirty = experiment !== undefined && experiment !== current.experiment;
  if (experiment !== undefined) current.experiment = experiment;
  if (recordDirty) await flush();
  return true;
}

/**
 * Forgets a run's stored frames from step `fromStep` on (a resumed run recomputes them from its
 * last saved state; on the same backend they come out the same).
 */
export async function dropFrames(id: RunId, fromStep: number): Promise<void> {
  const rec = current;
  if (!rec) return;
  queue = queue.filter((f) => f.run !== id || f.step < fromStep);
  const run = rec.runs.find((r) => r.id === id);
  if (run) run.lastStep = Math.min(run.lastStep, fromStep);
  rec.lastStep = Math.max(0, ...rec.runs.map((r) => r.lastStep));
  const snapshot = { ...rec, runs: rec.runs.map((r) => ({ ...r })) };
  // In order: a write queued before would put dropped frames back, one after must not be dropped.
  await inOrder(() =>
    withTx(
      'readwrite',
      (s, fr) => {
        s.put(snapshot);
        const cursor = fr.openCursor(sessionKeys(rec.id));
        cursor.onsuccess = () => {
          const c = cursor.result;
          if (!c) return;
          const f = c.value as StoredFrame;
          if (f.run === id && f.step >= fromStep) c.delete();
          c.continue();
        };
      },
      undefined,
    ),
  );
}

/** Writes what is queued and stops recording (the workers are gone); another tab may take the session. */
export function endSession(): void {
  const [rec, gone] = [current, away];
  current = null;
  away = false;
  if (gone) {
    // Let go before (the queue was written then): another tab may have claimed it now.
    [queue, recordDirty] = [[], false];
    return;
  }
  if (rec) void flushing(rec).then(() => letGo(rec.id));
}

/**
 * The runs stopped (paused, or finished) and wrote their states: what is queued is written, then
 * the session's lock goes, so another tab may take it over. The tab records it again only once
 * it claims it again (claimAgain).
 */
export async function letGoWhileStopped(): Promise<void> {
  const rec = current;
  if (!rec || away) return;
  await flush();
  if (current !== rec) return; // ended or replaced meanwhile
  away = true;
  letGo(rec.id);
}

/**
 * The runs are to train again: the session is claimed back. False if another tab took it over
 * meanwhile: then this tab records it no more, and what it still queued is dropped unwritten.
 */
export async function claimAgain(): Promise<boolean> {
  const rec = current;
  if (!rec || !away) return true;
  const mine = await claim(rec.id);
  if (current !== rec) return mine;
  if (!mine) {
    current = null;
    queue = [];
    recordDirty = false;
  }
  away = false;
  if (mine && recordDirty) void flush();
  return mine;
}

/** A run loaded: its keys are stored now, so a reload at any later moment shows it (restore.ts skips runs without). */
export function recordReady(id: RunId, info: Pick<StoredRun, 'keys' | 'agents' | 'models' | 'base'>): void {
  const run = current?.runs.find((r) => r.id === id);
  if (!run) return;
  Object.assign(run, info);
  recordDirty = true;
  void flush();
}

export function recordFrame(id: RunId, step: number, values: Float64Array): void {
  if (!current || recordingOff()) return;
  queue.push({ session: current.id, seq: seq++, run: id, step, values });
  if (queue.length >= FLUSH_FRAMES) void flush();
  else timer ??= setTimeout(() => void flush(), FLUSH_MS);
}

/**
 * Markers are mirrored from the store (worker-messages.ts puts a run's new marker there when its worker
 * confirms the change), so nothing else has to remember to record them. (A store reaction.)
 */
export function mirrorMarkers(s: LabState, prev: LabState): void {
  if (!current || recordingOff() || s.runs === prev.runs) return;
  for (const r of s.runs) {
    const run = current.runs.find((x) => x.id === r.id);
    if (!run || run.markers === r.markers || r.markers === prev.runs.find((p) => p.id === r.id)?.markers)
      continue;
    run.markers = r.markers;
    recordDirty = true;
  }
  if (recordDirty) timer ??= setTimeout(() => void flush(), FLUSH_MS);
}

/**
 * Writes the queued frames and the session record in one transaction, after the write in progress:
 * once it resolves, every frame queued before the call is stored (a run's state waits for that:
 * framesStored), or,
 * refused for want of room, queued again (framesWaiting).
 */
export const flush = (): Promise<void> => flushing(current);

/** flush for `rec` (endSession's: the session it ends is no longer current). */
function flushing(rec: StoredSession | null): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = null;
  if (away && rec === current) return writing; // not this tab's now: held back until claimAgain
  const frames = queue;
  queue = [];
  if (!rec || (frames.length === 0 && !recordDirty)) return writing;
  recordDirty = false;
  let [first, furthest] = [Infinity, -1];
  for (const f of frames) {
    const run = rec.runs.find((r) => r.id === f.run);
    if (run) run.lastStep = Math.max(run.lastStep, f.step + 1);
    rec.lastStep = Math.max(rec.lastStep, f.step + 1);
    [first, furthest] = [Math.min(first, f.step), Math.max(furthest, f.step)];
  }
  const snapshot = { ...rec, runs: rec.runs.map((r) => ({ ...r })) };
  return inOrder(async () => {
    const stored = await withTx(
      'readwrite',
      (s, fr) => {
        refuseIfFull(storageFault(), furthest); // the test seam (storage-fault.ts)
        s.put(snapshot);
        for (const f of frames) fr.put(f);
        return true;
      },
      false,
    );
    if (!stored) {
      // Refused for want of room: the frames wait for the next flush, in front of newer ones.
      if (recordingOff() || rec !== current) return;
      queue = frames.concat(queue);
      recordDirty = true;
      timer ??= setTimeout(() => void flush(), FLUSH_MS);
      return frames.length > 0 ? framesUnsaved(first) : undefined;
    }
    framesSaved();
    useLab.setState((s) => ({
      pastSessions: s.pastSessions?.map((p) => (p.id === rec.id ? snapshot : p)) ?? null,
    }));
  });
}

// ─── reading, listing, deleting ───────────────────────────────────────────────

/** Refreshes the store's list of stored sessions, newest first. */
export async function refreshSessions(): Promise<StoredSession[]> {
  const all = await withTx('readonly', (s) => req(s.getAll() as IDBRequest<StoredSession[]>), []);
  all.sort((a, b) => b.createdAt - a.createdAt);
  useLab.setState({ pastSessions: all });
  return all;
}

export async function loadSession(
  id: string,
): Promise<{ session: StoredSession; frames: StoredFrame[] } | null> {
  if (current?.id === id) await flush();
  return withTx(
    'readonly',
    async (s, fr) => {
      const [session, frames] = await Promise.all([
        req(s.get(id) as IDBRequest<StoredSession | undefined>),
        req(fr.getAll(sessionKeys(id)) as IDBRequest<StoredFrame[]>),
      ]);
      return session ? { session, frames } : null;
    },
    null,
  );
}

export async function deleteSession(id: string): Promise<void> {
  if (current?.id === id) {
    current = null;
    queue = [];
    letGo(id);
  }
  // After the writes queued before it, which would put the session back.
  await inOrder(() =>
    withTx(
      'readwrite',
      (s, fr) => {
        s.delete(id);
        fr.delete(sessionKeys(id));
      },
      undefined,
    ),
  );
  useLab.setState((s) => ({ pastSessions: s.pastSessions?.filter((p) => p.id !== id) ?? null }));
  await deleteStates(id).catch(() => undefined); // no saved states (or no IndexedDB): nothing to delete
}

/** Whether this tab records its session now: it has one, is its writer, and recording is on. */
export const recording = (): boolean => current !== null && !away && !recordingOff();

/**
 * A run's worker has read its state after `step` steps (`saving`): the run's frames before it are
 * written now, and the state may be written once they are stored (LabSession asks, the worker
 * waits). So a state is never stored ahead of its frames: a page closed between the two writes
 * leaves the frames one step ahead of the state, which the resumed run recomputes. Not stored:
 * refused for want of room (`full`: they wait in the queue), or this tab is not recording.
 */
export async function framesStored(id: RunId, step: number): Promise<{ stored: boolean; full?: boolean }> {
  await flush();
  if (!recording()) return { stored: false };
  const waiting = queue.some((f) => f.run === id && f.step < step);
  return waiting ? { stored: false, full: true } : { stored: true };
}

/** Best effort: write what is queued when the page goes away. */
export function flushOnHide(): () => void {
  const f = () => void flush();
  window.addEventListener('pagehide', f);
  return () => window.removeEventListener('pagehide', f);
}
