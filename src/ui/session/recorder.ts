/**
 * The recorder: the page's runs kept in IndexedDB (db `agentwise-lab`, recorder-db.ts). One
 * `sessions` record per Train session (its experiment hash, runs with their key tables and
 * live-parameter markers) and its metric frames in `frames`, keyed [session, seq]. Frames are
 * queued as they arrive and written in one transaction at most every second (or every 20 frames),
 * and at once when a run loads; a new marker is written the same way. A run's worker saves its
 * state after every step without waiting for them: it asks how far they are stored (framesStored)
 * and its state carries the rest (src/core/carried-frames.ts). Writes land in call order. An
 * import (runs read from other trainers' files) is stored the same way as a session of kind
 * 'import', under an id of its own, so it never replaces a trained session. A write refused for
 * want of room keeps its frames queued, to go with the next flush (storage-full.ts says what is
 * not saved); any other IndexedDB failure, or the browser closing the database (its storage
 * cleared), turns recording off with one alert. Training goes on either way. A tab records a
 * session only while it has claimed the session's writer lock (writer-lock.ts); a paused or
 * finished tab lets it go (controller.ts, letGoOnceStopped). A live change claims it back first
 * and is written before the tab lets go again (SessionController.setLiveNext); anything else
 * recorded meanwhile (a queued run's keys) waits until it claims it again, or is dropped if
 * another tab took the session over.
 */
import type { RunId } from '../../workers/protocol';
import { req, sessionKeys } from '../../storage/idb';
import { deleteStates } from '../../storage/state-store';
import { parseStorageFault, refuseIfFull, type StorageFault } from '../../storage/storage-fault';
import { LabDb } from './recorder-db';
import { framesSaved, framesUnsaved } from './storage-full';
import type { WriterLock } from './writer-lock';
import { NOT_RECORDED } from '../opened-words';
import { labBuild } from './build-id';
import { setStorage } from './store';
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
/**
 * What a run trained on, `before` and now from step `fromStep` on: "wasm", "webgpu, then wasm";
 * steps before `fromStep` with nothing kept read "not recorded"; unchanged if it goes on as before.
 */
export function andThen(
  before: string | undefined,
  now: string | undefined,
  fromStep: number,
): string | undefined {
  if (now === undefined) return before;
  const was = before ?? (fromStep > 0 ? NOT_RECORDED : undefined);
  if (was === undefined) return now;
  return was === now || was.endsWith(`, then ${now}`) ? was : `${was}, then ${now}`;
}

/** Frames per transaction when an import is stored: each a short task (8,300 steps: 83 of them). */
const IMPORT_CHUNK = 100;

export class Recorder {
  readonly db = new LabDb();
  /** The test seam's plan from the page's query string (storage-fault.ts), read once. */
  readonly fault: StorageFault | null =
    typeof location === 'undefined' ? null : parseStorageFault(location.search);
  /** The session being recorded (the live runs'), and the seq of its next frame. */
  private current: StoredSession | null = null;
  private seq = 0;
  private queue: StoredFrame[] = [];
  /**
   * Per run of the current session, the step before which all its frames are stored (a run's
   * frames are queued and written in step order); 0 where unknown, as for a resumed run's.
   */
  private through = new Map<RunId, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The session record changed without a new frame (a marker while paused): write it anyway. */
  private recordDirty = false;
  /** The last write started: each goes after the one before, so writes land in call order. */
  private writing: Promise<void> = Promise.resolve();
  /** This tab let the recorded session go while its runs are stopped: it writes nothing into it meanwhile. */
  private away = false;
  /** Whether the browser was asked to keep the site's storage (askToKeep). */
  private asked = false;

  constructor(private readonly writer: WriterLock) {}

  private inOrder(write: () => Promise<void>): Promise<void> {
    return (this.writing = this.writing.then(write));
  }

  /** The id of the session being recorded (the live runs'), or null. */
  get recordingId(): string | null {
    return this.current?.id ?? null;
  }

  /** The session being recorded, by its id and start, or null. */
  get recordingSession(): { id: string; createdAt: number } | null {
    return this.current ? { id: this.current.id, createdAt: this.current.createdAt } : null;
  }

  /** Starts recording a new session; returns its id (also the key of its runs' saved states). */
  beginSession(experiment: string, runs: RunView[]): string {
    void this.flush();
    const rec: StoredSession = {
      id: `s${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
      createdAt: Date.now(),
      experiment,
      runs: runs.map((r) => ({
        id: r.id,
        label: r.label,
        seed: r.seed,
        runIndex: r.runIndex,
        color: r.color,
        keys: [],
        agents: [],
        models: [],
        base: {},
        lastStep: 0,
        markers: [],
      })),
      lastStep: 0,
      builds: [labBuild()],
    };
    this.current = rec;
    this.seq = 0;
    this.through = new Map();
    this.recordDirty = false;
    this.away = false;
    void this.writer.claim(rec.id); // a new id: no other tab has claimed it
    setStorage((s) => ({ pastSessions: [rec, ...(s.pastSessions ?? [])] }));
    void this.db.withTx('readwrite', (s) => void s.put(rec), undefined);
    return rec.id;
  }

  /**
   * Records into a stored session again (its runs resume): new frames follow its stored ones. With
   * `experiment`, the record takes it (Continue for N more steps: the same runs, more steps), so a
   * reload restores the session under the experiment that ran.
   */
  async continueSession(id: string, experiment?: string): Promise<boolean> {
    await this.flush();
    // The record, and the key of its last frame (a reverse key cursor: no frame is read).
    const got = await this.db.withTx(
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
    const rec = (this.current = got.session);
    this.away = false;
    rec.runs.forEach((r) => (r.markers ??= []));
    this.seq = got.nextSeq;
    this.through = new Map();
    this.recordDirty = experiment !== undefined && experiment !== rec.experiment;
    if (experiment !== undefined) rec.experiment = experiment;
    // This build records into it from here on (a session stored before builds were kept: null first).
    const builds = rec.builds ?? [null];
    if (builds[builds.length - 1] !== labBuild()) {
      rec.builds = [...builds, labBuild()];
      this.recordDirty = true;
    }
    if (this.recordDirty) await this.flush();
    return true;
  }

  /**
   * Forgets a run's stored frames from step `fromStep` on (a resumed run recomputes them from its
   * last saved state; on the same backend they come out the same).
   */
  async dropFrames(id: RunId, fromStep: number): Promise<void> {
    const rec = this.current;
    if (!rec) return;
    this.queue = this.queue.filter((f) => f.run !== id || f.step < fromStep);
    this.through.set(id, Math.min(this.through.get(id) ?? 0, fromStep));
    const run = rec.runs.find((r) => r.id === id);
    if (run) run.lastStep = Math.min(run.lastStep, fromStep);
    rec.lastStep = Math.max(0, ...rec.runs.map((r) => r.lastStep));
    const snapshot = { ...rec, runs: rec.runs.map((r) => ({ ...r })) };
    // In order: a write queued before would put dropped frames back, one after must not be dropped.
    await this.inOrder(() =>
      this.db.withTx(
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
  endSession(): void {
    const [rec, gone] = [this.current, this.away];
    this.current = null;
    this.away = false;
    if (gone) {
      // Let go before (the queue was written then): another tab may have claimed it now.
      [this.queue, this.recordDirty] = [[], false];
      return;
    }
    if (rec) void this.flushing(rec).then(() => this.writer.letGo(rec.id));
  }

  /**
   * The runs stopped (paused, or finished) and wrote their states: what is queued is written, then
   * the session's lock goes, so another tab may take it over. The tab records it again only once
   * it claims it again (claimAgain).
   */
  async letGoWhileStopped(): Promise<void> {
    const rec = this.current;
    if (!rec || this.away) return;
    await this.flush();
    if (this.current !== rec) return; // ended or replaced meanwhile
    this.away = true;
    this.writer.letGo(rec.id);
  }

  /**
   * The runs are to train again: the session is claimed back. False if another tab took it over
   * meanwhile: then this tab records it no more, and what it still queued is dropped unwritten.
   */
  async claimAgain(): Promise<boolean> {
    const rec = this.current;
    if (!rec || !this.away) return true;
    const mine = await this.writer.claim(rec.id);
    if (this.current !== rec) return mine;
    if (!mine) {
      this.current = null;
      this.queue = [];
      this.recordDirty = false;
    }
    this.away = false;
    if (mine && this.recordDirty) void this.flush();
    return mine;
  }

  /** A run loaded: its keys are stored now, so a reload at any later moment shows it (restore.ts skips runs without). */
  recordReady(id: RunId, info: Pick<StoredRun, 'keys' | 'agents' | 'models' | 'base'>): void {
    const run = this.current?.runs.find((r) => r.id === id);
    if (!run) return;
    Object.assign(run, info);
    this.recordDirty = true;
    void this.flush();
  }

  /**
   * Where a run trains from step `fromStep` on: its backend and kernels, after those it trained on
   * before (a fallback, or a resume on another backend), so a stored session says what each of its
   * runs trained on. Steps trained before these were kept read "not recorded".
   */
  recordMachine(id: RunId, fromStep: number, backend: string | undefined, kernels: string | undefined): void {
    const run = this.current?.runs.find((r) => r.id === id);
    if (!run) return;
    const [b, k] = [andThen(run.backend, backend, fromStep), andThen(run.kernels, kernels, fromStep)];
    if (b === run.backend && k === run.kernels) return;
    Object.assign(run, { backend: b, kernels: k });
    this.recordDirty = true;
    this.flushSoon();
  }

  /** A flush within FLUSH_MS, unless one is already due. */
  private flushSoon(): void {
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  recordFrame(id: RunId, step: number, values: Float64Array): void {
    if (!this.current || this.db.off) return;
    this.queue.push({ session: this.current.id, seq: this.seq++, run: id, step, values });
    if (this.queue.length >= FLUSH_FRAMES) void this.flush();
    else this.flushSoon();
  }

  /**
   * Markers are mirrored from the store (worker-messages.ts puts a run's new marker there when its
   * worker confirms the change), so nothing else has to remember to record them. (A store reaction.)
   */
  mirrorMarkers(s: LabState, prev: LabState): void {
    const rec = this.current;
    if (!rec || this.db.off || s.runs === prev.runs) return;
    for (const r of s.runs) {
      const run = rec.runs.find((x) => x.id === r.id);
      if (!run || run.markers === r.markers || r.markers === prev.runs.find((p) => p.id === r.id)?.markers)
        continue;
      run.markers = r.markers;
      this.recordDirty = true;
    }
    if (this.recordDirty) this.flushSoon();
  }

  /**
   * Writes the queued frames and the session record in one transaction, after the write in
   * progress: once it resolves, every frame queued before the call is stored (framesStored says
   * so from then on), or, refused for want of room, queued again.
   */
  flush(): Promise<void> {
    return this.flushing(this.current);
  }

  /** flush for `rec` (endSession's: the session it ends is no longer current). */
  private flushing(rec: StoredSession | null): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.away && rec === this.current) return this.writing; // not this tab's now: held back until claimAgain
    const frames = this.queue;
    this.queue = [];
    if (!rec || (frames.length === 0 && !this.recordDirty)) return this.writing;
    this.recordDirty = false;
    let [first, furthest] = [Infinity, -1];
    for (const f of frames) {
      const run = rec.runs.find((r) => r.id === f.run);
      if (run) run.lastStep = Math.max(run.lastStep, f.step + 1);
      rec.lastStep = Math.max(rec.lastStep, f.step + 1);
      [first, furthest] = [Math.min(first, f.step), Math.max(furthest, f.step)];
    }
    const snapshot = { ...rec, runs: rec.runs.map((r) => ({ ...r })) };
    return this.inOrder(async () => {
      const stored = await this.db.withTx(
        'readwrite',
        (s, fr) => {
          refuseIfFull(this.fault, furthest); // the test seam (storage-fault.ts)
          s.put(snapshot);
          for (const f of frames) fr.put(f);
          return true;
        },
        false,
      );
      if (!stored) {
        // Refused for want of room: the frames wait for the next flush, in front of newer ones.
        if (this.db.off || rec !== this.current) return;
        this.queue = frames.concat(this.queue);
        this.recordDirty = true;
        this.flushSoon();
        return frames.length > 0 ? framesUnsaved(first) : undefined;
      }
      framesSaved();
      if (rec === this.current)
        for (const f of frames) this.through.set(f.run, Math.max(this.through.get(f.run) ?? 0, f.step + 1));
      setStorage((s) => ({
        pastSessions: s.pastSessions?.map((p) => (p.id === rec.id ? snapshot : p)) ?? null,
      }));
    });
  }

  /** Whether this tab records its session now: it has one, is its writer, and recording is on. */
  get recording(): boolean {
    return this.current !== null && !this.away && !this.db.off;
  }

  /**
   * A run's worker has read its state (`saving`): how far its frames are stored, every one before
   * `through`, so its state carries the rest (src/core/carried-frames.ts); nothing is written for
   * it. `stored` false: this tab is not recording, and the state is not written.
   */
  framesStored(id: RunId): { stored: boolean; through: number } {
    return { stored: this.recording, through: this.through.get(id) ?? 0 };
  }

  /** Best effort: write what is queued when the page goes away. */
  flushOnHide(): () => void {
    const f = () => void this.flush();
    window.addEventListener('pagehide', f);
    return () => window.removeEventListener('pagehide', f);
  }

  /** Once per page, once a session is worth keeping: asks the browser to keep this site's data. */
  askToKeep(): void {
    if (this.asked || typeof navigator === 'undefined' || !navigator.storage?.persist) return;
    this.asked = true;
    void (async () => {
      const kept = (await navigator.storage.persisted()) || (await navigator.storage.persist());
      setStorage({ kept });
    })().catch(() => undefined);
  }

  // ─── reading, listing, deleting ─────────────────────────────────────────────

  /** Refreshes the store's list of stored sessions, newest first. */
  async refreshSessions(): Promise<StoredSession[]> {
    const all = await this.db.withTx('readonly', (s) => req(s.getAll() as IDBRequest<StoredSession[]>), []);
    all.sort((a, b) => b.createdAt - a.createdAt);
    setStorage({ pastSessions: all });
    return all;
  }

  async loadSession(id: string): Promise<{ session: StoredSession; frames: StoredFrame[] } | null> {
    if (this.current?.id === id) await this.flush();
    return this.db.withTx(
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

  async deleteSession(id: string): Promise<void> {
    if (this.current?.id === id) {
      this.current = null;
      this.queue = [];
      this.writer.letGo(id);
    }
    // After the writes queued before it, which would put the session back.
    await this.inOrder(() =>
      this.db.withTx(
        'readwrite',
        (s, fr) => {
          s.delete(id);
          fr.delete(sessionKeys(id));
        },
        undefined,
      ),
    );
    setStorage((s) => ({ pastSessions: s.pastSessions?.filter((p) => p.id !== id) ?? null }));
    await deleteStates(id).catch(() => undefined); // no saved states (or no IndexedDB): nothing to delete
  }

  // ─── imports: runs read from other trainers' files, stored beside the sessions ──

  /**
   * Stores an import as a session of kind 'import' under its own id: its frames in chunks, then
   * its record, so a reload in the middle never lists half an import. Returns whether it was stored.
   */
  async storeImport(
    id: string,
    runs: StoredRun[],
    frames: ReadonlyMap<RunId, readonly Float64Array[]>,
  ): Promise<boolean> {
    const all: StoredFrame[] = [];
    for (const r of runs)
      for (const values of frames.get(r.id) ?? [])
        all.push({ session: id, seq: all.length, run: r.id, step: values[0], values });
    for (let i = 0; i < all.length && !this.db.off; i += IMPORT_CHUNK) {
      // Copies, not views, made chunk by chunk: IndexedDB would store a view's whole buffer.
      const chunk = all.slice(i, i + IMPORT_CHUNK).map((f) => ({ ...f, values: f.values.slice() }));
      await this.db.withTx('readwrite', (_s, fr) => chunk.forEach((f) => fr.put(f)), undefined);
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
    if (!this.db.off) await this.db.withTx('readwrite', (s) => void s.put(rec), undefined);
    if (this.db.off) return false;
    setStorage((s) => ({ pastSessions: [rec, ...(s.pastSessions ?? [])] }));
    return true;
  }

  /** Marks a stored import as on the charts or not (it comes back after a reload if it is). */
  async setImportShown(id: string, shown: boolean): Promise<void> {
    const rec = await this.db.withTx(
      'readonly',
      (s) => req(s.get(id) as IDBRequest<StoredSession | undefined>),
      undefined,
    );
    if (rec?.kind !== 'import') return;
    const next = { ...rec, shown };
    await this.db.withTx('readwrite', (s) => void s.put(next), undefined);
    setStorage((s) => ({ pastSessions: s.pastSessions?.map((p) => (p.id === id ? next : p)) ?? null }));
  }
}
