/**
 * The page's words for when and from which commit: one date format wherever the page says when
 * (the opened-result banner, Past sessions, the restored note), a readable UTC date and time (a
 * result says when, not where, so no local zone is guessed, and a session in Past sessions reads
 * as the same kind of date); a commit by its first 7 hex digits, as git abbreviates one (the
 * banner gives the whole one on hover). A value that is neither is shown as it was written. And
 * whether a result was made in this browser (madeHere), so the banner says so only when it knows; a
 * backend or kernels a session did not keep, as not recorded (machineWord). No React.
 */

/** What a result says of a backend or kernels its session did not keep (docs/sharing.md). */
export const NOT_RECORDED = 'not recorded';

/**
 * A result's backend or kernels as the banner says it: as recorded, else "backend not recorded"
 * ("unknown" in files the page made before, and in `lab bundle`'s for a machine.json field it
 * could not read), never a bare word that stands for nothing.
 */
export const machineWord = (what: 'backend' | 'kernels', v: string): string =>
  v === NOT_RECORDED || v === 'unknown' ? `${what} ${NOT_RECORDED}` : v;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** No-break space: a date breaks only after its comma, never inside "2 Dec 2026" or "13:26 UTC". */
const NB = '\u00a0';

/** `2026-12-02T13:26:05.000Z` → `2 Dec 2026, 13:26 UTC` (no-break spaces but after the comma); any other text as it is. */
export function utcText(iso: string): string {
  const t = /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? new Date(iso) : null;
  if (!t || Number.isNaN(t.getTime())) return iso;
  const hhmm = t.toISOString().slice(11, 16);
  return `${t.getUTCDate()}${NB}${MONTHS[t.getUTCMonth()]}${NB}${t.getUTCFullYear()}, ${hhmm}${NB}UTC`;
}

/** Epoch milliseconds (a stored session's createdAt) → `2 Dec 2026, 13:26 UTC`, as utcText words an ISO time. */
export const utcTime = (ms: number): string =>
  Number.isFinite(ms) ? utcText(new Date(ms).toISOString()) : String(ms);

/** A git commit's 40 (or 64) hex digits → its first 7; any other text as it is. */
export const shortCommit = (commit: string): string =>
  /^[0-9a-f]{8,64}$/.test(commit) ? commit.slice(0, 7) : commit;

/**
 * What a result made by the page says it was made from: its session, by when it began and its id
 * (so the browser that trained it knows it again: madeHere).
 */
export const sessionMadeFrom = (id: string, createdAt: number): string =>
  `the session of ${new Date(createdAt).toISOString()} (${id})`;

/**
 * The stored session (live ones are stored too) a result's `made` names, if it is one of this
 * browser's: made by the page from a session whose id this browser holds (or, in files written
 * before the id was put in, whose start to the millisecond). Null otherwise: the page does not know.
 */
export function madeHere<S extends { id: string; createdAt: number }>(
  made: { by: string; from: string },
  sessions: readonly S[] | null,
): S | null {
  if (made.by !== 'page') return null;
  return (
    sessions?.find(
      (p) =>
        made.from === p.id ||
        made.from === sessionMadeFrom(p.id, p.createdAt) ||
        made.from === `the session of ${new Date(p.createdAt).toISOString()}`,
    ) ?? null
  );
}

/** `made.from` in the banner's words: a session by its date, "this session" (no date) left out. */
export function madeFromText(from: string): string | null {
  if (from === 'this session') return null;
  const m = /^the session of (\S+?)(?: \(\w+\))?$/.exec(from);
  return m ? `the session of ${utcText(m[1])}` : from;
}
