/**
 * The status bar's line when storage refuses what the page writes (session/storage-full.ts): what is not being
 * saved, in words, and what the user can do: download the run (its metrics, its models' weights,
 * and its run states: weights with their optimizer moments, the files `lab train --resume` goes
 * on from) or delete old sessions in Past sessions to make room.
 */
import { downloadJson } from '../export';
import { controller } from '../session/page';
import { useLab } from '../session/store';
import { unsavedText } from '../session/storage-full';
import { showPastSessions } from './SessionPrompt';

export function Unsaved() {
  // The runs list changes every frame; selecting the sentence re-renders only when it changes.
  const text = useLab(unsavedText);
  const off = useLab((s) => s.persistError !== null);
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
        onClick={() => controller.snapshot()}
        title="Every run's models, as checkpoint files"
      >
        Download the models
      </button>{' '}
      <button
        type="button"
        className="link"
        onClick={() => controller.downloadRunStates()}
        title="Every run's whole state now (weights, optimizer moments, step): the CLI's state files, for lab train --resume"
      >
        Download the run states
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
