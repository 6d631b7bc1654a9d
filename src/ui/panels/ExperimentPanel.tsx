/**
 * The experiment: presets, its structural fields (task, models, each run's estimator, G, B,
 * sampling, steps, seeds) edited inline, a summary of every setting, and the whole config as JSON. Every
 * edit is validated against the schema before anything changes; errors name the field, in
 * role="alert". A structural change resets the session (session/controller.ts), and the link follows.
 */
import { useEffect, useState } from 'react';
import { validateExperiment } from '../../core/config-validate';
import type { FieldError } from '../../core/config-validate';
import type { Experiment } from '../../core/config';
import { withEstimator } from '../../core/run-labels';
import { valueAt } from '../../core/url';
import { estimatorLabel } from '../../core/estimators';
import { gb, memoryVerdict } from '../../sizing/memory';
import {
  applyExperiment,
  enumOptions,
  fieldDoc,
  numberLimits,
  optionDoc,
  optionLabel,
  runOverrides,
  setAt,
} from '../config-edit';
import { summaryRows } from '../experiment-summary';
import { FIELDS, fieldReason, labelOf, plainMessage } from '../field-labels';
import { setFieldErrors, useLab } from '../session/store';
import { Labelled } from './Labelled';
import { FieldErrors } from './FieldErrors';
import { Presets } from './Presets';
import { useDraft } from './draft';

/** Validates the config with one field changed; applies it, or returns the errors. */
function tryField(path: string, value: unknown): FieldError[] {
  const { config } = useLab.getState();
  // A run's estimator menu: a label that was the old estimator's own follows to the new one.
  const run = /^runs\.(\d+)\.estimator$/.exec(path);
  const next = run ? withEstimator(config, Number(run[1]), value) : setAt(config, path, value);
  // A built-in task picked from the menu replaces the workflow (the Workflow panel picks one).
  const r = validateExperiment(path === 'task' && value !== 'workflow' ? withoutWorkflow(next) : next);
  if (!r.ok) return r.errors;
  applyExperiment(r.config);
  return [];
}

const withoutWorkflow = (c: unknown) => {
  const { workflow: _workflow, ...rest } = c as Experiment;
  return rest;
};

/** A run's own settings, as the runs list shows them after its estimator (empty when it has none). */
function overridesText(r: Experiment['runs'][number]): string {
  const own = runOverrides(r);
  return own.length > 0 ? ` (overrides: ${own.join(', ')})` : '';
}

const fieldId = (path: string) => `exp-${path.replace(/\./g, '-')}`;

const NO_ERRORS: FieldError[] = [];

/**
 * One inline field: a select for an enum, a number input (committed on Enter or blur) otherwise.
 * Its refusals live in the store, not here: while it holds a refused value Train stays off and
 * says why (one source of truth for what the field holds).
 */
function Field({ path, label, off }: { path: string; label: string; off: boolean }) {
  const value = useLab((s) => valueAt(s.config, path));
  const errors = useLab((s) => s.fieldErrors[path] ?? NO_ERRORS);
  const setErrors = (found: FieldError[]) => setFieldErrors(path, found);
  // A field that goes (a preset with other runs) takes its refusal with it.
  useEffect(() => () => setFieldErrors(path, []), [path]);
  const id = fieldId(path);
  const errId = `${id}-error`;
  const isEnum = typeof value === 'string';
  const draft = useDraft(
    String(value),
    (text) => {
      const found =
        text.trim() === '' ? [{ path, message: 'a number is required' }] : tryField(path, Number(text));
      setErrors(found);
      return found.length === 0;
    },
    () => setErrors([]),
  );

  const common = {
    id,
    disabled: off,
    title: fieldDoc(path),
    'aria-invalid': errors.length > 0 || undefined,
    'aria-describedby': errors.length > 0 ? errId : undefined,
  };
  const { min, max, int } = isEnum ? { min: undefined, max: undefined, int: false } : numberLimits(path);
  return (
    <div className="exp-field">
      <label htmlFor={id}>{label}</label>
      {isEnum ? (
        <select
          {...common}
          title={[fieldDoc(path), optionDoc(path, String(value))].filter(Boolean).join('\n\n')}
          value={String(value)}
          onChange={(e) => setErrors(tryField(path, e.target.value))}
        >
          {enumOptions(path).map((o) => (
            <option key={o} value={o} title={optionDoc(path, o)}>
              {optionLabel(path, o)}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          step={int ? 1 : 'any'}
          {...draft}
        />
      )}
      {errors.length > 0 && (
        <span id={errId} className="field-error" role="alert">
          {errors.map((e) => (e.path === path ? plainMessage(e.message) : fieldReason(e))).join('; ')}
        </span>
      )}
    </div>
  );
}

/** The whole config as JSON: applied only once it parses and validates; each bad field is named. */
function JsonEditor({ off }: { off: boolean }) {
  const config = useLab((s) => s.config);
  const [text, setText] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const shown = text ?? JSON.stringify(config, null, 2);

  const apply = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(shown);
    } catch (e) {
      setErrors([{ path: '(JSON)', message: (e as Error).message }]);
      return;
    }
    const r = validateExperiment(parsed);
    if (!r.ok) {
      setErrors(r.errors);
      return;
    }
    setErrors([]);
    setText(null);
    applyExperiment(r.config);
  };
  const revert = () => {
    setText(null);
    setErrors([]);
  };

  return (
    <details className="json-editor">
      <summary>Edit JSON</summary>
      <label htmlFor="exp-json">Experiment JSON</label>{' '}
      <span className="muted">(missing fields take their defaults)</span>
      <textarea
        id="exp-json"
        spellCheck={false}
        rows={16}
        value={shown}
        readOnly={off}
        aria-invalid={errors.length > 0 || undefined}
        aria-describedby={errors.length > 0 ? 'exp-json-errors' : undefined}
        onChange={(e) => setText(e.target.value)}
      />
      {errors.length > 0 && (
        <div id="exp-json-errors" role="alert" className="field-error">
          Not applied:
          <FieldErrors errors={errors} />
        </div>
      )}
      <div className="row">
        <button type="button" onClick={apply} disabled={off || text === null}>
          Apply
        </button>
        <button type="button" onClick={revert} disabled={text === null && errors.length === 0}>
          Revert
        </button>
      </div>
    </details>
  );
}

/** The config's memory estimate (sizing/memory.ts) and, over the backend's limit, why Train refuses it. */
function memoryOf(c: Experiment): { text: string; refused: string | null } {
  const memory = memoryVerdict(c, c.backend);
  if (memory.error) return { text: `— (${memory.error.message})`, refused: null };
  return { text: `about ${gb(memory.estimate.bytes)} at most (estimate)`, refused: memory.refused };
}

/** Why the fields are off while a result is opened, and what to do instead (docs/sharing.md). */
export const OPENED_FIELDS_NOTE =
  'An opened result is read-only: these are the settings it ran with. Train it here (in its banner) trains them on this machine; Reset clears the result and leaves them here to change.';

export function ExperimentPanel() {
  const c = useLab((s) => s.config);
  // An opened result's experiment is what it ran: nothing here edits it (applyExperiment asks too).
  const off = useLab((s) => s.opened !== null);
  const rows = summaryRows(c);
  const memory = memoryOf(c);
  rows.push(['Memory', memory.text]);
  return (
    <section className="panel" aria-labelledby="experiment-title">
      <h2 id="experiment-title">Experiment</h2>
      {off && (
        <p className="notice" data-testid="experiment-opened">
          {OPENED_FIELDS_NOTE}
        </p>
      )}
      <Presets off={off} />
      <div className="exp-fields" role="group" aria-label="Experiment fields">
        {FIELDS.filter((f) => f.shown?.(c) ?? true).map((f) => (
          <Field key={f.path} path={f.path} label={f.label} off={off} />
        ))}
        {c.runs.map((r, i) => (
          // Keyed by index and label: a preset with other runs remounts the field (fresh state).
          <Field
            key={`${i}:${r.label}`}
            path={`runs.${i}.estimator`}
            label={labelOf(`runs.${i}.estimator`, c)!}
            off={off}
          />
        ))}
      </div>
      <p className="muted" hidden={off}>
        Changing these needs new runs (you are asked first while runs are on screen); live hyper-parameters
        below do not.
      </p>
      <dl className="summary" data-testid="experiment-summary">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd data-field={k}>{v}</dd>
          </div>
        ))}
      </dl>
      {memory.refused && (
        <p role="alert" className="field-error" data-testid="memory-refused">
          Train is refused: <Labelled text={memory.refused} />
        </p>
      )}
      <h3>Runs</h3>
      <ul data-testid="runs">
        {c.runs.map((r, i) => (
          <li key={i}>
            <strong>{r.label}</strong> — estimator{' '}
            {r.estimator === 'custom'
              ? estimatorLabel('custom', { ...c.advantage, ...r.advantage })
              : optionLabel(`runs.${i}.estimator`, r.estimator)}{' '}
            (<code>{r.estimator}</code>){overridesText(r)}
          </li>
        ))}
      </ul>
      <JsonEditor off={off} />
    </section>
  );
}
