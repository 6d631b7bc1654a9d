/**
 * A test seam: storage that has run out of room. The browser's own quota cannot be forced from a
 * test, so a page opened with `?storage-fault=quota:K-J` (or `quota:K`, which never clears) makes
 * its stores refuse writes as a full disk does, with a `QuotaExceededError`, for the steps
 * K ≤ step < J: the page's recorder (src/ui/persist.ts) refuses a whole batch of frames when the
 * furthest step it holds is in that range (its frames before K with it), and each run's worker
 * (putState) a state saved at a step in it (docs/page.md#storage-full-or-gone). The page passes
 * the plan to its workers in their `start` message. Without the parameter nothing changes.
 */

/** Writes at steps from ≤ step < until fail as a full disk's would. */
export interface StorageFault {
  from: number;
  until: number;
}

/** The plan in a page's query string (`location.search`), or null. */
export function parseStorageFault(search: string): StorageFault | null {
  const m = /[?&]storage-fault=quota:(\d+)(?:-(\d+))?(?:&|$)/.exec(search);
  if (!m) return null;
  return { from: Number(m[1]), until: m[2] === undefined ? Infinity : Number(m[2]) };
}

/** Throws what a full disk throws if the plan refuses a write at `step`. */
export function refuseIfFull(fault: StorageFault | null | undefined, step: number): void {
  if (fault && step >= fault.from && step < fault.until)
    throw new DOMException(`storage-fault: no room for step ${step}`, 'QuotaExceededError');
}

/** A write refused for want of room (the quota, or a full disk), rather than a broken store. */
export const isFull = (e: unknown): boolean =>
  (e instanceof DOMException || e instanceof Error) && e.name === 'QuotaExceededError';
