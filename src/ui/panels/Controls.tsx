/**
 * Session controls (Train, Pause, Step, Reset, Speed) and the status bar: per run its state, a
 * labelled step counter and tokens/s; the backend the workers chose (wasm: on how many threads). Buttons and the select are
 * native, so they are keyboard operable and named by their text or label.
 */
import { figureOf } from '../../runtime/auto-choice';
import type { Measurement } from '../../runtime/backend-types';
import { pause, play, reset, setPace, stepOnce } from '../lab';
import { useLab } from '../store';
import { threadsText } from '../thread-setting';
import type { RunView } from '../store';

/** Speed choices: how long every run waits between two steps while playing. */
export const PACES: readonly { ms: number; text: string }[] = [
  { ms: 0, text: 'full speed' },
  { ms: 1000, text: '1 s between steps' },
  { ms: 3000, text: '3 s between steps' },
  { ms: 10_000, text: '10 s between steps' },
];

/** Slows training down so a user can follow each step in the charts and the rollout inspector. */
function SpeedControl() {
  const paceMs = useLab((s) => s.paceMs);
  return (
    <span className="speed" title="How long every run waits between two steps while training">
      {/* Labelled by id, not by wrapping: a wrapped select's options would join its name. */}
      <label htmlFor="speed">Speed</label>{' '}
      <select id="speed" value={paceMs} onChange={(e) => setPace(Number(e.target.value))}>
        {PACES.map((p) => (
          <option key={p.ms} value={p.ms}>
            {p.text}
          </option>
        ))}
      </select>
    </span>
  );
}

export function Controls() {
  const backend = useLab((s) => s.backend);
  const session = useLab((s) => s.session);
  const restored = useLab((s) => s.restored !== null);
  const ready = backend.state === 'ready';
  const why = ready
    ? undefined
    : backend.state === 'probing'
      ? 'Waiting for the backend check'
      : 'No usable compute backend';
  return (
    <div className="controls" role="group" aria-label="Training controls">
      <button
        type="button"
        className="primary"
        onClick={play}
        disabled={!ready || session === 'playing'}
        title={why ?? 'Train every run (creates the workers on first use)'}
      >
        Train
      </button>
      <button
        type="button"
        onClick={pause}
        disabled={session !== 'playing'}
        title="Pause every run after its current step"
      >
        Pause
      </button>
      <button
        type="button"
        onClick={stepOnce}
        disabled={!ready}
        title="Run exactly one more optimizer step per run"
      >
        Step
      </button>
      <button
        type="button"
        onClick={reset}
        disabled={session === 'none' && !restored}
        title="Stop the runs and forget their metrics"
      >
        Reset
      </button>
      <SpeedControl />
      {why && <span className="muted">{why}</span>}
    </div>
  );
}

const STATE_TEXT: Record<RunView['state'], string> = {
  queued: 'queued',
  idle: 'idle',
  loading: 'loading base models…',
  compiling: 'compiling shaders…',
  running: 'training',
  paused: 'paused',
  done: 'done',
  failed: 'failed',
};

const tps = (v: number) =>
  Number.isFinite(v) ? `${v >= 100 ? Math.round(v) : v.toPrecision(3)} tok/s` : '– tok/s';

function RunStatus({ run, pausing }: { run: RunView; pausing: boolean }) {
  const text = run.error
    ? 'failed'
    : run.state === 'loading' || run.state === 'compiling' || run.state === 'queued'
      ? (run.message ?? STATE_TEXT[run.state])
      : run.state === 'done' && run.message === 'restored' // a stored session's run: not finished, Train goes on
        ? 'restored'
      : pausing && run.state === 'running'
        ? 'pausing after this step…'
        : STATE_TEXT[run.state];
  return (
    <li
      className="run-status"
      data-run={run.label}
      data-state={run.state}
      title={Object.entries(run.base)
        .map(([model, from]) => `${model}: ${from}`)
        .join('\n')}
    >
      <span className="swatch" style={{ background: run.color }} aria-hidden="true" />
      <strong>{run.label}</strong>
      <span className="counter">
        step{' '}
        <output aria-label={`${run.label} step`} aria-live="off" data-testid="step-counter">
          {run.step}
        </output>
      </span>
      <span className={`state state-${run.state}`}>{text}</span>
      <span className="tps">{tps(run.tokensPerS)}</span>
      {run.savedStep !== undefined && (
        <span className="saved muted" title="Where a reload or a crashed tab resumes this run">
          saved @{run.savedStep}
        </span>
      )}
    </li>
  );
}

/** `auto`'s figure for the chosen backend, for the status line: "37 ms per nano step (cached)". */
function speedOf(m: Measurement): string {
  const t = m.timings.find((x) => x.backend === m.choice);
  const ms = t && figureOf(t);
  return ms === undefined ? 'untimed' : `${Math.round(ms)} ms per ${m.preset} step${m.cached ? ' (cached)' : ''}`;
}

export function StatusBar() {
  const runs = useLab((s) => s.runs);
  const session = useLab((s) => s.session);
  const backend = useLab((s) => s.backend);
  const restored = useLab((s) => s.restored);
  const runBackend = runs.find((r) => r.backend)?.backend;
  const kernels = runs.find((r) => r.kernels)?.kernels;
  const report = runBackend ?? (backend.state === 'ready' ? backend.report : undefined);
  return (
    <div className="statusbar" aria-label="Run status">
      <ul className="runs-status">
        {runs.length === 0 && <li className="muted">No runs yet: press Train.</li>}
        {runs.map((r) => (
          <RunStatus key={r.id} run={r} pausing={session !== 'playing'} />
        ))}
      </ul>
      {restored && (
        <span className="restored-note" data-testid="restored-note">
          restored from {new Date(restored.createdAt).toLocaleString()} — Train goes on from each run&apos;s
          saved step, Reset starts over
        </span>
      )}
      <span
        className="backend-chip"
        title={report?.attempts.map((a) => `${a.backend}: ${a.reason}`).join('\n')}
      >
        {backend.state === 'probing' && 'checking backends…'}
        {report &&
          `${report.backend ?? 'no backend'}${report.adapter ? ` · ${report.adapter.vendor || '?'}/${report.adapter.architecture || '?'}` : ''}`}
        {report?.threads !== undefined && <span data-testid="backend-threads"> · {threadsText(report.threads)}</span>}
        {report?.measurement && <span data-testid="backend-speed"> · {speedOf(report.measurement)}</span>}
        {kernels && <span data-testid="kernels"> · {kernels}</span>}
      </span>
    </div>
  );
}
