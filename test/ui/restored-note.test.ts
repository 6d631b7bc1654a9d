/**
 * The status bar's note on a restored session. A session another tab writes is shown read-only
 * (Train, Step, Run again and Continue off), so its note must not offer them.
 */
import { describe, expect, it } from 'vitest';
import { restoredNote } from '../../src/ui/restored-note';

const restored = { id: 's1', createdAt: Date.UTC(2026, 10, 26, 16, 44, 50) };
// The page's one date format (opened-words.ts), the opened-result banner's.
const when = 'restored from 26\u00a0Nov\u00a02026, 16:44\u00a0UTC — ';

describe('restoredNote', () => {
  it('a session this tab may train: Train goes on from the saved steps; a finished one: Run again or Continue', () => {
    expect(restoredNote({ sessionState: 'restored', readOnly: null, restored })).toBe(
      `${when}Train goes on from each run's saved step, Reset starts over`,
    );
    expect(restoredNote({ sessionState: 'done', readOnly: null, restored })).toBe(
      `${when}finished: Run again starts over, Continue goes on from the last step`,
    );
  });

  it('a session another tab trains is read-only: the note offers no Train, since Train is off', () => {
    const readOnly = { id: 's1', free: false };
    for (const sessionState of ['restored', 'done'] as const) {
      const note = restoredNote({ sessionState, readOnly, restored });
      expect(note).toBe(`${when}read-only, as stored when this tab opened it; another tab is training it`);
      expect(note).not.toMatch(/Train goes on|Continue goes on/);
    }
    expect(restoredNote({ sessionState: 'restored', readOnly: { id: 's1', free: true }, restored })).toBe(
      `${when}read-only, as stored when this tab opened it; its tab has stopped: Take over goes on from each run's saved step`,
    );
  });

  it('names the runs that start over', () => {
    expect(
      restoredNote({
        sessionState: 'restored',
        readOnly: null,
        restored: { ...restored, startsOver: ['GRPO', 'Dr. MAS'] },
      }),
    ).toMatch(/ · GRPO, Dr\. MAS start over from step 0: the page closed after saving a state/);
  });
});
