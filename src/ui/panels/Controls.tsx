/**
 * Session controls (Train, named Resume while paused; Pause, Step, Reset; on a finished session Run
 * again and Continue for N more steps; Speed) and the status bar: per run its state, a labelled count of steps done and tokens/s;
 * the backend the workers chose (wasm: on how many threads). Which buttons are enabled is the
 * session state machine's (session/session-state.ts); why Train cannot run is said next to it. Buttons
 * and the select are native, so they are keyboard operable and named by their text or label.
 */
import { useState } from 'react';
import { paramsText } from '../../report/sweep-map';
import { controller } from '../session/page';
import { takeOver } from '../restore';
import { Unsaved } from './Unsaved';
import { canDo, trainButtonName } from '../session/session-state';
import { reported, useLab } from '../session/store';
import { backendParts, backendWords, figureMeaning } from '../backend-words';
import type { RunView } from '../session/store';
import { NO_BASE_MODELS, onlyWaiting, PREPARE, trainOffPointer, trainOffText } from '../train-blockers';
import { useTrainBlockers } from './TrainOff';
import { prepareBaseModels } from '../workflow-open';
import { restoredNote } from '../restored-note';
import { stepsCount, stepsDoneTitle, stepsRange, stepsWord } from '../../core/step-words';
import { Labelled } from './Labelled';

/** Speed choices: how long every run waits between two steps while playing. */
const PACES: readonly { ms: number; text: string }[] = [
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
      <select id="speed" value={paceMs} onChange={(e) => controller.setPace(Number(e.target.value))}>
        {PACES.map((p) => (
          <option key={p.ms} value={p.ms}>
            {p.text}
          </option>
        ))}
      </select>
    </span>
  );
}

/** A finished session's two ways on: the same experiment from step 0, or N more steps from where it stopped. */
function FinishedActions({ blocked }: { blocked: boolean }) {
  const steps = useLab((s) => s.config.steps);
  // A link sweep keeps no saved state to go on from (startSession): Run again trains its cells anew.
  const sweeping = useLab((s) => s.sweepCells !== null);
  const [text, setText] = useState<string | null>(null);
  const n = Number(text ?? steps); // by default as many steps again
  const valid = Number.isInteger(n) && n >= 1;
  return (
    <>
      <button
        type="button"
        onClick={() => controller.runAgain()}
        disabled={blocked}
        title="Train the same experiment again from step 0, in a new session (this one stays in Past sessions)"
      >
        Run again
      </button>
      <span className="continue">
        <button
          type="button"
          onClick={() => controller.continueFor(n)}
          disabled={blocked || !valid || sweeping}
          title={
            sweeping
              ? 'A link sweep’s runs keep no saved state to go on from: Run again trains its cells anew'
              : 'Every run goes on from its state saved at its last step; Steps grows by N'
          }
        >
          {/* A narrow window shows "Continue [N] more steps" (styles.css), so the row keeps Speed
              beside it: the rest is out of sight there, still the button's name. */}
          Continue<span className="continue-rest"> for {valid ? n : 'N'} more steps</span>
        </button>{' '}
        <label>
          <span className="continue-n">N </span>
          <input
            type="number"
            min={1}
            step={1}
            value={text ?? String(steps)}
            onChange={(e) => setText(e.target.value)}
            aria-label="More steps"
          />
          <span className="continue-short"> more steps</span>
        </label>
      </span>
    </>
  );
}

/**
 * The missing base models' reason with its remedy one click away: the Workflow panel sits far down
 * the side column, so "Prepare base models" here starts it and brings the panel's progress into view.
 */
function PrepareReason() {
  const [before, after] = NO_BASE_MODELS.split(PREPARE);
  const prepare = () => {
    prepareBaseModels();
    document.querySelector('[data-testid="base-models"]')?.scrollIntoView({ block: 'center' });
  };
  return (
    <>
      {before}
      <button type="button" className="link" onClick={prepare}>
        {PREPARE}
      </button>
      {after}
    </>
  );
}

export function Controls() {
  const state = useLab((s) => s.sessionState);
  // An opened result is done elsewhere: Run again and Continue are not its (Train it here is, in its banner).
  const opened = useLab((s) => s.opened !== null);
  const readOnly = useLab((s) => s.readOnly);
  const reasons = useTrainBlockers();
  const blocked = reasons.length > 0;
  return (
    <div className="controls" role="group" aria-label="Training controls" data-state={state}>
      <button
        type="button"
        className="primary"
        onClick={() => controller.play()}
        disabled={blocked || !canDo(state, 'train')}
        title={
          // Hovered while off, it says why (the reasons beside it may be cut to one line).
          blocked
            ? trainOffText(reasons)
            : state === 'done'
              ? 'Every run reached its last step: Run again, or Continue for more steps'
              : state === 'restored'
                ? "Go on from each run's saved step"
                : state === 'paused'
                  ? 'Every run goes on training from the step it paused at, in this session'
                  : 'Train every run (creates the workers on first use)'
        }
      >
        {trainButtonName(state)}
      </button>
      <button
        type="button"
        onClick={() => controller.pause()}
        disabled={!canDo(state, 'pause')}
        title="Pause every run after its current step"
      >
        Pause
      </button>
      <button
        type="button"
        onClick={() => controller.step()}
        disabled={blocked || !canDo(state, 'step')}
        title="Run exactly one more optimizer step per run (Pause first while training)"
      >
        Step
      </button>
      <button
        type="button"
        onClick={() => controller.reset()}
        disabled={!canDo(state, 'reset')}
        title="Stop the runs and clear the charts (the session stays in Past sessions)"
      >
        Reset
      </button>
      {state === 'done' && !opened && <FinishedActions blocked={blocked} />}
      {readOnly && (
        <button
          type="button"
          onClick={() => reported('Take over', takeOver)}
          disabled={!readOnly.free}
          title="Train this session here, from what the other tab stored (once that tab has stopped or closed)"
        >
          Take over
        </button>
      )}
      {blocked && (
        <ul
          className="train-reasons"
          data-testid="train-reasons"
          aria-label={
            onlyWaiting(reasons)
              ? `What ${trainButtonName(state)} waits for`
              : `Why ${trainButtonName(state)} is off`
          }
          title={reasons.join('\n')}
          // The one place the reasons are said: one line, whole on hover, and whole while focused
          // (a tap or Tab), where a window has no hover.
          tabIndex={0}
        >
          {reasons.map((r) => (
            <li key={r}>{r === NO_BASE_MODELS ? <PrepareReason /> : <Labelled text={r} />}</li>
          ))}
        </ul>
      )}
      <SpeedControl />
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

/** A run's throughput while it trains; a paused, finished or opened run's last step says nothing now. */
const tps = (run: RunView) =>
  run.state === 'running' && Number.isFinite(run.tokensPerS)
    ? `${run.tokensPerS >= 100 ? Math.round(run.tokensPerS) : run.tokensPerS.toPrecision(3)} tok/s`
    : '– tok/s';

/**
 * A run the store holds as done that did not finish here: a stored session's ('restored': Train
 * goes on) or an opened result's ('opened': it ran elsewhere, whatever step it reached).
 */
const notFinishedHere = (run: RunView): 'restored' | 'opened' | null =>
  run.state === 'done' && (run.message === 'restored' || run.message === 'opened') ? run.message : null;

/** A run's line; a link sweep's run is named by its cell's dial values first ("optim.lr = 0.001 · GRPO"). */
function RunStatus({ run, pausing, cell }: { run: RunView; pausing: boolean; cell?: string }) {
  const name = cell ? `${cell} · ${run.label}` : run.label;
  const text = run.error
    ? 'failed'
    : run.state === 'loading' || run.state === 'compiling' || run.state === 'queued'
      ? (run.message ?? STATE_TEXT[run.state])
      : notFinishedHere(run)
        ? notFinishedHere(run)
        : pausing && run.state === 'running'
          ? 'pausing after this step…'
          : STATE_TEXT[run.state];
  return (
    <li
      className="run-status"
      data-run={run.label}
      data-cell={run.cell}
      data-state={run.state}
      title={Object.entries(run.base)
        .map(([model, from]) => `${model}: ${from}`)
        .join('\n')}
    >
      <span className="swatch" style={{ background: run.color }} aria-hidden="true" />
      <strong>{name}</strong>
      {/* A count ("200 steps"), never "step 200": the page names a step by its 0-based index,
          and the 200th is step 199 there (core/step-words.ts). The output holds the number alone. */}
      <span className="counter" title={stepsDoneTitle(run.step)}>
        <output aria-label={`${name} steps done`} aria-live="off" data-testid="step-counter">
          {run.step}
        </output>{' '}
        {stepsWord(run.step)}
      </span>
      <span className={`state state-${run.state}`}>{text}</span>
      {/* A finished run's throughput says nothing now: no "– tok/s" beside its count. */}
      {run.state !== 'done' && run.state !== 'failed' && <span className="tps">{tps(run)}</span>}
      {run.savedStep !== undefined && (
        <span className="saved muted" title="Where a reload or a crashed tab resumes this run">
          saved after {stepsCount(run.savedStep)}
        </span>
      )}
    </li>
  );
}

/** A run's state in one word, for the runs' one-line summary. */
const STATE_WORD: Record<RunView['state'], string> = {
  queued: 'queued',
  idle: 'idle',
  loading: 'starting',
  compiling: 'starting',
  running: 'training',
  paused: 'paused',
  done: 'done',
  failed: 'failed',
};

/**
 * The runs in one line ("9 repeats: 8 done, 1 paused · 4–200 steps"), a swatch per run: what a
 * narrow window's status bar shows, the list behind it (styles.css), so the sticky header stays a
 * strip whatever the number of runs.
 */
function RunsSummary({ runs, open, toggle }: { runs: RunView[]; open: boolean; toggle: () => void }) {
  const seeds = useLab((s) => s.config.seeds);
  const counts = new Map<string, number>();
  for (const r of runs) {
    const word = r.error ? 'failed' : (notFinishedHere(r) ?? STATE_WORD[r.state]);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const steps = runs.map((r) => r.step);
  const [lo, hi] = [Math.min(...steps), Math.max(...steps)];
  const colors = [...new Set(runs.map((r) => r.color))];
  return (
    <button
      type="button"
      className="runs-summary"
      aria-expanded={open}
      aria-controls="runs-status"
      onClick={toggle}
      title={open ? 'Fold the runs into this line' : 'Every run’s line'}
    >
      {colors.map((c) => (
        <span key={c} className="swatch" style={{ background: c }} aria-hidden="true" />
      ))}{' '}
      {runs.length} {seeds > 1 ? 'repeats' : runs.length === 1 ? 'run' : 'runs'}:{' '}
      {[...counts].map(([word, n]) => `${n} ${word}`).join(', ')} · {stepsRange(lo, hi)}{' '}
      <span aria-hidden="true">{open ? '▴' : '▾'}</span>
    </button>
  );
}

const RUNNING_HERE = "Running on this computer's ";

/** The status line before any run: press Train, or that Train is off, pointing to the reasons beside it (whole on hover). */
function NoRuns() {
  const reasons = useTrainBlockers();
  if (reasons.length === 0) return <li className="muted">No runs yet: press Train.</li>;
  return (
    <li className="muted no-runs" data-testid="no-runs" title={`No runs yet. ${trainOffText(reasons)}`}>
      No runs yet. {trainOffPointer(reasons)}.
    </li>
  );
}

export function StatusBar() {
  const runs = useLab((s) => s.runs);
  const sessionState = useLab((s) => s.sessionState);
  const backend = useLab((s) => s.backend);
  const restored = useLab((s) => s.restored);
  const readOnly = useLab((s) => s.readOnly);
  const sweepCells = useLab((s) => s.sweepCells);
  const cellOf = (r: RunView) =>
    sweepCells && r.cell !== undefined
      ? paramsText(sweepCells.file.grid, sweepCells.cells[r.cell].params)
      : undefined;
  const runBackend = runs.find((r) => r.backend)?.backend;
  const kernels = runs.find((r) => r.kernels)?.kernels;
  const report = runBackend ?? (backend.state === 'ready' ? backend.report : undefined);
  const adapter =
    report?.backend === 'webgpu' && report.adapter
      ? `${report.adapter.vendor || '?'}/${report.adapter.architecture || '?'}`
      : undefined;
  const [open, setOpen] = useState(false);
  // A narrow window (styles.css) drops "Running on this computer's" and puts the figure first,
  // whole, then the place, cut to what is left of the line (whole on hover).
  const parts = report && backendParts(report);
  const lead = parts?.where.startsWith(RUNNING_HERE) ? RUNNING_HERE : '';
  const meaning = report && figureMeaning(report);
  return (
    <div className="statusbar" aria-label="Run status">
      {runs.length > 0 && <RunsSummary runs={runs} open={open} toggle={() => setOpen((o) => !o)} />}
      <ul className="runs-status" id="runs-status">
        {runs.length === 0 && <NoRuns />}
        {runs.map((r) => (
          <RunStatus key={r.id} run={r} pausing={sessionState !== 'training'} cell={cellOf(r)} />
        ))}
      </ul>
      {restored && (
        <span className="restored-note" data-testid="restored-note">
          {restoredNote({ sessionState, restored, readOnly })}
        </span>
      )}
      <Unsaved />
      {/* In plain words (the backend, its threads, its figure); the details (adapter, kernels)
          after them, cut to the line and whole on hover. */}
      <span
        className="backend-chip"
        title={[
          ...(report ? [backendWords(report)] : []),
          ...(meaning ? [meaning] : []),
          ...(report?.attempts.map((a) => `${a.backend}: ${a.reason}`) ?? []),
          ...(kernels ? [`kernels: ${kernels}`] : []),
        ].join('\n')}
      >
        {backend.state === 'probing' && 'checking backends…'}
        {parts && (
          <span className="backend-words">
            <span className="backend-lead">{lead}</span>
            <span className="backend-where">{parts.where.slice(lead.length)}</span>
            {parts.figure && (
              <span className="backend-figure">
                <span className="backend-comma">, </span>
                {parts.figure}
              </span>
            )}
          </span>
        )}
        {/* What the words leave out: the WebGPU adapter (where WebGPU runs: beside wasm it would
            name a device nothing uses) and the kernels. The backend, its threads and its figure are
            in the words. */}
        {(adapter || kernels) && (
          <span className="backend-details">
            {adapter && ` · ${adapter}`}
            {kernels && <span data-testid="kernels"> · {kernels}</span>}
          </span>
        )}
      </span>
    </div>
  );
}
