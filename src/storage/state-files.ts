/**
 * Run states as origin-private files (OPFS), the way a run's worker saves its state every step: a
 * sync access handle per file, opened once and held while the run trains (let go when it pauses),
 * each write in place over the last but one. On
 * disk its writes go from the worker's thread straight into the OS's file (no copy to the browser
 * process, no flush: the OS has the bytes, as IndexedDB's relaxed commit promised), about 0.4 ms of
 * CPU for 4.1 MB against 16 for the Blob put (docs/figures.md#where-a-steps-time-goes).
 *
 * Layout (docs/formats.md#run-states): folder `agentwise-states/<session>/`, two files a run,
 * `<stateKey>.a` and `<stateKey>.b` (names URI-encoded), written in turn, so a write torn by a
 * killed tab or a crash leaves the other whole. Each file: 16 bytes (magic `AWS1`, the header's
 * length, the payload's length, 0, little-endian u32s), the header (JSON: session, run, step,
 * savedAt, check, and the state without its payload), then the payload. An empty file holds no
 * state. Which of the two is newest is read from their steps; the caller's check (`open`) decides
 * whether one is whole.
 *
 * The handles' exclusive locks are one writer per run's state: a second worker (another tab on
 * the same session) cannot open them. The page reads the headers (File, no lock needed) to list
 * what is saved, and removes the folder when the session is deleted.
 */

export const STATES_DIR = 'agentwise-states';
const SLOTS = ['a', 'b'] as const;
const MAGIC = 0x31535741; // 'AWS1'
const FIXED = 16;

/** A state's header as kept in its file: whatever the caller keeps, `step` among it. */
export interface FileHeader {
  step: number;
}

/** Whether this context can keep states as files (a worker in a browser with OPFS sync access handles). */
export const filesAvailable = (): boolean =>
  typeof FileSystemSyncAccessHandle !== 'undefined' && typeof navigator.storage?.getDirectory === 'function';

/** The folder of a session's state files (created with `create`), or null where there is none. */
async function sessionDir(session: string, create: boolean): Promise<FileSystemDirectoryHandle | null> {
  try {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle(STATES_DIR, { create });
    return await dir.getDirectoryHandle(encodeURIComponent(session), { create });
  } catch (e) {
    if ((e as DOMException).name === 'NotFoundError') return null;
    throw e;
  }
}

const fileName = (run: string, slot: (typeof SLOTS)[number]) => `${encodeURIComponent(run)}.${slot}`;

/**
 * The run (stateKey) whose state file is named `name`, or null for a name this lab does not write
 * (another slot, a name that is no URI-encoded run, such as `%E0%A4%A.a`): whatever else the
 * folder holds is passed over, never thrown on.
 */
export function runOfFile(name: string): string | null {
  const dot = name.lastIndexOf('.');
  const slot = name.slice(dot + 1);
  if (dot < 0 || !SLOTS.includes(slot as 'a')) return null;
  try {
    const run = decodeURIComponent(name.slice(0, dot));
    return fileName(run, slot as 'a') === name ? run : null;
  } catch {
    return null; // a malformed escape, or a lone surrogate (`\uD800.a`), which encodes to nothing
  }
}

/** The header and payload lengths in a file's first 16 bytes, or null where they are not ours. */
function lengths(fixed: Uint8Array, size: number): { header: number; payload: number } | null {
  if (fixed.byteLength < FIXED) return null;
  const v = new DataView(fixed.buffer, fixed.byteOffset, FIXED);
  const header = v.getUint32(4, true);
  const payload = v.getUint32(8, true);
  return v.getUint32(0, true) === MAGIC && FIXED + header + payload === size ? { header, payload } : null;
}

const parse = <H>(bytes: Uint8Array): H | null => {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as H;
  } catch {
    return null; // torn
  }
};

/** A state file's bytes before its payload: the 16 fixed bytes and the header. */
export function frameHead(header: FileHeader, payloadLength: number): Uint8Array {
  const head = new TextEncoder().encode(JSON.stringify(header));
  const fixed = new Uint8Array(FIXED + head.byteLength);
  const v = new DataView(fixed.buffer);
  v.setUint32(0, MAGIC, true);
  v.setUint32(4, head.byteLength, true);
  v.setUint32(8, payloadLength, true);
  fixed.set(head, FIXED);
  return fixed;
}

/**
 * Reads `length` bytes of a state file from `at`: a sync access handle's bytes (in the worker), or
 * a promise of a File's (the page's listing).
 */
export type ReadAt<B extends Uint8Array | Promise<Uint8Array>> = (at: number, length: number) => B;

/** A state file's frame: its header, and where its payload lies. */
export interface Frame<H extends FileHeader> {
  header: H;
  payloadAt: number;
  payloadLength: number;
}

/** `f` of `x`: at once where `x` is there, once it is where it is a promise. */
const then = <A, B>(x: A | Promise<A>, f: (a: A) => B | Promise<B>): B | Promise<B> =>
  x instanceof Promise ? x.then(f) : f(x);

/**
 * The frame of a state file of `size` bytes, read through `read` (at once where it gives bytes, as
 * a promise where it gives promises), or null for an empty, foreign or torn file: no magic, lengths
 * that do not add up to its size, a header that is not JSON or has no numeric step. Nothing is read
 * beyond its size, so a forged length asks for no more than the file holds.
 */
export function frameOf<H extends FileHeader>(size: number, read: ReadAt<Uint8Array>): Frame<H> | null;
export function frameOf<H extends FileHeader>(
  size: number,
  read: ReadAt<Promise<Uint8Array>>,
): Promise<Frame<H> | null>;
export function frameOf<H extends FileHeader>(
  size: number,
  read: ReadAt<Uint8Array | Promise<Uint8Array>>,
): Frame<H> | null | Promise<Frame<H> | null> {
  if (size < FIXED) return null;
  return then(read(0, FIXED), (fixed): Frame<H> | null | Promise<Frame<H> | null> => {
    const n = lengths(fixed, size);
    if (!n) return null;
    return then(read(FIXED, n.header), (head): Frame<H> | null => {
      const header = parse<H>(head);
      if (!header || typeof header.step !== 'number') return null;
      return { header, payloadAt: FIXED + n.header, payloadLength: n.payload };
    });
  });
}

/** A state read from a file: which file (slot), its header and its payload. */
export interface SlotState<H extends FileHeader> {
  slot: number;
  header: H;
  payload: ArrayBuffer;
}

/**
 * The states in a run's files (each read through its `read`), newest first: empty, foreign and
 * torn files left out. The caller's check decides whether one is whole.
 */
export function statesIn<H extends FileHeader>(
  files: readonly { size: number; read: ReadAt<Uint8Array> }[],
): SlotState<H>[] {
  const out: SlotState<H>[] = [];
  files.forEach(({ size, read }, slot) => {
    const frame = frameOf<H>(size, read);
    if (!frame) return;
    const payload = read(frame.payloadAt, frame.payloadLength);
    const whole = payload.byteOffset === 0 && payload.byteLength === payload.buffer.byteLength;
    out.push({
      slot,
      header: frame.header,
      payload: (whole ? payload : payload.slice()).buffer as ArrayBuffer,
    });
  });
  return out.sort((a, b) => b.header.step - a.header.step);
}

/**
 * `f` once no sync access handle holds what it touches: a worker of this session that was just
 * terminated lets go within milliseconds, so it is tried again for up to 5 s; a lock held longer
 * is another writer's (another tab's), and `f` throws saying so.
 */
async function unlocked<T>(f: () => Promise<T>, what: string): Promise<T> {
  const until = Date.now() + 5000;
  for (;;) {
    try {
      return await f();
    } catch (e) {
      if ((e as DOMException).name !== 'NoModificationAllowedError') throw e;
      if (Date.now() > until)
        throw new Error(`another tab holds ${what}: one writer per session`, { cause: e });
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }
}

/** One run's pair of state files, held open by its worker. */
export class StateFiles {
  /** The slot holding the newest whole state, or null: the next write goes to the other (or to `a`). */
  private newest: number | null = null;
  /** Until the first write or resumedFrom: a run that did not resume from these files empties both first. */
  private unread = true;

  private constructor(
    private readonly files: FileSystemFileHandle[],
    /** Their sync access handles (and locks) while held; null once released. */
    private handles: FileSystemSyncAccessHandle[] | null,
  ) {}

  private static lock(files: FileSystemFileHandle[]): Promise<FileSystemSyncAccessHandle[]> {
    return Promise.all(
      files.map((f) => unlocked(() => f.createSyncAccessHandle(), `the state file ${f.name}`)),
    );
  }

  /** Opens (creating them if need be) the two files of `run` in `session`, holding their locks. */
  static async open(session: string, run: string): Promise<StateFiles> {
    const dir = (await sessionDir(session, true))!;
    const files = await Promise.all(SLOTS.map((s) => dir.getFileHandle(fileName(run, s), { create: true })));
    return new StateFiles(files, await StateFiles.lock(files));
  }

  /**
   * Lets go of the files (a paused or finished run: its page may let the session go to another
   * tab, whose workers take them); the next write takes them again.
   */
  release(): void {
    for (const h of this.handles ?? []) h.close();
    this.handles = null;
  }

  /** Each file's state, newest first (empty, foreign and torn files left out); `resumedFrom` says which one a run took. */
  async states<H extends FileHeader>(): Promise<SlotState<H>[]> {
    const handles = (this.handles ??= await StateFiles.lock(this.files));
    return statesIn<H>(
      handles.map((h) => ({
        size: h.getSize(),
        read: (at, length) => {
          const bytes = new Uint8Array(length);
          h.read(bytes, { at });
          return bytes;
        },
      })),
    );
  }

  /** The run goes on from the state in `slot`: the next write goes to the other file. */
  resumedFrom(slot: number): void {
    this.newest = slot;
    this.unread = false;
  }

  /**
   * Writes a state into the file not holding the newest: its header and payload in place,
   * truncated only if its size changed, not flushed. Throws a QuotaExceededError where there is no
   * room. A run that did not resume from these files empties both first, so no state of an
   * earlier try at this run outranks it.
   */
  async write(header: FileHeader, payload: ArrayBuffer): Promise<void> {
    const handles = (this.handles ??= await StateFiles.lock(this.files));
    if (this.unread) for (const h of handles) h.truncate(0);
    this.unread = false;
    const slot = this.newest === null ? 0 : 1 - this.newest;
    const h = handles[slot];
    const fixed = frameHead(header, payload.byteLength);
    const size = fixed.byteLength + payload.byteLength;
    if (
      h.write(fixed, { at: 0 }) !== fixed.byteLength ||
      h.write(payload, { at: fixed.byteLength }) !== payload.byteLength
    )
      throw new Error(`a run state's file took part of a write (${h.getSize()} bytes of ${size})`);
    if (h.getSize() !== size) h.truncate(size);
    this.newest = slot;
  }
}

/**
 * The header of each run's newest state file in `session` (the page's listing: read from Files,
 * whatever worker holds them), by stateKey; empty where OPFS or the folder is not there. Files
 * and folders not named as this lab names them are passed over (runOfFile).
 */
export async function fileHeaders<H extends FileHeader>(session: string): Promise<Map<string, H>> {
  const out = new Map<string, H>();
  if (typeof navigator === 'undefined' || typeof navigator.storage?.getDirectory !== 'function') return out;
  const dir = await sessionDir(session, false);
  if (!dir) return out;
  for await (const [name, handle] of dir.entries()) {
    const run = runOfFile(name);
    if (handle.kind !== 'file' || run === null) continue;
    const file = await (handle as FileSystemFileHandle).getFile();
    const frame = await frameOf<H>(
      file.size,
      async (at, length) => new Uint8Array(await file.slice(at, at + length).arrayBuffer()),
    );
    if (frame && frame.header.step > (out.get(run)?.step ?? -1)) out.set(run, frame.header);
  }
  return out;
}

/** Removes a session's state files (none there: nothing to do), once its workers have let go of them. */
export async function deleteFiles(session: string): Promise<void> {
  if (typeof navigator === 'undefined' || typeof navigator.storage?.getDirectory !== 'function') return;
  try {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle(STATES_DIR);
    const name = encodeURIComponent(session);
    await unlocked(() => dir.removeEntry(name, { recursive: true }), `the state files of ${session}`);
  } catch (e) {
    if ((e as DOMException).name !== 'NotFoundError') throw e;
  }
}
