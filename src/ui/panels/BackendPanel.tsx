/** Which compute backend the run worker chose, on what adapter, and why the others were passed over. */
import { BACKEND_NAMES } from '../../core/config';
import type { BackendName } from '../../core/config';
import { chooseConfig, useLab } from '../store';

export function BackendPanel() {
  const backend = useLab((s) => s.backend);
  const requested = useLab((s) => s.config.backend);
  const setRequested = (b: BackendName) => chooseConfig({ ...useLab.getState().config, backend: b });

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
      {backend.state === 'probing' && <p data-testid="backend-status">Checking backends…</p>}
      {backend.state === 'error' && (
        <p role="alert" data-testid="backend-status">
          Backend check failed: {backend.message}
        </p>
      )}
      {(backend.state === 'ready' || backend.state === 'refused') && (
        <>
          {backend.state === 'ready' ? (
            <p data-testid="backend-status">
              Using <strong data-testid="backend-name">{backend.report.backend}</strong>
            </p>
          ) : (
            <p role="alert" data-testid="backend-status">
              Refused <strong>{backend.report.requested}</strong>: it cannot run here. Choose another backend.
            </p>
          )}
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
