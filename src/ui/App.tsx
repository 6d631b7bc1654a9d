/**
 * The lab shell: header with Train and Copy link, a link-error alert, the experiment decoded from
 * the URL, and the backend indicator. Training itself arrives with the Training-loop issue; until
 * then Train stays disabled and says why.
 */
import { useEffect, useState } from 'react';
import { spawnRunWorker } from '../runtime/client';
import { BackendPanel } from './panels/BackendPanel';
import { ExperimentPanel } from './panels/ExperimentPanel';
import { setBackend, useLab } from './store';
import { shareLink } from './url-sync';

/** One probe worker per requested backend; replaced when the choice changes. */
function useBackendProbe() {
  const requested = useLab((s) => s.config.backend);
  useEffect(() => {
    setBackend({ state: 'probing' });
    const worker = spawnRunWorker(requested);
    let live = true;
    worker.backend.then(
      (report) => live && setBackend({ state: report.backend ? 'ready' : 'refused', report }),
      (e: Error) => live && setBackend({ state: 'error', message: e.message }),
    );
    return () => {
      live = false;
      worker.terminate();
    };
  }, [requested]);
}

function UrlAlert() {
  const errors = useLab((s) => s.urlErrors);
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="alert" data-testid="url-alert">
      <strong>This link could not be opened; showing the default experiment instead.</strong>
      <ul>
        {errors.map((e, i) => (
          <li key={i}>
            <code>{e.path}</code>: {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function App() {
  useBackendProbe();
  const backend = useLab((s) => s.backend);
  const [copied, setCopied] = useState(false);
  const trainReason =
    backend.state !== 'ready'
      ? 'Waiting for a compute backend'
      : 'The training loop is not built yet (Training-loop issue)';

  const copy = async () => {
    await navigator.clipboard?.writeText(shareLink()).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    <>
      <header className="top">
        <h1>
          Agentwise Lab <small>GRPO vs Dr. MAS, per agent, live</small>
        </h1>
        <div className="controls">
          <button type="button" disabled title={trainReason} aria-describedby="train-reason">
            Train
          </button>
          <span id="train-reason" className="muted">
            {trainReason}
          </span>
          <button type="button" onClick={copy}>
            {copied ? 'Copied' : 'Copy link'}
          </button>
        </div>
      </header>
      <main>
        <UrlAlert />
        <ExperimentPanel />
        <BackendPanel />
      </main>
    </>
  );
}
