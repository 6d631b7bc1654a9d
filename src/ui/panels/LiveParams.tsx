/**
 * Hyper-parameters that apply while the runs train, without a reset: each change is validated
 * against the experiment schema, sent to every run, and leaves a marker on the charts at the step
 * it took effect. Values commit on Enter or when the field loses focus, not on every keystroke.
 */
import { useState } from 'react';
import { LIVE, LIVE_PARAMS, liveField, liveValue, validateExperiment, withLive, type LiveParam } from '../../core/config';
import { setLive } from '../lab';
import { useLab } from '../store';
import { useDraft } from './draft';

function LiveField({ param }: { param: LiveParam }) {
  const value = useLab((s) => liveValue(s.config, param));
  const [error, setError] = useState<string | null>(null);
  const id = `live-${param}`;
  const draft = useDraft(
    String(value),
    (text) => {
      const v = Number(text);
      const checked =
        text.trim() === '' ? null : validateExperiment(withLive(useLab.getState().config, param, v));
      if (!checked || !checked.ok) {
        setError(checked ? checked.errors.map((e) => e.message).join('; ') : 'a number is required');
        return false;
      }
      setError(null);
      setLive(param, v);
      return true;
    },
    () => setError(null),
  );

  return (
    <div className="live-field">
      <label htmlFor={id} title={liveField(param).description}>
        {LIVE[param].label}
      </label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={LIVE[param].step}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...draft}
      />
      {error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

export function LiveParams() {
  return (
    <section className="panel" aria-labelledby="live-title">
      <h2 id="live-title">Live hyper-parameters</h2>
      <p className="muted">Apply to every run without a reset; each change leaves a marker on the charts.</p>
      <div className="live-grid">
        {LIVE_PARAMS.map((p) => (
          <LiveField key={p} param={p} />
        ))}
      </div>
    </section>
  );
}
