/**
 * Past sessions: the sessions kept in IndexedDB, newest first, each with its date, task, run labels
 * and steps, and buttons to open it (its curves and its experiment) or delete it; stored imports
 * (runs read from other trainers' files) with buttons to show or hide them beside the session's.
 */
import { memo, useState } from 'react';
import { decodeExperiment } from '../../core/url';
import { hideImport, shareStored, showImport } from '../interop';
import type { StoredSession } from '../session/store';
import { deleteStored, openSession } from '../restore';
import { reported, useLab } from '../session/store';
import { utcTime } from '../opened-words';
import { SavedNote } from './SavedNote';
import { stepsCount } from '../../core/step-words';

function summary(s: StoredSession): string {
  if (s.kind === 'import')
    return `imported · ${s.runs.map((x) => x.label.replace(' (imported)', '')).join(', ')} · ${stepsCount(s.lastStep)}`;
  const r = decodeExperiment(s.experiment);
  const task = r.ok ? r.config.task : '?';
  return `${task} · ${s.runs.map((x) => x.label).join(' vs ')} · ${stepsCount(s.lastStep)}`;
}

/**
 * One stored session. Memoized on the record: the live session's record is replaced at every
 * flush (about once a second) while the others keep their identity and are not redrawn (each
 * row decodes its experiment link and formats a date).
 */
const PastRun = memo(function PastRun({
  s,
  current,
  say,
  saved,
}: {
  s: StoredSession;
  current: boolean;
  /** Where a failed Open, Show, Hide or Delete is said: the panel's line, beside these buttons. */
  say: (message: string) => void;
  /** Where Share says the file it saved: the panel's line. */
  saved: (name: string | null) => void;
}) {
  const when = utcTime(s.createdAt);
  const name = `${when} (${summary(s)})`;
  return (
    <li aria-current={current ? 'true' : undefined}>
      <span>
        {when}
        <br />
        <small className="muted">{summary(s)}</small>
      </span>
      {s.kind === 'import' ? (
        <button
          type="button"
          onClick={() =>
            reported(
              `${s.shown ? 'Hide' : 'Show'} import`,
              () => (s.shown ? hideImport(s.id) : showImport(s.id)),
              say,
            )
          }
          aria-label={`${s.shown ? 'Hide' : 'Show'} import ${name}`}
        >
          {s.shown ? 'Hide' : 'Show'}
        </button>
      ) : (
        <>
          <button
            type="button"
            onClick={() => reported('Open session', () => openSession(s.id), say)}
            aria-label={`Open session ${name}`}
          >
            Open
          </button>
          <button
            type="button"
            onClick={() => void shareStored(s.id).then(saved)}
            aria-label={`Share session ${name} as a result file`}
            title="Download it as a result file that opens in the lab as it ran, without opening it here (docs/sharing.md)"
          >
            Share
          </button>
        </>
      )}
      <button
        type="button"
        onClick={() =>
          reported(
            `Delete ${s.kind === 'import' ? 'import' : 'session'}`,
            () => (s.kind === 'import' ? hideImport(s.id) : Promise.resolve()).then(() => deleteStored(s.id)),
            say,
          )
        }
        aria-label={`Delete ${s.kind === 'import' ? 'import' : 'session'} ${name}`}
      >
        Delete
      </button>
    </li>
  );
});

export function PastSessions() {
  const sessions = useLab((s) => s.pastSessions);
  const shown = useLab((s) => s.restored?.id);
  const kept = useLab((s) => s.kept);
  // The last Open, Show, Hide or Delete that failed, said here: the page's alert sits at the top of
  // the main column, out of sight of this panel at the foot of the side column.
  const [failed, setFailed] = useState<string | null>(null);
  // The file the last Share saved (its download is otherwise silent).
  const [shared, setShared] = useState<string | null>(null);
  return (
    <section className="panel" aria-labelledby="past-title" data-loaded={sessions !== null}>
      {/* Focusable: the header's Past sessions button moves focus here. */}
      <h2 id="past-title" tabIndex={-1}>
        Past sessions
      </h2>
      {sessions === null && <p className="muted">Loading…</p>}
      {sessions?.length === 0 && <p className="muted">No stored runs yet.</p>}
      {kept !== null && (
        <p className="muted" data-testid="kept">
          {kept
            ? 'The browser keeps these runs (persistent storage granted).'
            : 'The browser may clear these runs when space runs short (it did not grant persistent storage): download what you want to keep.'}
        </p>
      )}
      {failed && (
        <p role="alert" className="field-error" data-testid="past-failed">
          {failed}{' '}
          <button
            type="button"
            className="link"
            onClick={() => setFailed(null)}
            aria-label={`Dismiss: ${failed}`}
          >
            dismiss
          </button>
        </p>
      )}
      {shared && <SavedNote name={shared} testId="past-share-saved" />}
      <ul className="past-sessions">
        {sessions?.map((s) => (
          <PastRun key={s.id} s={s} current={s.id === shown} say={setFailed} saved={setShared} />
        ))}
      </ul>
    </section>
  );
}
