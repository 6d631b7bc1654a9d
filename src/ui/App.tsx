/**
 * The lab: a header with the session controls, a status bar (per-run step counters, backend),
 * a sidebar with the experiment, live hyper-parameters, export, past runs and the backend
 * report, and the chart board with the rollout inspector. Errors surface in role="alert" regions.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { paramsText } from '../report/sweep-map';
import { trainHereBlockers } from './train-blockers';
import { timedPreset } from '../backends/auto-choice';
import { probeBackend } from '../workers/probe';
import { keepMeasurement, loadMeasurements } from './backend-cache';
import { threadChoice } from './thread-setting';
import { downloadCsv, downloadJson } from './export';
import { downloadResult } from './interop';
import { controller } from './session/page';
import { BackendPanel } from './panels/BackendPanel';
import { SavedNote } from './panels/SavedNote';
import { Charts } from './panels/Charts';
import { Controls, StatusBar } from './panels/Controls';
import { ExperimentPanel } from './panels/ExperimentPanel';
import { Intro } from './panels/Intro';
import { JumpMenu } from './panels/JumpMenu';
import { Findings } from './panels/Findings';
import { LiveParams } from './panels/LiveParams';
import { OtherTools } from './panels/OtherTools';
import { PastSessions } from './panels/PastSessions';
import { Reproduced } from './panels/Reproduced';
import { RolloutInspector } from './panels/RolloutInspector';
import { SweepMap } from './panels/SweepMap';
import { Labelled } from './panels/Labelled';
import { PastSessionsButton, PendingChange } from './panels/SessionPrompt';
import { UpdateNotice } from './panels/UpdateNotice';
import { UrlAlert } from './panels/UrlAlert';
import { WhatDiffers } from './panels/WhatDiffers';
import { WorkflowPanel, WorkflowWanted } from './panels/WorkflowPanel';
import { runsTitle } from './config-edit';
import type { EmbedView } from '../report/result-link';
import { boardConfig, boardRuns, dismissError, setBackend, useLab } from './session/store';
import type { LabState } from './session/store';
import { stepsToReproduce } from '../report/reproduced';
import { stepsCount } from '../core/step-words';
import { shareLink } from './url-sync';
import { machineWord, madeFromText, madeHere, shortCommit, utcText, utcTime } from './opened-words';

/**
 * One backend probe per requested backend, timed model size and wasm thread count (and per
 * "Measure again"); its worker exits once it has answered. A measurement it took is kept for the runs and the next visit.
 */
function useBackendProbe() {
  const requested = useLab((s) => s.config.backend);
  const config = useLab((s) => s.config);
  const preset = useMemo(() => timedPreset(config), [config]);
  const nonce = useLab((s) => s.probeNonce);
  const setting = useLab((s) => s.threads);
  const threads = useMemo(() => threadChoice(config, setting).threads, [config, setting]);
  useEffect(() => {
    setBackend({ state: 'probing' });
    const probe = probeBackend(requested, preset, loadMeasurements(), threads);
    let live = true;
    probe.report.then(
      (report) => {
        keepMeasurement(report.measurement);
        if (live) setBackend({ state: report.backend ? 'ready' : 'refused', report });
      },
      (e: Error) => live && setBackend({ state: 'error', message: e.message }),
    );
    return () => {
      live = false;
      probe.cancel();
    };
  }, [requested, preset, nonce, threads]);
}

/** A link read with a rename (plan's old role names) says so once; the address bar has today's names. */
function UrlNote() {
  const note = useLab((s) => s.urlNote);
  if (!note) return null;
  return (
    <p role="status" className="muted" data-testid="url-note">
      This link was written by an earlier build: {note}.
    </p>
  );
}

/**
 * The experiment's steps as the opened result holds them (the board's cell of a sweep), and the
 * steps Train it here trains to (fewer where its runs stopped short: stepsToReproduce), before
 * Train it here and beside the runs trained here. Numbers, so the selectors stay stable.
 */
const configuredSteps = (s: LabState) =>
  s.opened ? boardConfig(s).steps : (s.compared?.configuredSteps ?? 0);
const stepsToTrain = (s: LabState) =>
  stepsToReproduce(
    configuredSteps(s),
    (s.opened ? boardRuns(s) : (s.compared?.runs ?? [])).map((r) => r.step),
  );

/**
 * An opened result says where and when it ran, and that it was trained in this browser only when
 * it knows (its session is one stored here: madeHere); Train it here trains its experiment on this
 * machine beside it (docs/sharing.md#train-it-here). Beside a session trained here, it says which
 * lines are the opened result's.
 */
function OpenedBanner() {
  const shown = useLab((s) => s.opened);
  const beside = useLab((s) => s.compared?.result ?? null);
  const embed = useLab((s) => s.embed);
  const opened = shown ?? beside;
  // An opened sweep trains the cell on screen: say which.
  const sweepCell = useLab((s) =>
    s.opened && s.sweepCells
      ? paramsText(s.sweepCells.file.grid, s.sweepCells.cells[s.sweepCells.shown].params)
      : null,
  );
  // Train it here is Train for the result's experiment: Train's own reasons keep it off too.
  const blocked = useLab((s) => (s.opened ? trainHereBlockers(s).join('; ') : ''));
  const sessions = useLab((s) => s.pastSessions);
  const configured = useLab(configuredSteps);
  const trainTo = useLab(stepsToTrain);
  if (!opened) return null;
  // Shared before its runs finished: say it trains to where they stopped, and why.
  const short = trainTo < configured;
  const stopped = `its runs stopped after ${trainTo} of its experiment’s ${stepsCount(configured)} (shared before they finished)`;
  const here = madeHere(opened.made, sessions);
  const from = here ? null : madeFromText(opened.made.from);
  const off = opened.cannotTrain ?? (blocked || null);
  const m = opened.machine;
  const where = m ? (
    <>
      on {m.cpu} ({m.platform}), {machineWord('backend', m.backend)}, {machineWord('kernels', m.kernels)},
      commit {m.commit === null ? 'unknown' : <code title={m.commit}>{shortCommit(m.commit)}</code>}
      {m.dirty ? ' with changes' : ''}, {utcText(m.date)}
    </>
  ) : (
    'on another machine (its runs were imported from other tools)'
  );
  return (
    <div role="status" className="notice opened-banner" data-testid="opened-banner">
      <strong>
        {opened.name}: trained {where}.
        {here && ` Trained here, in the session of ${utcTime(here.createdAt)}.`}
      </strong>{' '}
      {shown
        ? 'Opened read-only: Reset clears it.'
        : 'Its runs are the thin, light lines, each beside its twin trained here (solid); Reset clears both.'}{' '}
      {!shown && short && (
        <span data-testid="opened-stopped">
          Train it here trains to {stepsCount(trainTo)}: {stopped}.{' '}
        </span>
      )}
      Made by {opened.made.by === 'page' ? 'the page' : opened.made.by}
      {from && ` from ${from}`} on {utcText(opened.made.at)}; SHA-256{' '}
      <code title={opened.sha256}>{opened.sha256.slice(0, 16)}…</code>
      {shown && !embed && (
        <div className="row">
          <button
            type="button"
            onClick={() => controller.trainHere()}
            disabled={off !== null}
            aria-describedby={off ? 'train-here-off' : undefined}
          >
            Train it here
          </button>
          {off ? (
            <span id="train-here-off" className="muted">
              Off: {off}.
            </span>
          ) : (
            <span className="muted">
              trains {sweepCell === null ? 'its experiment' : `the cell on screen (${sweepCell})`} on this
              machine
              {short && (
                <span data-testid="opened-stopped">
                  {' '}
                  to {stepsCount(trainTo)}, as {stopped}
                </span>
              )}
              , recorded as a new session, its runs drawn beside these; Reproduced? says per figure whether
              they agree
            </span>
          )}
        </div>
      )}
    </div>
  );
}

function PersistAlert() {
  const error = useLab((s) => s.persistError);
  if (!error) return null;
  return (
    <div role="alert" className="alert" data-testid="persist-alert">
      {error}
    </div>
  );
}

function SessionErrors() {
  const errors = useLab((s) => s.errors);
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="alert" data-testid="session-alert">
      {errors.map((e, i) => (
        <p key={i}>
          <Labelled text={e} />{' '}
          <button type="button" className="link" onClick={() => dismissError(i)} aria-label={`Dismiss: ${e}`}>
            dismiss
          </button>
        </p>
      ))}
    </div>
  );
}

function ExportPanel() {
  const hasRuns = useLab((s) => s.runs.length > 0);
  // The file Share result saved last, said under the buttons (the download is otherwise silent).
  const [shared, setShared] = useState<string | null>(null);
  return (
    <section className="panel" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p className="muted">
        Every run’s metrics (one row per run per step, one column per metric), or its weights.
      </p>
      <div className="row">
        <button type="button" onClick={downloadCsv} disabled={!hasRuns}>
          Download CSV
        </button>
        <button type="button" onClick={downloadJson} disabled={!hasRuns}>
          Download JSON
        </button>
        <button
          type="button"
          onClick={() => void downloadResult().then(setShared)}
          disabled={!hasRuns}
          title="One file that opens in the lab as these runs ran: curves, Findings, What differs, rollouts, machine (docs/sharing.md)"
        >
          Share result
        </button>
        <button
          type="button"
          onClick={() => controller.snapshot()}
          disabled={!hasRuns}
          title="The current weights of every run's models"
        >
          Download checkpoints
        </button>
      </div>
      {shared && <SavedNote name={shared} testId="share-saved" />}
      <StartFrom />
    </section>
  );
}

/** Start the runs from checkpoint files (downloaded earlier) instead of the shipped base models. */
function StartFrom() {
  const uploads = useLab((s) => s.uploads);
  return (
    <div className="start-from">
      <label title="Every run starts from these weights: one file per model, e.g. one run's files from Download checkpoints">
        Start from checkpoints{' '}
        <input
          type="file"
          accept=".ckpt"
          aria-label="Start from checkpoints: pick .ckpt files"
          multiple
          onChange={(e) => {
            void controller.chooseCheckpoints([...(e.target.files ?? [])]);
            // The uploads line says what the next runs start from (kept runs drop the files); and
            // picking the same files again is a change too.
            e.target.value = '';
          }}
        />
      </label>
      {uploads.length > 0 && (
        <p className="muted" data-testid="uploads">
          Next Train starts from {uploads.join(', ')}{' '}
          <button type="button" className="link" onClick={() => void controller.chooseCheckpoints([])}>
            use the shipped base models
          </button>
        </p>
      )}
    </div>
  );
}

/**
 * The header and the status bar stick to the top as one block whose height varies (the header
 * wraps in a narrow window, the status bar has a line per run); the chart legend sticks below it,
 * so the block's height is kept in the CSS variable --top-bars for the legend's `top`.
 */
function useTopBarsHeight() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const keep = () => document.documentElement.style.setProperty('--top-bars', `${el.offsetHeight}px`);
    const watch = new ResizeObserver(keep);
    watch.observe(el);
    keep();
    return () => watch.disconnect();
  }, []);
  return ref;
}

/** What Copy link copied, in its words: the button's after a copy, the hand-copy field's name, its hover. */
const COPIED = {
  experiment: { done: 'Copied', field: 'Link to this experiment', hover: 'Copy the link to this experiment' },
  result: {
    done: 'Copied result link',
    field: 'Link to this result',
    hover: 'Copy the link that opens this result (its #open= link)',
  },
  'result-experiment': {
    done: 'Copied experiment link',
    field: 'Link to the experiment of this result',
    hover:
      'This result was opened from a file, which has no link: Copy link gives the experiment it ran (Share result, in Export, gives a file)',
  },
} as const;

/**
 * "Copy link": the experiment's URL to the clipboard, or an opened result's `#open=` link (a result
 * opened from a file has none: its experiment's, and the button says which it copied). Where the
 * page has no clipboard (served over http:// from another machine, which is not a secure context)
 * or it is refused, the link is shown selected in a field to copy by hand; "Copied" only when it was.
 */
function CopyLink() {
  const [copied, setCopied] = useState(false);
  // The link to copy by hand, and the try it came from (each failed try selects it again).
  const [manual, setManual] = useState<{ link: string; tries: number; of: keyof typeof COPIED } | null>(null);
  // What a click copies now, for the hover; the click reads the link afresh.
  const of = useLab((s) => (s.opened ? (s.opened.url ? 'result' : 'result-experiment') : 'experiment'));
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, [manual]);

  const copy = async () => {
    const { link, of } = shareLink();
    try {
      if (!navigator.clipboard) throw new Error('no clipboard in this context');
      await navigator.clipboard.writeText(link);
    } catch {
      setManual((m) => ({ link, of, tries: (m?.tries ?? 0) + 1 }));
      return;
    }
    setManual(null);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    // The field goes when focus leaves it and the button (not between the two: a click on the
    // button must not move it away by removing the field first).
    <span className="copy-link" onBlur={(e) => !e.currentTarget.contains(e.relatedTarget) && setManual(null)}>
      {manual && (
        <input
          ref={field}
          readOnly
          value={manual.link}
          aria-label={COPIED[manual.of].field}
          title="The clipboard is not available to this page: copy the link from here"
        />
      )}
      <button type="button" onClick={copy} aria-label="Copy link" title={COPIED[of].hover}>
        {/* Not another word while the field shows: the field goes when focus leaves it, and a
            button narrowing then moved Train (the header gives the heading what the rest leaves)
            between the press and the release of a click on it, so the click was lost. */}
        {copied ? COPIED[of].done : 'Copy link'}
      </button>
    </span>
  );
}

/**
 * An embed link's one panel alone (`#open=…&view=…`, docs/sharing.md#embedding-one), sized to its
 * frame: the banner's line that says where it ran, and what went wrong (the link's alert, the
 * session's), above it.
 */
function Embedded({ view }: { view: NonNullable<EmbedView> }) {
  return (
    <main className="embed">
      <OpenedBanner />
      <UrlAlert />
      <SessionErrors />
      {view === 'findings' ? <Findings /> : view === 'map' ? <SweepMap /> : <Charts only={view.chart} />}
    </main>
  );
}

export function App() {
  const embed = useLab((s) => s.embed);
  return embed ? <Embedded view={embed} /> : <Lab />;
}

function Lab() {
  useBackendProbe();
  const topBars = useTopBarsHeight();
  // Once runs exist, a narrow window shows the charts before the settings (styles.css).
  const hasRuns = useLab((s) => s.runs.length + s.imported.length > 0);
  // The runs on screen, not the lab's first question: a MARS2 experiment is not "GRPO vs Dr. MAS".
  const title = useLab((s) => runsTitle(s.config));
  return (
    <>
      <div className="top-bars" ref={topBars}>
        <header className="top">
          <h1>
            Agentwise Lab{' '}
            <small data-testid="runs-title" title={title}>
              {title}
            </small>
          </h1>
          <Controls />
          <CopyLink />
          <JumpMenu />
          <PastSessionsButton />
        </header>
        <PendingChange />
        <StatusBar />
      </div>
      {/* A refused link's alert first, at full width: a phone's first screen shows it. */}
      <UrlAlert />
      <WorkflowWanted />
      <Intro />
      <div className={hasRuns ? 'layout has-runs' : 'layout'}>
        <aside className="sidebar">
          <ExperimentPanel />
          <WorkflowPanel />
          <LiveParams />
          <ExportPanel />
          <OtherTools />
          <PastSessions />
          <BackendPanel />
        </aside>
        <main>
          <UpdateNotice />
          <OpenedBanner />
          <UrlNote />
          <SessionErrors />
          <PersistAlert />
          <WhatDiffers />
          <Reproduced />
          <Findings />
          <Charts />
          <RolloutInspector />
          <SweepMap />
        </main>
      </div>
    </>
  );
}
