/**
 * The status bar's line when storage refuses what the page writes (unsaved.ts): what is not being
 * saved, in words, and what the user can do: download the run (its metrics and its models'
 * weights) or delete old sessions in Past sessions to make room.
 */
import { useMemo } from 'react';
import { downloadJson } from '../export';
import { snapshot } from '../lab';
import { useLab } from '../store';
import { unsavedText } from '../unsaved';
import { showPastSessions } from './SessionPrompt';

export function Unsaved() {
  const unsaved = useLab((s) => s.unsaved);
  const runs = useLab((s) => s.runs);
  const off = useLab((s) => s.persistError !== null);
  const text = useMemo(() => unsavedText({ unsaved, runs }), [unsaved, runs]);
  if (!text && !off) return null;
  return (
    <p className="unsaved" data-testid="unsaved">
      <strong>{text ?? 'Nothing is being saved in this browser (see the alert below).'}</strong>{' '}
      <button type="button" className="link" onClick={downloadJson}>
        Download the metrics
      </button>{' '}
      <button
        type="button"
        className="link"
        onClick={snapshot}
        title="Every run's models, as checkpoint files"
      >
        Download the models
      </button>
      {!off && (
        <>
          {' '}
          <button type="button" className="link" onClick={showPastSessions}>
            Delete old sessions
          </button>
        </>
      )}
    </p>
  );
}
