/**
 * Session actions: plain functions (testable without React) that create and drive one
 * LabSession — one worker per run × seed — with the store's config, and route its events into
 * the store (slow state), run-data.ts (metric frames, rollouts) and persist.ts (IndexedDB). A
 * structural config change resets the session; a live hyper-parameter applies in place and
 * leaves a chart marker.
 */
import type { Experiment } from '../core/config';
import { liveValue, runInstances, structuralKey, withLive, type LiveParam } from '../core/config';
import { LabSession, queuedText } from '../runtime/client';
import { memoryRefusal } from '../runtime/memory';
import { statesOf } from '../runtime/state-store';
import type { RunInfo, SessionOptions } from '../runtime/client';
import { encodeExperiment, sameStructure } from '../core/url';
import type { FromWorker, RunId } from '../runtime/protocol';
import { keepMeasurement, loadMeasurements } from './backend-cache';
import { threadChoice } from './thread-setting';
import { downloadBlob, fileName } from './export';
import { beginSession, continueSession, dropFrames, endSession, flush, recordFrame, recordReady } from './persist';
import { clearRunData, initRunData, pushFrame, runData, setRollouts, truncateRunData } from './run-data';
import { addError, patchRun, runColor, useLab } from './store';
import type { LabState, RunView } from './store';

/** Steps between the run states each worker keeps in IndexedDB (also saved on pause and when done). */
export const SAVE_EVERY = 10;

let session: LabSession | null = null;
/** Checkpoint files to start the next session from (set by the Start-from-checkpoints picker). */
let uploads: { name: string; bytes: ArrayBuffer }[] = [];
/** Commands that need a loaded run wait until every run with a worker has sent `ready`. */
let whenReady: (() => void)[] = [];

/** Runs `f` now if every run with a worker is loaded, else once the last one is (workers drop early steps). */
function onceReady(f: () => void): void {
  if (session?.allReady()) f();
  else whenReady.push(f);
}

/** A run's legend label, for messages (its worker id if the run is gone). */
const labelOf = (id: RunId) => useLab.getState().runs.find((r) => r.id === id)?.label ?? id;

/**
 * The page's one reducer of worker messages: every message of every run arrives here (LabSession
 * adds its own: a crashed worker, a refused backend, a queued run's status) and is switched on by
 * type, into the store (slow state), run-data.ts (frames, rollouts) and persist.ts (IndexedDB).
 */
function receive(msg: FromWorker): void {
  const id = msg.runId;
  switch (msg.type) {
    case 'backend':
      keepMeasurement(msg.report.measurement);
      patchRun(id, { backend: msg.report });
      if (!msg.report.backend) fail(id, `no usable backend for ${msg.report.requested}`);
      return;
    case 'fallback':
      // Not a failure: the run goes on. Said in the alert area so the switch is never silent.
      patchRun(id, { backend: msg.report, kernels: msg.kernels, message: `on ${msg.report.backend} since step ${msg.step}` });
      addError(`${labelOf(id)}: ${msg.message}`);
      return;
    case 'ready': {
      // A resumed run keeps its restored curve up to the step it goes on from; the steps after its
      // last save are recomputed, so their recorded frames go (in the page and in IndexedDB).
      const restored = runData(id);
      if (restored && restored.codec.keys.join() === msg.keys.join()) truncateRunData(id, msg.startStep);
      else initRunData(id, msg.keys);
      void dropFrames(id, msg.startStep);
      patchRun(id, { step: msg.startStep, kernels: msg.kernels });
      recordReady(id, { keys: msg.keys, agents: msg.agents, models: msg.models, base: msg.base });
      patchRun(id, { agents: msg.agents, models: msg.models, base: msg.base });
      if (session?.allReady()) {
        const queued = whenReady;
        whenReady = [];
        for (const f of queued) f();
      }
      return;
    }
    case 'frame':
      pushFrame(id, msg.step, msg.values);
      recordFrame(id, msg.step, msg.values);
      return;
    case 'rollouts':
      return setRollouts(id, msg.step, msg.trajectories);
    case 'state':
      patchRun(id, (r) => ({ state: msg.state, message: msg.message, step: Math.max(r.step, msg.step) }));
      return;
    case 'param':
      patchRun(id, (r) => ({ markers: [...r.markers, { step: msg.step, param: msg.param, value: msg.value }] }));
      return;
    case 'checkpoint': {
      // One file per model of the run.
      const base = fileName(`${labelOf(id)}-step-${msg.step}`);
      for (const [model, bytes] of Object.entries(msg.files)) {
        downloadBlob(`${base}-${model}.ckpt`, new Blob([bytes], { type: 'application/octet-stream' }));
      }
      return;
    }
    case 'saved':
      if (msg.error) fail(id, `could not save the run state at step ${msg.step} (training goes on): ${msg.error}`);
      else patchRun(id, { savedStep: msg.step });
      // The frames up to the saved step go to IndexedDB now, so a reload never finds a saved state
      // ahead of the recorded curve (which would leave a gap the resumed run cannot fill).
      void flush();
      return;
    case 'error':
      return fail(id, msg.message);
    default: {
      const never: never = msg;
      addError(`unknown worker message ${JSON.stringify(never)}`);
    }
  }
}

function fail(id: RunId, message: string): void {
  patchRun(id, { error: message });
  const label = labelOf(id);
  addError(`${label}: ${message}`);
}

/** A LabSession at the store's pace; commands queue until all of its runs are ready. */
function spawn(config: Experiment, options: SessionOptions): LabSession {
  whenReady = [];
  const threads = () => threadChoice(config, useLab.getState().threads).threads;
  const s = new LabSession(config, receive, { measurements: loadMeasurements, threads, ...options });
  const { paceMs } = useLab.getState();
  if (paceMs > 0) s.pace(paceMs);
  return s;
}

/** A new run's first status: starting its worker, or its place in the queue for one. */
function waitingState(r: RunInfo, starting = 'starting worker…'): Pick<RunView, 'state' | 'message'> {
  const queue = session?.queued() ?? [];
  return r.queued ? { state: 'queued', message: queuedText(queue.indexOf(r.id), queue.length) } : { state: 'loading', message: starting };
}

/** What the status bar and charts know of a run before its worker has said anything. */
function newRunView(r: RunInfo): RunView {
  return {
    ...{ id: r.id, label: r.label, seed: r.seed, runIndex: r.runIndex, color: runColor(r.runIndex) },
    ...waitingState(r),
    ...{ step: 0, agents: [], models: [], base: {}, tokensPerS: NaN, markers: [], rolloutStep: -1 },
  };
}

/** Spawns the workers for the current config (disposing any previous session). */
export function startSession(): LabSession {
  reset();
  const { config } = useLab.getState();
  try {
    // Refused up front, with the CLI's message, rather than a minute in with an opaque wasm error.
    const refused = memoryRefusal(config, config.backend);
    if (refused) throw new Error(refused);
    session = spawn(config, { uploads });
  } catch (e) {
    addError(`Could not start the runs: ${(e as Error).message}`);
    throw e;
  }
  useLab.setState({
    session: 'paused',
    autoPaused: false,
    runs: session.runs.map((r) => newRunView(r)),
  });
  const id = beginSession(encodeExperiment(config), useLab.getState().runs);
  session.keepStates({ session: id, every: SAVE_EVERY, resume: false });
  return session;
}

/** The stored session on screen, if Train can resume it: it ran the experiment now configured. */
function resumable(): string | null {
  const { restored, pastSessions, config } = useLab.getState();
  const stored = restored && pastSessions?.find((p) => p.id === restored.id);
  // Live hyper-parameters may have moved on since the session began; its structure may not.
  return stored && sameStructure(stored.experiment, config) ? stored.id : null;
}

/**
 * Brings the restored session back to life: one worker per recorded run, each going on from its
 * state saved in IndexedDB (or from step 0 if none was saved), recording into the same session.
 */
async function resumeSession(id: string, saved: readonly string[]): Promise<LabSession> {
  const { config, runs: shown, pastSessions } = useLab.getState();
  if (!(await continueSession(id))) throw new Error('the stored session is gone');
  // The stored record holds every run, also those that never started (they waited in the queue).
  const recorded = pastSessions?.find((p) => p.id === id)?.runs ?? shown;
  const ids = runInstances(config).map((r) => recorded.find((x) => x.label === r.label)?.id);
  if (ids.some((x) => x === undefined)) throw new Error('the stored session does not hold every run of this experiment');
  session = spawn(config, { ids: ids as RunId[], persist: { session: id, every: SAVE_EVERY, resume: true, saved } });
  useLab.setState({
    session: 'paused',
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
 * states stays as recorded, in Past runs).
 */
function withSession(f: (s: LabSession) => void): void {
  if (session) return f(session);
  const id = resumable();
  if (!id) {
    try {
      return f(startSession());
    } catch {
      return; // startSession said why in the alert area
    }
  }
  opening ??= openRestored(id).finally(() => (opening = null));
  opening.then(f, (e: Error) => addError(`Could not resume the stored runs (${e.message}); Reset starts them over.`));
}

async function openRestored(id: string): Promise<LabSession> {
  // Runs that waited in the queue (or had not reached their first save) start from step 0.
  const saved = (await statesOf(id).catch(() => [])).map((s) => s.run);
  return saved.length > 0 ? resumeSession(id, saved) : startSession();
}

export function play(): void {
  withSession((s) => {
    s.play();
    useLab.setState({ session: 'playing', autoPaused: false });
  });
}

export function pause(): void {
  session?.pause();
  if (session) useLab.setState({ session: 'paused' });
}

export function stepOnce(): void {
  if (useLab.getState().session === 'playing') pause();
  withSession((s) => onceReady(() => s.step()));
}

/** Speed control: a pause between steps, so a user can follow each one (0 = full speed). */
export function setPace(delayMs: number): void {
  useLab.setState({ paceMs: delayMs });
  session?.pace(delayMs);
}

/**
 * Start the runs from these checkpoint files (e.g. ones downloaded earlier) instead of the shipped
 * base models. The workers check that each fits a model of the experiment; a misfit is an error
 * naming the file. Takes effect at the next Train (the current session is reset).
 */
export async function chooseCheckpoints(files: readonly File[]): Promise<void> {
  uploads = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
  useLab.setState({ uploads: uploads.map((u) => u.name) });
  reset();
}

/** Asks every run for its weights; each answers with a checkpoint, downloaded as it arrives. */
export function snapshot(): void {
  const s = session;
  if (s) onceReady(() => s.snapshot());
}

/** Fault injection for tests and demos: every run's GPU device is destroyed (see run.worker.ts). */
export function simulateDeviceLoss(): void {
  session?.loseDevice();
}

/** Terminates the workers and forgets every run's history (what is stored in IndexedDB stays). */
export function reset(): void {
  if (session) endSession();
  session?.dispose();
  session = null;
  whenReady = [];
  clearRunData(useLab.getState().imported.map((r) => r.id)); // imported runs stay on the charts
  useLab.setState({ session: 'none', autoPaused: false, runs: [], errors: [], restored: null });
}

// ─── live hyper-parameters ───────────────────────────────────────────────────


/**
 * Applies a hyper-parameter to every run without a reset. The config (and so the link) follows;
 * the worker answers with the step it took effect at, which becomes a chart marker.
 */
export function setLive(param: LiveParam, value: number): void {
  const { config } = useLab.getState();
  if (liveValue(config, param) === value) return;
  useLab.setState({ config: withLive(config, param, value) });
  const s = session;
  if (s) onceReady(() => s.set(param, value));
}

// ─── reactions: structural changes reset, a hidden tab pauses ────────────────────

/** A store reaction: a structural config change resets the session (a live one does not). */
export function resetOnStructuralChange(s: LabState, prev: LabState): void {
  const structural = s.config !== prev.config && structuralKey(s.config) !== structuralKey(prev.config);
  if (session && structural) reset();
}

/** Pauses the runs while the tab is hidden, and goes on when it is shown; returns a function that stops it. */
export function startLabSync(): () => void {
  const onVisibility = () => {
    const s = useLab.getState();
    if (document.visibilityState === 'hidden' && s.session === 'playing') {
      pause();
      useLab.setState({ autoPaused: true });
    } else if (document.visibilityState === 'visible' && s.autoPaused && s.session === 'paused') {
      play();
    }
  };
  document.addEventListener('visibilitychange', onVisibility);
  return () => document.removeEventListener('visibilitychange', onVisibility);
}
