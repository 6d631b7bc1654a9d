/**
 * Session actions: plain functions (testable without React) that create and drive one
 * LabSession — one worker per run × seed — with the store's config, and route its events into
 * the store (slow state), run-data.ts (metric frames, rollouts) and persist.ts (IndexedDB). Each
 * action does something only where the session state machine (session-state.ts) enables it. A
 * structural config change resets the session (the user is asked first: ask in store.ts); a live
 * hyper-parameter applies in place and leaves a chart marker.
 */
import type { Experiment } from '../core/config';
import { runRepeats } from '../core/config';
import type { LiveParam } from '../core/live-params';
import { latestLive, scheduleEntries, withBaseLive } from '../core/live-schedule';
import { LabSession, queuedText } from '../runtime/client';
import { memoryVerdict } from '../runtime/memory';
import type { RunInfo, SessionOptions } from '../runtime/client';
import { encodeExperiment, sameStructure } from '../core/url';
import type { RunId } from '../runtime/protocol';
import { loadMeasurements } from './backend-cache';
import { threadChoice } from './thread-setting';
import { beginSession, continueSession, endSession, flush, framesStored, recordingId } from './persist';
import { statesToResume } from './resume-point';
import { clearUnsaved, storageFault } from './unsaved';
import { claimOrWatch } from './writer-lock';
import { holdToTrain, letGoOnceStopped } from './handoff';
import { clearRunData } from './run-data';
import { canDo, nextState } from './session-state';
import type { SessionAction, SessionState } from './session-state';
import { addError, ask, runColor, setConfig, useLab } from './store';
import { receive } from './worker-messages';
import type { LabState, RunView } from './store';
import { planLinkSweep, sweepFile } from '../rl/sweep';
import { fieldReason } from './field-labels';

/**
 * Steps between the run states each worker keeps in IndexedDB (also saved on pause and when done):
 * every step, so a page closed at any moment loses at most the step in progress. A state is read
 * between two steps and written while the next one trains (train/driver.ts); what that costs the
 * default experiment is measured in docs/page.md#a-page-closed-mid-step.
 */
export const SAVE_EVERY = 1;

let session: LabSession | null = null;
/** The live session, if any (for the store reactions: lab-reactions.ts). */
export const liveSession = (): LabSession | null => session;
/** Checkpoint files to start the next session from (set by the Start-from-checkpoints picker). */
let uploads: { name: string; bytes: ArrayBuffer }[] = [];
/** Commands that need a loaded run wait until every run with a worker has sent `ready`. */
let whenReady: (() => void)[] = [];

/** Runs `f` now if every run with a worker is loaded, else once the last one is (workers drop early steps). */
function onceReady(f: () => void): void {
  if (session?.allReady()) f();
  else whenReady.push(f);
}

/** A run sent `ready`: once every run with a worker has, the commands waiting for that go. */
function onRunReady(): void {
  if (!session?.allReady()) return;
  const queued = whenReady;
  whenReady = [];
  for (const f of queued) f();
}

/** Where `action` leads from the state the session is in now, or null where it does nothing. */
function target(action: SessionAction): SessionState | null {
  const now = useLab.getState().session;
  return canDo(now, action) ? nextState(now, action) : null;
}

/** A LabSession at the store's pace (a link sweep's: every cell's runs in its one queue); commands queue until all of its runs are ready. */
function spawn(config: Experiment | readonly Experiment[], options: SessionOptions): LabSession {
  whenReady = [];
  const threads = () => threadChoice(config, useLab.getState().threads).threads;
  const s = new LabSession(config, (msg) => receive(msg, onRunReady), {
    ...{ measurements: loadMeasurements, threads },
    ...options,
  });
  const { paceMs } = useLab.getState();
  if (paceMs > 0) s.pace(paceMs);
  return s;
}

/** A new run's first status: starting its worker, or its place in the queue for one. */
function waitingState(r: RunInfo, starting = 'starting worker…'): Pick<RunView, 'state' | 'message'> {
  const queue = session?.queued() ?? [];
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
    session = spawn(sweepCells ? experiments : config, { uploads });
  } catch (e) {
    addError(`Could not start the runs: ${(e as Error).message}`);
    throw e;
  }
  useLab.setState({ autoPaused: false, sweepCells }); // before the runs: newRunView reads their cells
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
  ...{ session: id, every: SAVE_EVERY, resume, saved },
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
async function resumeSession(id: string, saved: readonly string[], experiment?: string): Promise<LabSession> {
  const { config, runs: shown, pastSessions } = useLab.getState();
  await claimOrWatch(id); // one writer per session: another tab training it keeps it
  if (!(await continueSession(id, experiment))) throw new Error('the stored session is gone');
  // The stored record holds every run, also those that never started (they waited in the queue).
  const recorded = pastSessions?.find((p) => p.id === id)?.runs ?? shown;
  const ids = runRepeats(config).map((r) => recorded.find((x) => x.label === r.label)?.id);
  if (ids.some((x) => x === undefined))
    throw new Error('the stored session does not hold every run of this experiment');
  session = spawn(config, {
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

/**
 * Runs `f` on the live session: the current one, the restored one resumed if a run of it has a
 * saved state (its runs without one start from step 0), or a new one (a restored session without
 * states stays as recorded, in Past sessions).
 */
function withSession(f: (s: LabSession) => void): void {
  const live = session;
  if (live) return whileHeld(live, f);
  const id = resumable();
  if (!id) {
    try {
      return f(startSession());
    } catch {
      return; // startSession said why in the alert area
    }
  }
  opening ??= openRestored(id).finally(() => (opening = null));
  opening.then(f, (e: Error) =>
    addError(`Could not resume the stored runs (${e.message}); Reset starts them over.`),
  );
}

/** Runs `f` on `live` once this tab holds its session again (stopped, it let it go: handoff.ts). */
function whileHeld(live: LabSession, f: (s: LabSession) => void): void {
  void holdToTrain(dropSession).then((mine) => mine && session === live && f(live));
}

async function openRestored(id: string): Promise<LabSession> {
  // Runs that waited in the queue (or had not reached their first save, or whose state is ahead
  // of their recorded steps) start from step 0.
  const { saved } = await statesToResume(id, useLab.getState().runs);
  return saved.length > 0 ? resumeSession(id, saved) : startSession();
}

/** Train: every run trains (creating the workers, or resuming a restored session, first). */
export function play(): void {
  const to = target('train');
  if (!to) return;
  withSession((s) => {
    s.play();
    useLab.setState({ session: to, autoPaused: false });
  });
}

/** Pause: every run stops after its current step (a finished session has nothing to pause). */
export function pause(): void {
  const to = target('pause');
  if (!to || !session) return;
  session.pause();
  useLab.setState({ session: to });
  letGoOnceStopped(session);
}

/** Step: exactly one more step per run, from a paused (or not yet started) session. */
export function stepOnce(): void {
  const to = target('step');
  if (!to) return;
  withSession((s) => {
    onceReady(() => {
      s.step();
      letGoOnceStopped(s); // after the step, as after a pause
    });
    useLab.setState({ session: to });
  });
}

/** Run again: the finished experiment from step 0 in a new session (the finished one stays in Past sessions). */
export function runAgain(): void {
  const to = target('runAgain');
  if (!to || opening) return; // a Continue being opened owns the session until it settles
  try {
    startSession().play();
  } catch {
    return; // startSession said why in the alert area
  }
  useLab.setState({ session: to });
}

/**
 * Continue for `n` more steps: the finished session's runs go on from their states saved at the
 * last step (the workers save when a run is done), recording into the same session; the
 * experiment's steps grow by `n`, so the link says what ran. The 'ready' handler cuts each run's
 * curve at its saved step, so no step is recorded twice.
 */
export function continueFor(n: number): void {
  const to = target('continue');
  const id = recordingId() ?? useLab.getState().restored?.id;
  if (!to || !id || !Number.isInteger(n) || n < 1 || opening) return;
  const { config: before, session: from } = useLab.getState();
  const longer = { ...before, steps: before.steps + n };
  opening = (async () => {
    // Finished, this tab let the session go: it claims it back, or shows it read-only.
    if (!(await holdToTrain(dropSession))) throw new Error('another tab took this session over');
    // The done workers go first, so the longer experiment below is no structural change to a live session.
    dropSession();
    setConfig(longer);
    await flush();
    const { count, saved } = await statesToResume(id, useLab.getState().runs);
    if (count === 0) throw new Error('no run of this session has a saved state');
    return resumeSession(id, saved, encodeExperiment(longer));
  })().finally(() => (opening = null));
  opening.then(
    (s) => {
      // Reset while it opened: the user left this session, so its resumed runs must not start.
      if (useLab.getState().session !== from) return s.dispose();
      s.play();
      useLab.setState({ session: to, autoPaused: false });
    },
    (e: Error) => {
      // Nothing ran: the link goes back to the steps that did.
      if (useLab.getState().config === longer) setConfig(before);
      if (useLab.getState().readOnly) return; // taken over by another tab, said so (handoff.ts)
      addError(`Could not continue the runs (${e.message}); Run again starts them over.`);
    },
  );
}

/** Speed control: a pause between steps, so a user can follow each one (0 = full speed). */
export function setPace(delayMs: number): void {
  useLab.setState({ paceMs: delayMs });
  session?.pace(delayMs);
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

/** Asks every run for its files (`what`); each run's are downloaded as they arrive. */
const downloadFromRuns = (what: 'snapshot' | 'runStates') => (): void => {
  const s = session;
  if (s) onceReady(() => s[what]());
};
/** Every run's models' weights, as checkpoint files. */
export const snapshot = downloadFromRuns('snapshot');
/** Every run's whole state now (weights, optimizer moments, step), as the CLI's state files. */
export const downloadRunStates = downloadFromRuns('runStates');

/** Fault injection for tests and demos: every run's GPU device is destroyed (see run.worker.ts). */
export function simulateDeviceLoss(): void {
  session?.loseDevice();
}

/** Terminates the workers (the caller says what the session is now). */
function dropSession(): void {
  session?.dispose();
  session = null;
  whenReady = [];
}

/** Terminates the workers and forgets every run's history (what is stored in IndexedDB stays). */
export function reset(): void {
  const { pending } = useLab.getState();
  if (session) endSession();
  dropSession();
  clearRunData(useLab.getState().imported.map((r) => r.id)); // imported runs stay on the charts
  clearUnsaved();
  useLab.setState((s) => ({
    session: nextState(s.session, 'reset'),
    ...{ autoPaused: false, runs: [], errors: [], restored: null, pending: null, readOnly: null },
    sweepCells: null,
  }));
  // An action that waited on "keep the runs or start anew" has no runs left to protect: it applies.
  pending?.apply();
}

// ─── live hyper-parameters ───────────────────────────────────────────────────

/**
 * Applies a hyper-parameter to every run without a reset. The config (and so the link) follows;
 * the workers answer with the step it takes effect at, one per run for all its seeds
 * (LabSession.set), which becomes a chart marker.
 */
export function setLive(param: LiveParam, value: number): void {
  const { config, sweepCells } = useLab.getState();
  if (latestLive(config, param) === value) return;
  const s = session;
  // A link sweep's cells train as planned: one schedule in the link could not say each cell's step.
  if (s && sweepCells) return;
  // Before any run trains, the value holds from step 0; once they do, each run's step is recorded.
  if (!s) return useLab.setState({ config: withBaseLive(config, param, value) });
  // A change is written into the session (its markers): a stopped tab claims it back for that, and
  // once the runs took it, lets it go again (their 'stopped' follows their 'param').
  whileHeld(s, (live) =>
    onceReady(() => {
      void live.set(param, value).then(() => {
        if (session === live && useLab.getState().session !== 'training') letGoOnceStopped(live);
      });
    }),
  );
}
