/**
 * The app's one zustand store, composed of slices: the experiment and its link problems, the
 * backend probe, the live session's runs, and view preferences. It holds slow state only: the
 * per-step metric history lives in ring buffers outside React (run-data.ts), and the store only
 * carries `frameVersion`, bumped at most once per animation frame, so charts know to re-read.
 * Setters here are plain functions; session actions (Train, Pause, …) live in lab.ts.
 */
import { create } from 'zustand';
import { DEFAULT_EXPERIMENT } from '../core/config';
import type { Experiment } from '../core/config';
import type { FieldError } from '../core/config-validate';
import type { Dial } from '../core/url-sweep';
import { valueAt } from '../core/url';
import type { Cell, SweepFile } from '../rl/sweep';
import type { BackendReport } from '../backends/backend-types';
import { forgetMeasurements } from './backend-cache';
import { keepThreadSetting, loadThreadSetting } from './thread-setting';
import type { ThreadSetting } from '../backends/threads';
import type { LiveParam } from '../core/live-params';
import type { RunId, RunStatus } from '../workers/protocol';
import { nextState } from './session-state';
import type { SessionEvent, SessionState } from './session-state';

export type BackendStatus =
  | { state: 'probing' }
  | { state: 'ready'; report: BackendReport }
  | { state: 'refused'; report: BackendReport }
  | { state: 'error'; message: string };

/** A live hyper-parameter change, drawn as a vertical marker at the step it took effect. */
export interface Marker {
  step: number;
  param: LiveParam;
  value: number;
}

/** What React shows about one run (one worker): everything but the metric history. */
export interface RunView {
  id: RunId;
  label: string;
  seed: number;
  /** Index into config.runs: runs of one index (several seeds) share a colour. */
  runIndex: number;
  /** A link sweep's run: the index of its cell in `sweepCells` (absent for a session of one experiment). */
  cell?: number;
  color: string;
  state: RunStatus;
  /** The worker's own words for its state ("compiling shaders…"). */
  message?: string;
  /** Steps completed (the last frame's step). */
  step: number;
  agents: string[];
  /** Imported runs: the K of every eval/avg@K or pass@K they carry (a session's runs use the experiment's eval.k). */
  evalKs?: number[];
  models: { id: string; preset: string; agents: string[]; params: number }[];
  /** Where each model's starting weights came from (shipped base, upload, fresh init). */
  base: Record<string, string>;
  backend?: BackendReport;
  /** Which kernels run the model (the worker's words: fused wasm SIMD or tfjs's own ops). */
  kernels?: string;
  tokensPerS: number;
  markers: Marker[];
  /** Steps completed when the run's state was last saved to IndexedDB (where a reload resumes). */
  savedStep?: number;
  /** Step of the latest rollouts received (they are kept in run-data.ts). */
  rolloutStep: number;
  error?: string;
}

/** 'overlaid': every run in each chart; 'side-by-side': one column of charts per run. */
export type ChartLayout = 'overlaid' | 'side-by-side';

interface ViewPrefs {
  layout: ChartLayout;
  /** TensorBoard-style debiased EMA weight in [0, 0.99]. */
  smoothing: number;
  /** Charts drawn on a log y scale, by chart registry id (src/core/charts.ts). */
  logCharts: string[];
  /** Series hidden through the legend, by run index and agent name. */
  hiddenRuns: number[];
  hiddenAgents: string[];
}

/** A session as IndexedDB keeps it (persist.ts writes it; Past sessions lists it). */
export interface StoredRun {
  id: RunId;
  label: string;
  seed: number;
  runIndex: number;
  color: string;
  keys: string[];
  agents: RunView['agents'];
  models: RunView['models'];
  base: RunView['base'];
  /** Steps completed (frames carry 0-based step indices). */
  lastStep: number;
  /** Live hyper-parameter changes (absent in sessions stored before markers were kept). */
  markers?: Marker[];
  /** Imported runs: the eval Ks they carry, and what the import read and lost. */
  evalKs?: number[];
  note?: string;
}

export interface StoredSession {
  id: string;
  /** 'import': runs read from other trainers' files (one drop), read-only; absent: a Train session. */
  kind?: 'import';
  /** An import on the charts (it comes back after a reload); Past sessions shows and hides it. */
  shown?: boolean;
  createdAt: number;
  experiment: string;
  runs: StoredRun[];
  /** Steps completed by the furthest run. */
  lastStep: number;
}

/**
 * Something that needs new runs (a reset-field change, a link, checkpoint files), waiting for the
 * user's answer while runs are on screen: nothing is discarded without asking (ask below).
 */
interface PendingAction {
  /** The question's headline and detail: "This change needs new runs" and "Group size G 2 → 4". */
  title: string;
  detail: string;
  /** What the action does once the runs on screen are gone (to Past sessions). */
  apply: () => void;
  /** Undoes what the action already moved if the runs are kept (a link puts the address bar back). */
  drop?: () => void;
}

export interface LabState {
  /** Runs read from other trainers' files (read-only: no worker); shown beside the session's. */
  imported: RunView[];
  config: Experiment;
  /** The sweep the link carries over `config` (`sweep.KEY=v1,v2,…`), its dials in grid order; [] for none. */
  sweep: Dial[];
  /**
   * The link sweep whose runs are on screen: its sweep.json as `lab sweep` would write it, its cells
   * as planned at Train (RunView.cell indexes them), and the cell the board shows. Null otherwise.
   */
  sweepCells: { file: SweepFile; cells: Cell[]; shown: number } | null;
  /** Problems with the link the page was opened with; `shownInstead` was shown instead. */
  urlErrors: FieldError[];
  /** The link that could not be opened, as given (the address bar holds the experiment shown instead). */
  badLink: string;
  /** What a bad link left on screen: the default experiment, or the runs that were on screen. */
  shownInstead: string;
  /** Said once about a link that opened with a rename (plan's old role names); '' for none. */
  urlNote: string;
  backend: BackendStatus;
  /** Bumped to run the backend probe again (the panel's "Measure again"). */
  probeNonce: number;
  /** Threads per run for the wasm backend (a machine setting, kept in localStorage; thread-setting.ts). */
  threads: ThreadSetting;
  /** Where the session's buttons stand (session-state.ts: its events move it). */
  sessionState: SessionState;
  /** Inline fields holding a value the page refused, by path: Train stays off until they are fixed. */
  fieldErrors: Record<string, FieldError[]>;
  /** An action that needs new runs, waiting for the user's answer while runs are on screen (ask). */
  pending: PendingAction | null;
  /** Paused by the Page Visibility API, to resume when the tab shows again. */
  autoPaused: boolean;
  /** Speed control: milliseconds every run waits between steps while playing (0 = full speed). */
  paceMs: number;
  runs: RunView[];
  /** Bumped (at most once per animation frame) when any run's ring buffer grew. */
  frameVersion: number;
  /** Session-level errors (a worker that failed to start, …), shown in role="alert". */
  errors: string[];
  view: ViewPrefs;
  /** Names of the checkpoint files the next session starts from (empty: shipped base models). */
  uploads: string[];
  /** Sessions kept in IndexedDB, newest first (null while they load). */
  pastSessions: StoredSession[] | null;
  /** The stored session whose curves are shown (no workers), or null. */
  /** `startsOver`: labels of its runs whose saved state is ahead of their recorded steps (resume-point.ts). */
  restored: { id: string; createdAt: number; startsOver?: string[] } | null;
  /** Why runs are not being stored (IndexedDB unavailable or failing), shown once in role="alert". */
  persistError: string | null;
  /**
   * What storage refused for want of room (unsaved.ts): the first step of the frames not stored,
   * and per run the step of the state it could not save. The status bar says it.
   */
  unsaved: { frames?: number; states: Partial<Record<RunId, number>> };
  /** The browser's answer to `navigator.storage.persist()` (null: not asked yet); Past sessions shows it. */
  kept: boolean | null;
  /**
   * The stored session on screen is recorded by another tab (writer-lock.ts): shown read-only,
   * Train off; `free` once that tab let it go or closed, when "Take over" trains it here.
   */
  readOnly: { id: string; free: boolean } | null;
}

const DEFAULT_SHOWN = 'the default experiment';

export const useLab = create<LabState>(() => ({
  config: DEFAULT_EXPERIMENT,
  sweep: [],
  sweepCells: null,
  urlErrors: [],
  urlNote: '',
  badLink: '',
  shownInstead: DEFAULT_SHOWN,
  backend: { state: 'probing' },
  probeNonce: 0,
  threads: loadThreadSetting(),
  sessionState: 'idle',
  fieldErrors: {},
  pending: null,
  autoPaused: false,
  paceMs: 0,
  runs: [],
  imported: [],
  frameVersion: 0,
  errors: [],
  view: { layout: 'overlaid', smoothing: 0.6, logCharts: [], hiddenRuns: [], hiddenAgents: [] },
  uploads: [],
  pastSessions: null,
  restored: null,
  persistError: null,
  unsaved: { states: {} },
  kept: null,
  readOnly: null,
}));

export const setConfig = (config: Experiment) => useLab.setState({ config });

/**
 * The runs the board shows (charts, Findings, What differs, the rollout inspector, the metrics
 * export): a link sweep's cell picked in the Map, else every run of the session.
 */
export const boardRuns = (s: LabState): RunView[] =>
  s.sweepCells ? s.runs.filter((r) => r.cell === s.sweepCells?.shown) : s.runs;
/** The Map's pick of a link sweep's cell for the board. */
export const showCell = (shown: number) =>
  useLab.setState((s) => (s.sweepCells ? { sweepCells: { ...s.sweepCells, shown } } : s));
/** The experiment the board's runs trained: the shown cell's under a link sweep, else the page's. */
export const boardConfig = (s: LabState): Experiment =>
  s.sweepCells?.cells[s.sweepCells.shown].config ?? s.config;
/**
 * A user's choice of experiment: it replaces a bad link, so the link's errors go, and so does the
 * refusal of every field whose value it replaces (a preset over a refused G = 512: the field shows
 * the preset's G, so nothing is refused any more). A field it leaves alone keeps its refusal.
 */
export const chooseConfig = (config: Experiment) =>
  useLab.setState((s) => ({
    config,
    urlErrors: [],
    fieldErrors: Object.fromEntries(
      Object.entries(s.fieldErrors).filter(([path]) => valueAt(s.config, path) === valueAt(config, path)),
    ),
  }));
/** An inline field's refusals (none: it holds an applied value); Train reads them all. */
export function setFieldErrors(path: string, errors: FieldError[]): void {
  useLab.setState((s) => {
    if (errors.length === 0 && !(path in s.fieldErrors)) return s;
    const { [path]: _gone, ...rest } = s.fieldErrors;
    return { fieldErrors: errors.length > 0 ? { ...rest, [path]: errors } : rest };
  });
}
/** Moves the session's state machine (session-state.ts) by an event. */
export const moveSession = (event: SessionEvent) =>
  useLab.setState((s) => ({ sessionState: nextState(s.sessionState, event) }));
export const setUrlErrors = (urlErrors: FieldError[], badLink = '', shownInstead = DEFAULT_SHOWN) =>
  useLab.setState({ urlErrors, badLink, shownInstead });

/**
 * An action that needs new runs: with none on screen it applies at once; with runs on screen it
 * waits in `pending` for the user's answer (answerPending in config-edit.ts), so nothing is
 * discarded without asking. A newer question replaces an unanswered one, which is answered "keep".
 */
export function ask(action: PendingAction): void {
  const { sessionState, pending } = useLab.getState();
  if (sessionState === 'idle') return action.apply();
  pending?.drop?.();
  useLab.setState({ pending: action });
}

export const setBackend = (backend: BackendStatus) => useLab.setState({ backend });
/** The wasm thread setting, kept for the next visit; runs started from now on get it. */
export function setThreads(threads: ThreadSetting): void {
  keepThreadSetting(threads);
  useLab.setState({ threads });
}
/** Forgets `auto`'s kept measurements and probes again, so that the backends are timed afresh. */
export function remeasureBackends(): void {
  forgetMeasurements();
  useLab.setState((s) => ({ probeNonce: s.probeNonce + 1 }));
}

export const setView = (patch: Partial<ViewPrefs>) =>
  useLab.setState((s) => ({ view: { ...s.view, ...patch } }));
export const toggleRun = (runIndex: number) =>
  useLab.setState((s) => ({ view: { ...s.view, hiddenRuns: toggle(s.view.hiddenRuns, runIndex) } }));
export const toggleAgent = (agent: string) =>
  useLab.setState((s) => ({ view: { ...s.view, hiddenAgents: toggle(s.view.hiddenAgents, agent) } }));
export const addError = (message: string) => useLab.setState((s) => ({ errors: [...s.errors, message] }));
export const dismissError = (i: number) =>
  useLab.setState((s) => ({ errors: s.errors.filter((_, j) => j !== i) }));

/** Updates one run's view; a no-op for a run that is gone (a late message after reset). */
export function patchRun(id: RunId, patch: Partial<RunView> | ((r: RunView) => Partial<RunView>)): void {
  useLab.setState((s) => {
    const i = s.runs.findIndex((r) => r.id === id);
    if (i < 0) return s;
    const runs = s.runs.slice();
    runs[i] = { ...runs[i], ...(typeof patch === 'function' ? patch(runs[i]) : patch) };
    return { runs };
  });
}

function toggle<T>(list: T[], x: T): T[] {
  return list.includes(x) ? list.filter((y) => y !== x) : [...list, x];
}

/** One colour per run index (Okabe–Ito-like, distinguishable in colour-blind palettes). */
const RUN_COLORS = ['#d55e00', '#0072b2', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'] as const;
/** One dash pattern per agent, in the order the task lists its agents. */
const AGENT_DASHES = ['', '6 3', '2 3', '10 3 2 3'] as const;
export const runColor = (runIndex: number) => RUN_COLORS[runIndex % RUN_COLORS.length];
export const agentDash = (i: number) => AGENT_DASHES[i % AGENT_DASHES.length];
