/**
 * The page's words for when and from which commit: one date format wherever the page says when
 * (the opened-result banner, Past sessions, the restored note), a readable UTC date and time (a
 * result says when, not where, so no local zone is guessed, and a session in Past sessions reads
 * as the same kind of date); a commit by its first 7 hex digits, as git abbreviates one (the
 * banner gives the whole one on hover). A value that is neither is shown as it was written. No React.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-12-02T13:26:05.000Z` → `2 Dec 2026, 13:26 UTC`; any other text as it is. */
export function utcText(iso: string): string {
  const t = /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? new Date(iso) : null;
  if (!t || Number.isNaN(t.getTime())) return iso;
  const hhmm = t.toISOString().slice(11, 16);
  return `${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()}, ${hhmm} UTC`;
}

/** Epoch milliseconds (a stored session's createdAt) → `2 Dec 2026, 13:26 UTC`, as utcText words an ISO time. */
export const utcTime = (ms: number): string =>
  Number.isFinite(ms) ? utcText(new Date(ms).toISOString()) : String(ms);

/** A git commit's 40 (or 64) hex digits → its first 7; any other text as it is. */
export const shortCommit = (commit: string): string =>
  /^[0-9a-f]{8,64}$/.test(commit) ? commit.slice(0, 7) : commit;
