/**
 * Which compute backend the run worker chose, on what adapter, and why the others were passed
 * over; for `auto`, each candidate's timed train step, when it was measured, and "Measure again";
 * the wasm thread setting (a machine setting: auto or a count) and the threads it gives each run.
 */
import { BACKEND_NAMES } from '../../core/config-names';
import type { BackendName } from '../../core/config-names';
import { figureOf, measuredWhen } from '../../backends/auto-choice';
import type { Measurement } from '../../backends/backend-types';
import { MAX_THREADS, type ThreadSetting } from '../../backends/threads';
import { applyExperiment } from '../config-edit';
import { remeasureBackends, setThreads, useLab } from '../session/store';
import { backendWords } from '../backend-words';
import { thisMachine, threadChoice, threadsText } from '../thread-setting';

/** `auto`'s figures: ms per train step of each candidate that passed the sanity check. */
function Timings({ m }: { m: Measurement }) {
  return (
    <div data-testid="backend-timings">
      <table className="timings">
        <caption>
          auto: ms per {m.preset} train step <span className="when">({measuredWhen(m)})</span>
        </caption>
        <tbody>
          {m.timings.map((t) => (
            <tr key={t.backend} data-backend={t.backend} data-chosen={t.backend === m.choice}>
              <th scope="row">{t.backend}</th>
              <td>{figureOf(t) === undefined ? '—' : Math.round(figureOf(t)!)}</td>
              <td>
                {t.backend === m.choice ? 'chosen' : ''}
                {t.stepMs === undefined && t.warmupMs !== undefined
                  ? ' first step only, compiles included'
                  : ''}
                {t.note ? ` ${t.note}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={remeasureBackends}>
        Measure again
      </button>
    </div>
  );
}

/** The wasm thread setting: `auto` or 1 … the cores (2 at least); what it gives each run, and why. */
function Threads() {
  const setting = useLab((s) => s.threads);
  const config = useLab((s) => s.config);
  const { threads, why } = threadChoice(config, setting);
  // 1 … the cores (2 at least), and a kept count beyond them (set on a machine with more cores).
  const top = Math.max(
    Math.min(MAX_THREADS, Math.max(2, thisMachine().cores)),
    setting === 'auto' ? 0 : setting,
  );
  const counts = Array.from({ length: top }, (_, i) => i + 1);
  return (
    <p className="threads">
      <label>
        wasm threads per run{' '}
        <select
          value={String(setting)}
          onChange={(e) =>
            setThreads((e.target.value === 'auto' ? 'auto' : Number(e.target.value)) as ThreadSetting)
          }
        >
          <option value="auto">auto</option>
          {counts.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>{' '}
      <span className="muted" data-testid="threads-choice">
        {threads} ({why}); same results at any count
      </span>
    </p>
  );
}

export function BackendPanel() {
  const backend = useLab((s) => s.backend);
  const requested = useLab((s) => s.config.backend);
  // Through the one door for experiment edits: with runs on screen, a new backend asks first.
  const setRequested = (b: BackendName) => applyExperiment({ ...useLab.getState().config, backend: b });

  return (
    <section className="panel" aria-labelledby="backend-title">
      <h2 id="backend-title">Compute backend</h2>
      <label className="backend-select">
        Backend{' '}
        <select value={requested} onChange={(e) => setRequested(e.target.value as BackendName)}>
          {BACKEND_NAMES.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
      </label>
      <Threads />
      {backend.state === 'probing' && <p data-testid="backend-status">Checking backends…</p>}
      {backend.state === 'error' && (
        <p role="alert" data-testid="backend-status">
          Backend check failed: {backend.message}
        </p>
      )}
      {(backend.state === 'ready' || backend.state === 'refused') && (
        <>
          <p className="backend-words-line" data-testid="backend-words">
            {backendWords(backend.report)}
          </p>
          {backend.state === 'ready' ? (
            <p data-testid="backend-status">
              Using <strong data-testid="backend-name">{backend.report.backend}</strong>
              {backend.report.threads !== undefined && ` on ${threadsText(backend.report.threads)}`}
            </p>
          ) : (
            <p role="alert" data-testid="backend-status">
              Refused <strong>{backend.report.requested}</strong>: it cannot run here. Choose another backend.
            </p>
          )}
          {backend.report.measurement && <Timings m={backend.report.measurement} />}
          <details>
            <summary>Why this backend</summary>
            {backend.report.adapter && (
              <p data-testid="backend-adapter">
                WebGPU adapter: {backend.report.adapter.vendor || '?'} /{' '}
                {backend.report.adapter.architecture || '?'}
                {backend.report.adapter.isFallbackAdapter ? ' (fallback adapter: software)' : ''}
              </p>
            )}
            {backend.report.renderer && <p>WebGL renderer: {backend.report.renderer}</p>}
            <ul className="attempts" data-testid="backend-attempts">
              {backend.report.attempts.map((a) => (
                <li key={a.backend} data-backend={a.backend} data-ok={a.ok}>
                  <strong>{a.backend}</strong> {a.ok ? '✓' : '✗'} {a.reason} <small>({a.ms} ms)</small>
                </li>
              ))}
            </ul>
          </details>
        </>
      )}
    </section>
  );
}
