/**
 * Other tools: runs in and out. A drop zone (or file and folder pickers) that opens a result file
 * (docs/sharing.md) and reads TensorBoard event files, folders of them and W&B history CSVs as
 * read-only runs beside the session's, a button that downloads the session's
 * runs as TensorBoard event files, and one that downloads the experiment as Dr. MAS launch scripts.
 */
import { useState } from 'react';
import {
  downloadDrmas,
  downloadTensorboard,
  droppedFiles,
  importDropped,
  pickedFiles,
  refusal,
} from '../interop';
import type { DropNote, DroppedFile } from '../interop';
import { setView, useLab } from '../session/store';
import { DropZone } from './DropZone';
import { jump } from './JumpMenu';

/** Shows the Map with its folder picker (it stays hidden until a sweep exists) and brings it up. */
function askMap(): void {
  setView({ mapAsked: true });
  requestAnimationFrame(() => jump('Map'));
}

/** A folder picker's input props (not in React's input types); the Map's picker uses them too. */
export const FOLDER = { webkitdirectory: '' } as object;

export function OtherTools() {
  const hasRuns = useLab((s) => s.runs.length > 0);
  const [notes, setNotes] = useState<DropNote[]>([]);
  const [busy, setBusy] = useState(false);

  const read = (files: Promise<DroppedFile[]>) => {
    setBusy(true);
    files
      .then((list) => (list.length ? importDropped(list) : []))
      .then((lines) => setNotes((n) => [...n, ...lines]))
      .catch((e: Error) => setNotes((n) => [...n, refusal(`Import failed: ${e.message}`)]))
      .finally(() => setBusy(false));
  };

  return (
    <section className="panel" aria-labelledby="tools-title">
      <h2 id="tools-title">Other tools</h2>
      <DropZone testId="drop-zone" onDrop={(d) => read(droppedFiles(d))}>
        <p>
          Drop a result file (<code>*.lab.json.gz</code>, from Share result or <code>lab bundle</code>) here
          to open it read-only, or TensorBoard event files, folders of them (a folder is one run, as in
          TensorBoard) or W&amp;B history CSVs to chart cluster runs beside these.
        </p>
        <label>
          or pick files{' '}
          <input
            type="file"
            aria-label="Or pick files to open: a result, event files or W&B CSVs"
            multiple
            onChange={(e) => read(Promise.resolve(pickedFiles(e.target.files ?? [])))}
          />
        </label>{' '}
        <label>
          or pick a folder (one run per folder of event files){' '}
          <input
            type="file"
            data-testid="pick-folder"
            aria-label="Or pick a folder of event files (one run per folder)"
            {...FOLDER}
            onChange={(e) => read(Promise.resolve(pickedFiles(e.target.files ?? [])))}
          />
        </label>
        {busy && <p className="muted">reading…</p>}
      </DropZone>
      {notes.length > 0 && (
        <ul className="muted" data-testid="import-notes">
          {notes.map((n, i) => (
            <li key={i} className={n.refused ? 'field-error' : undefined}>
              {n.text}
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <button
          type="button"
          onClick={() => void downloadTensorboard()}
          disabled={!hasRuns}
          title="One event file per run"
        >
          Export TensorBoard
        </button>
        <button
          type="button"
          onClick={downloadDrmas}
          title="Dr. MAS launch scripts for a Ray cluster, with a README"
        >
          Export for a cluster
        </button>
      </div>
      <p className="muted">
        A sweep (<code>lab sweep</code> or <code>lab merge</code> output) draws each run’s difference from the
        first against a dial:{' '}
        <button type="button" className="link" data-testid="ask-map" onClick={askMap}>
          Map a sweep folder
        </button>
      </p>
    </section>
  );
}
