/**
 * The opened-result banner's words: the stored ISO time as a readable date and time in UTC, the
 * commit by its first 7 hex digits; a value that is neither, as written.
 */
import { describe, expect, it } from 'vitest';
import { shortCommit, utcText, utcTime } from '../../src/ui/opened-words';

describe("the opened result's when and commit", () => {
  it('an ISO time reads as a date and time in UTC, whatever the zone it was written in', () => {
    expect(utcText('2026-12-02T13:26:05.123Z')).toBe('2 Dec 2026, 13:26 UTC');
    expect(utcText('2026-01-09T00:00:00.000Z')).toBe('9 Jan 2026, 00:00 UTC');
    expect(utcText('2026-12-31T23:30:00-02:00')).toBe('1 Jan 2027, 01:30 UTC');
    for (const odd of ['yesterday', '2026-13-40T99:99', '']) expect(utcText(odd)).toBe(odd);
  });

  it('a stored session’s epoch milliseconds read the same way: one date format on the page', () => {
    expect(utcTime(Date.UTC(2026, 11, 2, 13, 26, 5))).toBe('2 Dec 2026, 13:26 UTC');
    expect(utcTime(Date.UTC(2026, 11, 2, 13, 26, 5))).toBe(utcText('2026-12-02T13:26:05.000Z'));
    expect(utcTime(NaN)).toBe('NaN');
  });

  it("a git commit's hash is its first 7 hex digits; anything else stays whole", () => {
    expect(shortCommit('95e615f0c3a1d2b4e5f60718293a4b5c6d7e8f90')).toBe('95e615f');
    for (const other of ['abc', 'v1.2.3', 'not-a-commit-at-all']) expect(shortCommit(other)).toBe(other);
  });
});
