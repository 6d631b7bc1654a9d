/**
 * A test seam: storage that has run out of room, or that the browser took away. Neither can be
 * forced from a test (the browser's quota, its clearing or evicting a site's storage), so a page
 * opened with one of these plans fakes it:
 *
 * - `?storage-fault=quota:K-J` (or `quota:K`, which never clears) makes its stores refuse writes
 *   as a full disk does, with a `QuotaExceededError`, for the steps K ≤ step < J: the page's
 *   recorder (src/ui/session/recorder.ts) refuses a whole batch of frames when the furthest step it holds
 *   is in that range (its frames before K with it), and each run's worker (putState) a state
 *   saved at a step in it (docs/page.md#storage-full-or-gone).
 * - `?storage-fault=closed:K` closes each run's worker's connection to the run states' database
 *   as it writes its first state at step K or later, as the browser closes it when it clears or
 *   evicts the site's storage: its `close` event fires, and the connection is gone
 *   (closeAsTheBrowserDoes in src/storage/idb.ts).
 *
 * The page passes the plan to its workers in their `start` message. Without the parameter nothing
 * changes.
 *
 * One more knob of the same kind, for benchmarks: `?save-every=N` saves each run's state every N
 * steps instead of every step (0: only on pause and when done), so `npm run bench:experiment`
 * measures what saving costs with saves on and off in one run (docs/figures.md).
 */

/** Writes at steps from ≤ step < until fail as a full disk's would (`quota`), or meet a closed database (`closed`). */
export interface StorageFault {
  kind: 'quota' | 'closed';
  from: number;
  until: number;
}

/** The plan in a page's query string (`location.search`), or null. */
export function parseStorageFault(search: string): StorageFault | null {
  const quota = /[?&]storage-fault=quota:(\d+)(?:-(\d+))?(?:&|$)/.exec(search);
  if (quota)
    return {
      kind: 'quota',
      from: Number(quota[1]),
      until: quota[2] === undefined ? Infinity : Number(quota[2]),
    };
  const closed = /[?&]storage-fault=closed:(\d+)(?:&|$)/.exec(search);
  return closed ? { kind: 'closed', from: Number(closed[1]), until: Infinity } : null;
}

/** Whether the plan fails a write of kind `kind` at `step`. */
export const faultAt = (
  fault: StorageFault | null | undefined,
  kind: StorageFault['kind'],
  step: number,
): boolean => fault?.kind === kind && step >= fault.from && step < fault.until;

/** Throws what a full disk throws (idb.ts's isFull reads it so) if the plan refuses a write at `step`. */
export function refuseIfFull(fault: StorageFault | null | undefined, step: number): void {
  if (faultAt(fault, 'quota', step))
    throw new DOMException(`storage-fault: no room for step ${step}`, 'QuotaExceededError');
}

/** `?save-every=N` in a page's query string (a whole number ≥ 0), or null. */
export function parseSaveEvery(search: string): number | null {
  const m = /[?&]save-every=(\d+)(?:&|$)/.exec(search);
  return m ? Number(m[1]) : null;
}
