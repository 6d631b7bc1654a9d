/**
 * Past runs: the sessions kept in IndexedDB, newest first, each with its date, task, run labels
 * and steps, and buttons to open it (its curves and its experiment) or delete it.
 */
import { decodeExperiment } from '../../core/url';
import { deleteSession } from '../persist';
import type { StoredSession } from '../persist';
import { openSession } from '../restore';
import { useLab } from '../store';

function summary(s: StoredSession): string {
  const r = decodeExperiment(s.experiment);
  const task = r.ok ? r.config.task : '?';
  return `${task} · ${s.runs.map((x) => x.label).join(' vs ')} · ${s.lastStep} steps`;
}

export function PastRuns() {
  const sessions = useLab((s) => s.pastSessions);
  const shown = useLab((s) => s.restored?.id);
  return (
    <section className="panel" aria-labelledby="past-title" data-loaded={sessions !== null}>
      <h2 id="past-title">Past runs</h2>
      {sessions === null && <p className="muted">Loading…</p>}
      {sessions?.length === 0 && <p className="muted">No stored runs yet.</p>}
      <ul className="past-runs">
        {sessions?.map((s) => {
          const name = `${new Date(s.createdAt).toLocaleString()} (${summary(s)})`;
          return (
            <li key={s.id} aria-current={s.id === shown ? 'true' : undefined}>
              <span>
                {new Date(s.createdAt).toLocaleString()}
                <br />
                <small className="muted">{summary(s)}</small>
              </span>
              <button
                type="button"
                onClick={() => void openSession(s.id)}
                aria-label={`Open session ${name}`}
              >
                Open
              </button>
              <button
                type="button"
                onClick={() => void deleteSession(s.id)}
                aria-label={`Delete session ${name}`}
              >
                Delete
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
