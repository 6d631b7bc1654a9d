/**
 * The status bar's note on a stored session brought back on screen: when it was made and what the
 * buttons will do with it. A session another tab writes (session/writer-lock.ts) is shown read-only, so
 * the note says that instead of offering Train or Continue, which are off there. No React.
 */
import type { LabState } from './session/store';
import { utcTime } from './opened-words';

export function restoredNote(
  s: Pick<LabState, 'sessionState' | 'readOnly'> & { restored: NonNullable<LabState['restored']> },
): string {
  const what = s.readOnly
    ? s.readOnly.free
      ? "read-only, as stored when this tab opened it; its tab has stopped: Take over goes on from each run's saved step"
      : 'read-only, as stored when this tab opened it; another tab is training it'
    : s.sessionState === 'done'
      ? 'finished: Run again starts over, Continue goes on from the last step'
      : "Train goes on from each run's saved step, Reset starts over";
  const over = s.restored.startsOver ?? [];
  return (
    `restored from ${utcTime(s.restored.createdAt)} — ${what}` +
    (over.length
      ? ` · ${over.join(', ')} ${over.length > 1 ? 'start' : 'starts'} over from step 0: the page closed after saving a state but before recording the steps up to it`
      : '')
  );
}
