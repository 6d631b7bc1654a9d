/**
 * Hyper-parameters that apply while the runs train, without a reset: each change is validated
 * against the experiment schema, sent to every run, and leaves a marker on the charts at the step
 * it took effect. Values commit on Enter or when the field loses focus, not on every keystroke.
 */
import { useState } from 'react';
import { LIVE_PATHS, validateExperiment } from '../../core/config';
import { LIVE_PARAMS } from '../../runtime/protocol';
import type { LiveParam } from '../../runtime/protocol';
import { setLive } from '../lab';
import { useLab } from '../store';
import { useDraft } from './draft';

const LABELS: Record<LiveParam, { label: string; step: number; title: string }> = {
  lr: { label: 'learning rate', step: 1e-4, title: 'AdamW learning rate' },
  clipLow: { label: 'clip ε low', step: 0.05, title: 'PPO ratio clip below 1' },
  clipHigh: { label: 'clip ε high', step: 0.05, title: 'PPO ratio clip above 1' },
  temperature: { label: 'temperature', step: 0.1, title: 'Rollout sampling temperature' },
  maxGradNorm: { label: 'max grad norm', step: 0.1, title: 'Global-norm clip threshold' },
  entropyCoef: { label: 'entropy coef', step: 0.001, title: 'Entropy bonus coefficient' },
};

function LiveField({ param }: { param: LiveParam }) {
  const value = useLab((s) => LIVE_PATHS[param].get(s.config));
  const [error, setError] = useState<string | null>(null);
  const id = `live-${param}`;
  const draft = useDraft(
    String(value),
    (text) => {
      const v = Number(text);
      const checked =
        text.trim() === '' ? null : validateExperiment(LIVE_PATHS[param].set(useLab.getState().config, v));
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
      <label htmlFor={id} title={LABELS[param].title}>
        {LABELS[param].label}
      </label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={LABELS[param].step}
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
