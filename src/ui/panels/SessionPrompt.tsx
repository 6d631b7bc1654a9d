/**
 * The header's two ways to the session's history: the question an action that needs new runs (a
 * reset-field change, a link, checkpoint files) asks while runs are on screen (ask in session/store.ts:
 * nothing is discarded without asking), and the Past sessions button, which brings the stored
 * sessions into view.
 */
import { answerPending } from '../config-edit';
import { useLab } from '../session/store';

export function PendingChange() {
  const pending = useLab((s) => s.pending);
  // A link sweep's runs are not stored (session/controller.ts startSession): the question must not
  // promise they stay.
  const sweeping = useLab((s) => s.sweepCells !== null);
  // Nor are an opened result's (it was trained elsewhere): its file is what keeps them.
  const opened = useLab((s) => s.opened?.name ?? null);
  if (!pending) return null;
  return (
    <div className="alert pending-change" role="alertdialog" aria-labelledby="pending-title">
      <p id="pending-title">
        <strong>{pending.title}:</strong> {pending.detail}.
      </p>
      <p className="muted">
        Starting a new session clears the charts;{' '}
        {opened
          ? `the opened result leaves the page (it is not stored here; open ${opened} again to see it).`
          : sweeping
            ? 'the link sweep’s runs are not stored, so download its map first to keep them.'
            : 'the current runs stay under Past sessions.'}{' '}
        Keeping them drops the change.
      </p>
      <div className="row">
        <button type="button" onClick={() => answerPending(true)}>
          Start a new session
        </button>
        <button type="button" onClick={() => answerPending(false)}>
          Keep the current runs
        </button>
      </div>
    </div>
  );
}

/** Scrolls Past sessions into view and moves focus to its heading (the link's hash is the experiment's: no anchor). */
export function showPastSessions(): void {
  const heading = document.getElementById('past-title');
  heading?.scrollIntoView({ block: 'start' });
  heading?.focus();
}

export function PastSessionsButton() {
  const count = useLab((s) => s.pastSessions?.filter((p) => p.kind !== 'import').length ?? 0);
  return (
    <button
      type="button"
      className="past-sessions"
      onClick={showPastSessions}
      title="Sessions kept in this browser: open or delete them"
    >
      Past sessions ({count})
    </button>
  );
}
