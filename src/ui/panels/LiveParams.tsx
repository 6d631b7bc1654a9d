/**
 * Hyper-parameters that apply while the runs train, without a reset: each change is validated
 * against the experiment schema, sent to every run, and leaves a marker on the charts at the step
 * it took effect. Values commit on Enter or when the field loses focus, not on every keystroke;
 * until then the field says the typed value is pending. Each run's changes are kept with their
 * steps (the experiment's schedule), so the link replays them (docs/links.md#live-change-schedule).
 */
import { useState } from 'react';
import { validateExperiment } from '../../core/config-validate';
import { LIVE, LIVE_PARAMS, liveField, withLive, type LiveParam } from '../../core/live-params';
import { latestLive, scheduleEntries } from '../../core/live-schedule';
import { plainMessage } from '../field-labels';
import { controller } from '../session/page';
import { useLab } from '../session/store';
import { useDraft } from './draft';

function LiveField({ param }: { param: LiveParam }) {
  const value = useLab((s) => latestLive(s.config, param));
  // Runs with workers take a change at their next step (setLiveNext); with none (no runs yet, or a
  // stored session on screen) it holds from step 0.
  const training = useLab((s) => s.sessionState !== 'idle' && s.sessionState !== 'restored');
  // A link sweep's cells train as planned (setLiveNext): nothing to apply to them.
  const sweeping = useLab((s) => s.sweepCells !== null);
  // An opened result ran elsewhere: its schedule is what it ran, nothing here to change.
  const opened = useLab((s) => s.opened !== null);
  const [error, setError] = useState<string | null>(null);
  // Committed while runs train: sent to them, shown until a run says at which step it took it
  // (the recorded value moves on from `over`), and only in the session it was sent to: a later
  // session that starts from `over` again (a preset, Reset) trains at `over`, and shows it. The
  // session is told by its first repeat's id, new with every session.
  const session = useLab((s) => s.runs[0]?.id ?? null);
  const [sending, setSending] = useState<{ value: number; over: number; session: string | null } | null>(
    null,
  );
  const sent = training && sending?.session === session && sending.over === value ? sending.value : null;
  const id = `live-${param}`;
  const shown = sent ?? value;
  const draft = useDraft(
    String(shown),
    (text) => {
      const v = Number(text);
      const checked =
        text.trim() === '' ? null : validateExperiment(withLive(useLab.getState().config, param, v));
      if (!checked || !checked.ok) {
        // In the page's words, as every other field says it ("must be more than 0").
        setError(
          checked
            ? checked.errors.map((e) => plainMessage(e.message, true)).join('; ')
            : 'a number is required',
        );
        return false;
      }
      setError(null);
      setSending(training && v !== value ? { value: v, over: value, session } : null);
      controller.setLiveNext(param, v);
      return true;
    },
    () => setError(null),
  );
  const pending = draft.value !== String(shown);
  const note = pending
    ? `pending: press Enter to apply ${training ? 'at the next step' : 'from step 0'}`
    : sent !== null
      ? 'sent: applies at the next step'
      : null;

  return (
    <div
      className="live-field"
      data-pending={pending || sent !== null ? true : undefined}
      data-typed={pending ? true : undefined}
    >
      {/* The label stays the field's name (the pending dot is drawn by CSS from data-pending). */}
      <label htmlFor={id} title={liveField(param).description}>
        {LIVE[param].label}
      </label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={LIVE[param].step}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : note ? `${id}-note` : undefined}
        {...draft}
        disabled={sweeping || opened}
        title={opened ? 'An opened result is read-only: Train it here trains its experiment' : undefined}
      />
      {note && !error && (
        <span id={`${id}-note`} className="live-pending" role="status">
          {note}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** Each run's recorded changes, as the link carries them: what a replay applies, and at which step. */
function Schedule() {
  const runs = useLab((s) => s.config.runs);
  const lines = runs.flatMap((r) => {
    const entries = scheduleEntries(r.live);
    if (entries.length === 0) return [];
    const text = entries.map((e) => `${LIVE[e.param].label} ${e.value} at step ${e.step}`).join(', ');
    return [`${r.label}: ${text}`];
  });
  if (lines.length === 0) return null;
  return (
    <ul className="muted live-schedule" aria-label="Live changes in the link">
      {lines.map((l) => (
        <li key={l}>{l}</li>
      ))}
    </ul>
  );
}

export function LiveParams() {
  const sweeping = useLab((s) => s.sweepCells !== null);
  return (
    <section className="panel" aria-labelledby="live-title">
      <h2 id="live-title">Live hyper-parameters</h2>
      <p className="muted">
        Apply to every run without a reset; each change leaves a marker on the charts, and the link replays it
        at the step each run took it.
      </p>
      {sweeping && (
        <p className="muted" data-testid="live-sweep">
          Off while a link sweep’s cells are on screen: each cell trains its experiment as planned, and one
          schedule in the link could not say the step each cell took a change at. Reset to set a value from
          step 0.
        </p>
      )}
      <div className="live-grid">
        {LIVE_PARAMS.map((p) => (
          <LiveField key={p} param={p} />
        ))}
      </div>
      <Schedule />
    </section>
  );
}
