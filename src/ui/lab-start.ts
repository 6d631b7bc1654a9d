/**
 * How the live session comes to be: started anew from the store's config (a link sweep's cells
 * included, and the checkpoints picked to start from), or a stored session resumed from the run
 * states saved in IndexedDB. The user's actions (lab.ts) go through withSession, which picks the
 * right one; apart from them because starting is most of the work and none of the choosing.
 */
import { runRepeats } from '../core/config';
import { scheduleEntries } from '../core/live-schedule';
import { queuedText } from '../workers/run-start';
import type { LabSession } from '../workers/client';
import type { RunInfo, SessionOptions } from '../workers/run-start';
import { memoryVerdict } from '../sizing/memory';
import { encodeExperiment, sameStructure } from '../core/url';
import type { RunId } from '../workers/protocol';
import { beginSession, continueSession, framesStored } from './persist';
import { statesToResume } from './resume-point';
import { parseSaveEvery } from '../storage/storage-fault';
import { storageFault } from './unsaved';
import { claimOrWatch } from './writer-lock';
import { holdToTrain } from './handoff';
import { dropSession, liveSession, reset, spawn } from './live-session';
import { addError, ask, runColor, useLab } from './store';
import type { LabState, RunView } from './store';
import { planLinkSweep, sweepFile } from '../rl/sweep';
import { fieldReason } from './field-labels';

/**
 * Steps between the run states each worker keeps in IndexedDB (also saved on pause and when done):
 * every step, so a page closed at any moment loses at most the step in progress. A state is read
 * between two steps and written while the next one trains (train/driver.ts); what that costs the
 * default experiment is measured in docs/page.md#a-page-closed-mid-step.
 */
const SAVE_EVERY = 1;
/** The benchmarks' `?save-every=N` (storage-fault.ts), else SAVE_EVERY. */
const saveEvery = () =>
  (typeof location === 'undefined' ? null : parseSaveEvery(location.search)) ?? SAVE_EVERY;

/** Checkpoint files to start the next session from (set by the Start-from-checkpoints picker). */
let uploads: { name: string; bytes: ArrayBuffer }[] = [];

/** A new run's first status: starting its worker, or its place in the queue for one. */
function waitingState(r: RunInfo, starting = 'starting worker…'): Pick<RunView, 'state' | 'message'> {
  const queue = liveSession()?.queued() ?? [];
  return r.queued
    ? { state: 'queued', message: queuedText(queue.indexOf(r.id), queue.length) }
    : { state: 'loading', message: starting };
}

/** What the status bar and charts know of a run before its worker has said anything. */
function newRunView(r: RunInfo): RunView {
  const { config, sweepCells } = useLab.getState();
  const experiment = sweepCells?.cells[r.cell].config ?? config;
  return {
    ...{ id: r.id, label: r.label, seed: r.seed, runIndex: r.runIndex, color: runColor(r.runIndex) },
    ...(sweepCells ? { cell: r.cell } : {}),
    ...waitingState(r),
    ...{ step: 0, agents: [], models: [], base: {}, tokensPerS: NaN, rolloutStep: -1 },
    // A link's scheduled changes are replayed by the worker; their markers are known now.
    markers: scheduleEntries(experiment.runs[r.runIndex]?.live ?? {}),
  };
}

/**
 * The link sweep's cells planned over the experiment as it stands (planLinkSweep: the checks the
 * link was opened with), with the sweep.json `lab sweep` would write for them; null without a sweep.
 */
function planSweep(): LabState['sweepCells'] {
  const { config, sweep } = useLab.getState();
  if (sweep.length === 0) return null;
  const planned = planLinkSweep(config, sweep);
  if (!planned.ok) throw new Error(planned.errors.map((e) => fieldReason(e, config)).join('; '));
  return { file: sweepFile(config, sweep, null, planned.cells), cells: planned.cells, shown: 0 };
}

/**
 * Spawns the workers for the current config (disposing any previous session); the caller moves
 * the state. A link sweep's cells are trained in one session, and not stored: no IndexedDB record,
 * no saved states (docs/sweeps.md#a-sweep-in-a-link says so, and the Map).
 */
export function startSession(): LabSession {
  reset();
  const { config } = useLab.getState();
  let sweepCells: LabState['sweepCells'];
  try {
    sweepCells = planSweep();
    const experiments = sweepCells?.cells.map((c) => c.config) ?? [config];
    // Refused up front, with the CLI's message, rather than a minute in with an opaque wasm error.
    for (const experiment of experiments) {
      const memory = memoryVerdict(experiment, experiment.backend);
      if (memory.error) throw memory.error;
      if (memory.refused) throw new Error(memory.refused);
    }
    spawn(sweepCells ? experiments : config, { uploads });
  } catch (e) {
    addError(`Could not start the runs: ${(e as Error).message}`);
    throw e;
  }
  useLab.setState({ autoPaused: false, sweepCells }); // before the runs: newRunView reads their cells
  const session = liveSession()!;
  useLab.setState({ runs: session.runs.map((r) => newRunView(r)) });
  if (sweepCells) return session;
  const id = beginSession(encodeExperiment(config), useLab.getState().runs);
  session.keepStates(keeping(id, false));
  return session;
}

/** Where a session's runs keep their states (`resume`: going on from those `saved`). */
const keeping = (
  id: string,
  resume: boolean,
  saved?: readonly string[],
): NonNullable<SessionOptions['persist']> => ({
  ...{ session: id, every: saveEvery(), resume, saved },
  ...{ fault: storageFault(), framesStored },
});

/** The stored session on screen, if Train can resume it: it ran the experiment now configured. */
function resumable(): string | null {
  const { restored, pastSessions, config, sweep } = useLab.getState();
  if (sweep.length > 0) return null; // a link sweep trains its cells anew
  const stored = restored && pastSessions?.find((p) => p.id === restored.id);
  // Live hyper-parameters may have moved on since the session began; its structure may not.
  return stored && sameStructure(stored.experiment, config) ? stored.id : null;
}

/**
 * Brings a stored session back to life: one worker per recorded run, each going on from its
 * state saved in IndexedDB (or from step 0 if none was saved), recording into the same session
 * (under `experiment` when given: Continue's longer one). The caller moves the state.
 */
export async function resumeSession(
  id: string,
  saved: readonly string[],
  experiment?: string,
): Promise<LabSession> {
  const { config, runs: shown, pastSessions } = useLab.getState();
  await claimOrWatch(id); // one writer per session: another tab training it keeps it
  if (!(await continueSession(id, experiment))) throw new Error('the stored session is gone');
  // The stored record holds every run, also those that never started (they waited in the queue).
  const recorded = pastSessions?.find((p) => p.id === id)?.runs ?? shown;
  const ids = runRepeats(config).map((r) => recorded.find((x) => x.label === r.label)?.id);
  if (ids.some((x) => x === undefined))
    throw new Error('the stored session does not hold every run of this experiment');
  const session = spawn(config, {
    ids: ids as RunId[],
    persist: keeping(id, true, saved),
  });
  useLab.setState({
    restored: null,
    runs: session.runs.map((info) => {
      const r = shown.find((x) => x.id === info.id);
      return r ? { ...r, ...waitingState(info, 'resuming from the saved state…') } : newRunView(info);
    }),
  });
  return session;
}

/** The restored session being brought back (a second click waits for the same one). */
let opening: Promise<LabSession> | null = null;
/** Whether a stored session is being brought back: until it settles, it owns the session. */
export const isOpening = (): boolean => opening !== null;
/** `p` is the session being brought back until it settles. */
export function bringingBack(p: Promise<LabSession>): Promise<LabSession> {
  opening = p.finally(() => (opening = null));
  return opening;
}

/**
 * Runs `f` on the live session: the current one, the restored one resumed if a run of it has a
 * saved state (its runs without one start from step 0), or a new one (a restored session without
 * states stays as recorded, in Past sessions).
 */
export function withSession(f: (s: LabSession) => void): void {
  const live = liveSession();
  if (live) return whileHeld(live, f);
  const id = resumable();
  if (!id) {
    try {
      return f(startSession());
    } catch {
      return; // startSession said why in the alert area
    }
  }
  (opening ?? bringingBack(openRestored(id))).then(f, (e: Error) =>
    addError(`Could not resume the stored runs (${e.message}); Reset starts them over.`),
  );
}

/** Runs `f` on `live` once this tab holds its session again (stopped, it let it go: handoff.ts). */
export function whileHeld(live: LabSession, f: (s: LabSession) => void): void {
  void holdToTrain(dropSession).then((mine) => mine && liveSession() === live && f(live));
}

async function openRestored(id: string): Promise<LabSession> {
  // Runs that waited in the queue (or had not reached their first save, or whose state is ahead
  // of their recorded steps) start from step 0.
  const { saved } = await statesToResume(id, useLab.getState().runs);
  return saved.length > 0 ? resumeSession(id, saved) : startSession();
}

/**
 * Start the runs from these checkpoint files (e.g. ones downloaded earlier; none: the shipped base
 * models). The workers check that each fits a model of the experiment; a misfit is an error naming
 * the file. The runs start over from them: with runs on screen the page asks first (ask).
 */
export async function chooseCheckpoints(files: readonly File[]): Promise<void> {
  const next = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
  const title = next.length > 0 ? 'Start from these checkpoints' : 'Start from the shipped base models';
  const apply = () => {
    uploads = next;
    useLab.setState({ uploads: next.map((u) => u.name) });
  };
  ask({ title, detail: 'the runs start over from them', apply });
}
