/**
 * The opened-result banner's words: the stored ISO time as a readable date and time in UTC, the
 * commit by its first 7 hex digits; a value that is neither, as written.
 */
import { describe, expect, it } from 'vitest';
import {
  madeFromText,
  madeHere,
  sessionMadeFrom,
  shortCommit,
  utcText,
  utcTime,
} from '../../src/ui/opened-words';

describe("the opened result's when and commit", () => {
  it('an ISO time reads as a date and time in UTC, whatever the zone it was written in', () => {
    expect(utcText('2026-12-02T13:26:05.123Z')).toBe('2\u00a0Dec\u00a02026, 13:26\u00a0UTC');
    expect(utcText('2026-01-09T00:00:00.000Z')).toBe('9\u00a0Jan\u00a02026, 00:00\u00a0UTC');
    expect(utcText('2026-12-31T23:30:00-02:00')).toBe('1\u00a0Jan\u00a02027, 01:30\u00a0UTC');
    for (const odd of ['yesterday', '2026-13-40T99:99', '']) expect(utcText(odd)).toBe(odd);
    // A narrow line breaks it after the comma only: never inside the date or between time and UTC.
    expect(utcText('2026-12-02T13:26:05.123Z').split(' ')).toEqual([
      '2\u00a0Dec\u00a02026,',
      '13:26\u00a0UTC',
    ]);
  });

  it('a stored session’s epoch milliseconds read the same way: one date format on the page', () => {
    expect(utcTime(Date.UTC(2026, 11, 2, 13, 26, 5))).toBe('2\u00a0Dec\u00a02026, 13:26\u00a0UTC');
    expect(utcTime(Date.UTC(2026, 11, 2, 13, 26, 5))).toBe(utcText('2026-12-02T13:26:05.000Z'));
    expect(utcTime(NaN)).toBe('NaN');
  });

  it("a git commit's hash is its first 7 hex digits; anything else stays whole", () => {
    expect(shortCommit('95e615f0c3a1d2b4e5f60718293a4b5c6d7e8f90')).toBe('95e615f');
    for (const other of ['abc', 'v1.2.3', 'not-a-commit-at-all']) expect(shortCommit(other)).toBe(other);
  });
});

describe('whether a result was made in this browser', () => {
  const mine = { id: 'smi1abcd', createdAt: Date.UTC(2026, 11, 2, 20, 59, 43, 123) };
  const sessions = [{ id: 'sother12', createdAt: Date.UTC(2026, 11, 1) }, mine];

  it('a page result names its session by start and id: this browser finds it among its sessions', () => {
    const from = sessionMadeFrom(mine.id, mine.createdAt);
    expect(from).toBe('the session of 2026-12-02T20:59:43.123Z (smi1abcd)');
    expect(madeHere({ by: 'page', from }, sessions)).toBe(mine);
    // Files written before: a restored session's bare id, or Past sessions → Share's start alone.
    expect(madeHere({ by: 'page', from: 'smi1abcd' }, sessions)).toBe(mine);
    expect(madeHere({ by: 'page', from: 'the session of 2026-12-02T20:59:43.123Z' }, sessions)).toBe(mine);
  });

  it('another browser’s session, "this session", lab bundle or no sessions read yet: not known, null', () => {
    expect(madeHere({ by: 'page', from: sessionMadeFrom('selse999', mine.createdAt) }, sessions)).toBeNull();
    expect(madeHere({ by: 'page', from: 'this session' }, sessions)).toBeNull();
    expect(madeHere({ by: 'lab bundle', from: 'smi1abcd' }, sessions)).toBeNull();
    expect(madeHere({ by: 'page', from: 'smi1abcd' }, null)).toBeNull();
  });

  it('the banner words a session by its date, leaves "this session" out, and a folder as written', () => {
    expect(madeFromText(sessionMadeFrom(mine.id, mine.createdAt))).toBe(
      'the session of 2\u00a0Dec\u00a02026, 20:59\u00a0UTC',
    );
    expect(madeFromText('the session of 2026-12-02T20:59:43.123Z')).toBe(
      'the session of 2\u00a0Dec\u00a02026, 20:59\u00a0UTC',
    );
    expect(madeFromText('this session')).toBeNull();
    expect(madeFromText('runs/m5')).toBe('runs/m5');
  });
});
