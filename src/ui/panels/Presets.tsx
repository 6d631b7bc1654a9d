/**
 * The preset picker: the three starters first (src/core/presets.ts STARTER_IDS), one line each,
 * then "More experiments", folded, the rest grouped by the question they answer. A line says what
 * the preset tests; what to look for shows once it is picked (the tooltip has its blurb), so the
 * first screen is a short list, not a column of paragraphs. The preset the experiment currently
 * equals is marked pressed, its "More experiments" group open, until a field is edited away from it.
 */
import { useMemo, useState } from 'react';
import { PRESET_QUESTIONS, PRESETS, STARTER_IDS, presetById, presetLine, presetOf } from '../../core/presets';
import type { Preset } from '../../core/preset';
import { applyExperiment } from '../config-edit';
import { useLab } from '../session/store';
import { jump } from './JumpMenu';

/** The id of the preset the experiment currently equals, if any (its buttons show pressed). */
export function usePickedPreset(): string | undefined {
  const config = useLab((s) => s.config);
  return useMemo(() => presetOf(config)?.id, [config]);
}

/** Brings up the Workflow panel with its examples unfolded (its toggle event keeps its state). */
function openWorkflows(): void {
  jump('Workflow');
  const pick = document.querySelector<HTMLDetailsElement>('details.workflow-pick');
  if (pick) pick.open = true;
}

const STARTERS = STARTER_IDS.map((id) => presetById(id)!);
const MORE = PRESET_QUESTIONS.map((q) => ({ ...q, presets: q.ids.map((id) => presetById(id)!) }));
const MORE_COUNT = PRESETS.length - STARTERS.length;

/**
 * One preset: its button (its title, then its id: the one `lab presets` lists, `--preset` takes and
 * the README names) and its line; what to look for once picked.
 */
function PresetItem({ preset: p, picked, off }: { preset: Preset; picked: boolean; off: boolean }) {
  const { tests, lookFor } = presetLine(p);
  return (
    <li data-preset={p.id}>
      <button
        type="button"
        title={p.blurb}
        aria-pressed={picked}
        disabled={off}
        aria-describedby={`preset-${p.id}-look`}
        onClick={() => applyExperiment(p.config)}
      >
        {p.title} <code className="preset-id">{p.id}</code>
      </button>
      <p className="preset-look" id={`preset-${p.id}-look`}>
        {tests}
        {picked && lookFor && <span className="preset-lookfor"> {lookFor}</span>}
      </p>
    </li>
  );
}

/** `off`: an opened result is on screen (read-only: the Experiment panel says so). */
export function Presets({ off }: { off: boolean }) {
  const pickedId = usePickedPreset();
  const pickedMore = pickedId !== undefined && !(STARTER_IDS as readonly string[]).includes(pickedId);
  // Folded until asked for; a link to one of them opens it once (the user may fold it again).
  const [open, setOpen] = useState(false);
  const [openedFor, setOpenedFor] = useState<string | undefined>(undefined);
  if (pickedMore && openedFor !== pickedId) {
    setOpenedFor(pickedId);
    setOpen(true);
  }
  return (
    <div className="preset-picker" role="group" aria-label="Presets">
      <ul className="presets" aria-label="Start with one of these">
        {STARTERS.map((p) => (
          <PresetItem key={p.id} preset={p} picked={p.id === pickedId} off={off} />
        ))}
      </ul>
      <details
        className="more-presets"
        open={open}
        onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
      >
        <summary>More experiments ({MORE_COUNT}), by the question they answer</summary>
        {MORE.map((q) => (
          <section key={q.question} className="preset-question" aria-label={q.question}>
            <h4>{q.question}</h4>
            <ul className="presets">
              {q.presets.map((p) => (
                <PresetItem key={p.id} preset={p} picked={p.id === pickedId} off={off} />
              ))}
            </ul>
          </section>
        ))}
      </details>
      <p className="preset-look">
        Or your own agents, data and rewards in one file:{' '}
        <button type="button" className="link" onClick={openWorkflows}>
          Workflow
        </button>
      </p>
    </div>
  );
}
