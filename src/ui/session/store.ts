/**
 * The app's one zustand store: what React renders, and nothing else, in six slices, each with the
 * functions that write it.
 * - experiment: the experiment on screen, the problems of the link it came from, and a question
 *   that waits on the user (ask);
 * - backend: the probe's report, "Measure again", the wasm thread setting;
 * - session: the session state (moved only by SessionController.dispatch: moveSession) and what
 *   the page shows of the session: its runs, imported runs, errors, a link sweep's cells, the
 *   restored session, read-only, an opened result;
 * - storage: what the recorder (recorder.ts) says of IndexedDB: the stored sessions, why nothing
 *   is recorded, what a full disk left unsaved, the browser's answer to persist();
 * - view: chart preferences, and an embed link's one panel;
 * - workflow: the workflow picker's refusals, the files a link waits for, and the base models
 *   prepared or being prepared (src/ui/workflow-open.ts writes it).
 * `useLab` reads (a hook, getState, subscribe) and has no setState: a slice's own functions are
 * the only writers, each typed to its slice's fields. The per-step metric history lives in ring
 * buffers outside React (run-data.ts); the store only carries `frameVersion`, bumped at most once
 * per tick (run-data.ts, TICK_MS), so charts know to re-read.
 */
import { createStore, useStore } from 'zustand';
import { DEFAULT_EXPERIMENT } from '../../core/config';
import type { Experiment } from '../../core/config';
import type { FieldError } from '../../core/config-validate';
import { runColors, type EstimatorChoice } from '../../core/estimators';
import type { Dial } from '../../core/url-sweep';
import { valueAt } from '../../core/url';
import type { Cell, SweepFile } from '../../rl/sweep';
import type { BackendReport } from '../../backends/backend-types';
import { forgetMeasurements } from '../backend-cache';
import { keepThreadSetting, loadThreadSetting } from '../thread-setting';
import type { ThreadSetting } from '../../backends/threads';
import type { LiveParam } from '../../core/live-params';
import type { ResultBody, ResultMachine } from '../../report/result-format';
import type { EmbedView } from '../../report/result-link';
import type { RunSummary } from '../../report/summary';
import type { RunId, RunStatus } from '../../workers/protocol';
import { nextState } from './session-state';
import type { SessionEvent, SessionState } from './session-state';
import type { WorkflowIssue } from '../../tasks/workflow-files';
import type { BaseSummary } from './workflow-library';

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
  /** Steps done (a count: the last frame's 0-based step + 1). */
  step: number;
  agents: string[];
  /**
   * An opened result's run kept on screen beside the runs trained here (Train it here: the store's
   * `compared`): drawn thin and light, in its local twin's colour (docs/charts.md#opened-beside-local).
   */
  opened?: true;
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
  /**
   * Charts the user put on a log y scale, and ones they put on a linear one, by chart registry id
   * (src/core/charts.ts). A chart in neither follows its data: log where its peak stands more than
   * two decades above its median (MetricChart.tsx), so one spike does not flatten the rest.
   */
  logCharts: string[];
  linearCharts: string[];
  /** Series hidden through the legend, by run index and agent name. */
  hiddenRuns: number[];
  hiddenAgents: string[];
  /**
   * The Map was asked for (Other tools' "Map a sweep folder"): it shows with its folder picker.
   * Without it the Map shows only once a sweep exists (a link's, or a folder opened).
   */
  mapAsked: boolean;
}

/** A session as IndexedDB keeps it (the recorder writes it: recorder.ts; Past sessions lists it). */
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
  /**
   * The backend and kernels it trained on, as its worker said them ("wasm", "fused wasm SIMD"); a
   * run that went on elsewhere (a fallback, a resume on another backend) keeps both ("webgpu, then
   * wasm"). Absent in sessions stored before they were kept: a result says "not recorded".
   */
  backend?: string;
  kernels?: string;
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
  /**
   * The builds that recorded into it, in order (build-id.ts; a resume by another build adds one);
   * null: one before builds were kept. Absent in a session stored before then.
   */
  builds?: (string | null)[];
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

/** The experiment on screen, the problems of the link it came from, and a question waiting on the user. */
export interface ExperimentSlice {
  config: Experiment;
  /** The sweep the link carries over `config` (`sweep.KEY=v1,v2,…`), its dials in grid order; [] for none. */
  sweep: Dial[];
  /** Problems with the link the page was opened with; `shownInstead` was shown instead. */
  urlErrors: FieldError[];
  /** The link that could not be opened, as given (the address bar holds the experiment shown instead). */
  badLink: string;
  /** What a bad link left on screen: the default experiment, or the runs that were on screen. */
  shownInstead: string;
  /**
   * Why the `#open=` link in the address bar opened no result (refused, or failed when fetched and
   * read); '' for none. `shownInstead` is what stayed on screen.
   */
  openRefused: string;
  /** Said once about a link that opened with a rename (plan's old role names); '' for none. */
  urlNote: string;
  /** Inline fields holding a value the page refused, by path: Train stays off until they are fixed. */
  fieldErrors: Record<string, FieldError[]>;
  /** An action that needs new runs, waiting for the user's answer while runs are on screen (ask). */
  pending: PendingAction | null;
}

/** The backend indicator and the machine's settings for it. */
export interface BackendSlice {
  backend: BackendStatus;
  /** Bumped to run the backend probe again (the panel's "Measure again"). */
  probeNonce: number;
  /** Threads per run for the wasm backend (a machine setting, kept in localStorage; thread-setting.ts). */
  threads: ThreadSetting;
}

/** What the page shows of the session: the controller's (controller.ts) to write. */
export interface SessionSlice {
  /** Where the session's buttons stand (session-state.ts): moved only by the controller's dispatch. */
  sessionState: SessionState;
  runs: RunView[];
  /** Runs read from other trainers' files (read-only: no worker); shown beside the session's. */
  imported: RunView[];
  /**
   * The link sweep whose runs are on screen: its sweep.json as `lab sweep` would write it, its cells
   * as planned at Train (RunView.cell indexes them), and the cell the board shows. Null otherwise.
   */
  sweepCells: { file: SweepFile; cells: Cell[]; shown: number } | null;
  /** Speed control: milliseconds every run waits between steps while playing (0 = full speed). */
  paceMs: number;
  /** Bumped (at most once per tick, run-data.ts) when any run's ring buffer grew. */
  frameVersion: number;
  /** Session-level errors (a worker that failed to start, …), shown in role="alert". */
  errors: string[];
  /** Names of the checkpoint files the next session starts from (empty: shipped base models). */
  uploads: string[];
  /**
   * The stored session whose curves are shown (no workers), or null. `startsOver`: labels of its
   * runs whose saved state is ahead of their recorded steps (resume-point.ts).
   */
  restored: { id: string; createdAt: number; startsOver?: string[] } | null;
  /**
   * The stored session on screen is recorded by another tab (writer-lock.ts): shown read-only,
   * Train off; `free` once that tab let it go or closed, when "Take over" trains it here.
   */
  readOnly: { id: string; free: boolean } | null;
  /** A result file on screen (session/result.ts): shown read-only, trained elsewhere; null otherwise. */
  opened: OpenedResult | null;
  /**
   * Train it here: the opened result's runs, read-only, beside the session trained here from its
   * experiment, and their summaries for the Reproduced? card; null otherwise. `configuredSteps`:
   * the experiment's steps as the result holds them, where the session here trains fewer (its runs
   * stopped short of them: reproduced.ts stepsToReproduce), so the page can say why.
   */
  compared: {
    result: OpenedResult;
    runs: RunView[];
    summaries: RunSummary[];
    configuredSteps: number;
  } | null;
}

/** What the page says of an opened result: its file, content hash, maker and the machine it ran on. */
export interface OpenedResult {
  name: string;
  sha256: string;
  made: ResultBody['made'];
  /** Where it ran (the first of its machines); null where the file names none (runs imported from other tools). */
  machine: ResultMachine | null;
  /** Why Train it here is off for it (result.ts trainHereBlocker), or null. */
  cannotTrain: string | null;
  /**
   * The URL it was fetched from by an `#open=` link, so that Copy link gives the result's link;
   * null for a file dropped or picked, which has no link (Copy link gives its experiment's, and says so).
   */
  url: string | null;
}

/** What the recorder (recorder.ts) says of the page's storage. */
export interface StorageSlice {
  /** Sessions kept in IndexedDB, newest first (null while they load). */
  pastSessions: StoredSession[] | null;
  /** Why runs are not being stored (IndexedDB unavailable or failing), shown once in role="alert". */
  persistError: string | null;
  /**
   * What storage refused for want of room (storage-full.ts): the first step of the frames not
   * stored, and per run the step of the state it could not save. The status bar says it.
   */
  unsaved: { frames?: number; states: Partial<Record<RunId, number>> };
  /** The browser's answer to `navigator.storage.persist()` (null: not asked yet); Past sessions shows it. */
  kept: boolean | null;
}

export interface ViewSlice {
  view: ViewPrefs;
  /** An embed link's one panel (`#open=…&view=…`): the page shows it alone; null: the whole page. */
  embed: EmbedView;
}

/** What a link waits for before it opens: its workflow's file, or its dataset file (workflow-open.ts). */
export interface WantedFiles {
  /** The link as given: it opens once the files are. */
  link: string;
  /** The workflow's hash (`wfhash=`), where the link names it so. */
  workflow?: string;
  /** The dataset its workflow reads: the file's name and SHA-256, and the workflow's name. */
  data?: { file: string; sha256: string; workflow: string };
  /** Opens the link, once the files are given and checked. */
  open: () => void;
}

/** A preparation of base models under way (workflow-open.ts): what it prepares and how far it is. */
export interface Preparing {
  key: string;
  /** The workflow whose base models these are (its name): the panel says so on another workflow. */
  workflow: string;
  step: number;
  maxSteps: number;
  loss?: number;
  /** The team's validation success at the last check, and each agent's own. */
  success?: number;
  own?: Record<string, number>;
  /** The backend it runs on, once chosen. */
  backend?: string;
  /** Stop: it ends at its next step, and its models as they stand are kept. */
  stop: () => void;
  stopping?: boolean;
}

/** The workflow picker and the base models of a workflow experiment. */
export interface WorkflowSlice {
  /** Refusals of the files last opened, each naming its file and its line, stage or field. */
  workflowIssues: WorkflowIssue[];
  /** The files being read (in the reader worker), by name, or null. */
  workflowReading: string | null;
  /** The last workflow read: its data (dataKey), its rows and how long the reader took, in ms. */
  workflowRead: { data: string; rows: number | null; ms: number } | null;
  /** What a link waits for before it opens, or null. */
  wanted: WantedFiles | null;
  /** Base models prepared in this browser, by baseModelsKey: Train's runs start from them. */
  baseModels: Record<string, BaseSummary>;
  /** A preparation under way, or null. */
  preparing: Preparing | null;
}

export type LabState = ExperimentSlice &
  BackendSlice &
  SessionSlice &
  StorageSlice &
  ViewSlice &
  WorkflowSlice;

const DEFAULT_SHOWN = 'the default experiment';

const initial = (): LabState => ({
  config: DEFAULT_EXPERIMENT,
  sweep: [],
  urlErrors: [],
  badLink: '',
  shownInstead: DEFAULT_SHOWN,
  openRefused: '',
  urlNote: '',
  fieldErrors: {},
  pending: null,
  backend: { state: 'probing' },
  probeNonce: 0,
  threads: loadThreadSetting(),
  sessionState: 'idle',
  runs: [],
  imported: [],
  sweepCells: null,
  paceMs: 0,
  frameVersion: 0,
  errors: [],
  uploads: [],
  restored: null,
  readOnly: null,
  opened: null,
  compared: null,
  pastSessions: null,
  persistError: null,
  unsaved: { states: {} },
  kept: null,
  view: {
    layout: 'overlaid',
    smoothing: 0.6,
    logCharts: [],
    linearCharts: [],
    hiddenRuns: [],
    hiddenAgents: [],
    mapAsked: false,
  },
  embed: null,
  workflowIssues: [],
  workflowReading: null,
  workflowRead: null,
  wanted: null,
  baseModels: {},
  preparing: null,
});

const store = createStore<LabState>()(initial);

/** The store, read: `useLab(selector)` in a component, `useLab.getState()` and `useLab.subscribe` elsewhere. */
export const useLab = Object.assign(<T>(selector: (s: LabState) => T): T => useStore(store, selector), {
  getState: store.getState,
  subscribe: store.subscribe,
});

/** Tests only: the store as a fresh page has it, with `overrides`. */
export const resetLab = (overrides: Partial<LabState> = {}) => store.setState({ ...initial(), ...overrides });

/** A patch of some of a slice's fields (or, from the state now, a patch; null: no change). */
type Patch<K extends keyof LabState> = Partial<Pick<LabState, K>>;
type Write<K extends keyof LabState> = (patch: Patch<K> | ((s: LabState) => Patch<K> | null)) => void;
/** A slice's writer: it sets the slice's own fields `K` and no other. */
const writer =
  <K extends keyof LabState>(): Write<K> =>
  (patch) =>
    store.setState((s) => (typeof patch === 'function' ? (patch(s) ?? s) : patch));

// ─── experiment ──────────────────────────────────────────────────────────────

export const setExperiment = writer<keyof ExperimentSlice>();
export const setConfig = (config: Experiment) => setExperiment({ config });
/**
 * A user's choice of experiment: it replaces a bad link, so the link's errors go (a result link's refusal too), and so does the
 * refusal of every field whose value it replaces (a preset over a refused G = 512: the field shows
 * the preset's G, so nothing is refused any more). A field it leaves alone keeps its refusal.
 */
export const chooseConfig = (config: Experiment) =>
  setExperiment((s) => ({
    config,
    urlErrors: [],
    openRefused: '',
    fieldErrors: Object.fromEntries(
      Object.entries(s.fieldErrors).filter(([path]) => valueAt(s.config, path) === valueAt(config, path)),
    ),
  }));
/** An inline field's refusals (none: it holds an applied value); Train reads them all. */
export function setFieldErrors(path: string, errors: FieldError[]): void {
  setExperiment((s) => {
    if (errors.length === 0 && !(path in s.fieldErrors)) return null;
    const { [path]: _gone, ...rest } = s.fieldErrors;
    return { fieldErrors: errors.length > 0 ? { ...rest, [path]: errors } : rest };
  });
}
export const setUrlErrors = (urlErrors: FieldError[], badLink = '', shownInstead = DEFAULT_SHOWN) =>
  setExperiment({ urlErrors, badLink, shownInstead });
/** Why the `#open=` link opened nothing ('' clears it), and what stayed on screen. */
export const setOpenRefused = (openRefused: string, shownInstead = DEFAULT_SHOWN) =>
  setExperiment({ openRefused, shownInstead });

/**
 * An action that needs new runs: with none on screen it applies at once; with runs on screen it
 * waits in `pending` for the user's answer (answerPending in config-edit.ts), so nothing is
 * discarded without asking. A newer question replaces an unanswered one, which is answered "keep".
 */
export function ask(action: PendingAction): void {
  const { sessionState, pending } = store.getState();
  if (sessionState === 'idle') return action.apply();
  pending?.drop?.();
  setExperiment({ pending: action });
}
/** The question waiting on the user, taken out of the store (answered now), or null. */
export function takePending(): PendingAction | null {
  const { pending } = store.getState();
  if (pending) setExperiment({ pending: null });
  return pending;
}

// ─── backend ─────────────────────────────────────────────────────────────────

const setBackendSlice = writer<keyof BackendSlice>();
export const setBackend = (backend: BackendStatus) => setBackendSlice({ backend });
/** The wasm thread setting, kept for the next visit; runs started from now on get it. */
export function setThreads(threads: ThreadSetting): void {
  keepThreadSetting(threads);
  setBackendSlice({ threads });
}
/** Forgets `auto`'s kept measurements and probes again, so that the backends are timed afresh. */
export function remeasureBackends(): void {
  forgetMeasurements();
  setBackendSlice((s) => ({ probeNonce: s.probeNonce + 1 }));
}

// ─── session ─────────────────────────────────────────────────────────────────

/** The session slice but its state, which only moveSession writes. */
export const setSession = writer<Exclude<keyof SessionSlice, 'sessionState'>>();
/**
 * Moves the session's state machine by `event` from the state it is in now, with `patch` in the
 * same store update. Only SessionController.dispatch calls it (test/ui/session/controller.test.ts
 * checks), so every move of the machine goes through one place.
 */
export function moveSession(
  event: SessionEvent,
  patch: Patch<Exclude<keyof SessionSlice, 'sessionState'>> = {},
) {
  store.setState((s) => ({ ...patch, sessionState: nextState(s.sessionState, event) }));
}
export const addError = (message: string) => setSession((s) => ({ errors: [...s.errors, message] }));
/**
 * Async work a click or the page's start sets off (Past sessions' Open, Show, Hide and Delete, Take
 * over, bringing back the last session): a failure is said ("Open session failed: …; nothing
 * stored was lost"), in the page's alert or where `say` puts it (beside the buttons clicked), never
 * left an unhandled rejection that says nothing. What is stored stays as it was: each store write
 * is one transaction, and none of these deletes but Delete, which fails whole.
 */
export const reported = (
  what: string,
  work: () => Promise<unknown>,
  say: (message: string) => void = addError,
): void =>
  void Promise.resolve()
    .then(work)
    .catch((e: unknown) =>
      say(`${what} failed: ${e instanceof Error ? e.message : String(e)}; nothing stored was lost`),
    );
export const dismissError = (i: number) =>
  setSession((s) => ({ errors: s.errors.filter((_, j) => j !== i) }));
/** Updates one run's view; a no-op for a run that is gone (a late message after reset). */
export function patchRun(id: RunId, patch: Partial<RunView> | ((r: RunView) => Partial<RunView>)): void {
  setSession((s) => {
    const i = s.runs.findIndex((r) => r.id === id);
    if (i < 0) return null;
    const runs = s.runs.slice();
    runs[i] = { ...runs[i], ...(typeof patch === 'function' ? patch(runs[i]) : patch) };
    return { runs };
  });
}
/**
 * The runs the board shows (charts, Findings, What differs, the rollout inspector, the metrics
 * export): a link sweep's cell picked in the Map, else every run of the session.
 */
export const boardRuns = (s: LabState): RunView[] =>
  s.sweepCells ? s.runs.filter((r) => r.cell === s.sweepCells?.shown) : s.runs;
/** The Map's pick of a link sweep's cell for the board. */
export const showCell = (shown: number) =>
  setSession((s) => (s.sweepCells ? { sweepCells: { ...s.sweepCells, shown } } : null));
/** The experiment the board's runs trained: the shown cell's under a link sweep, else the page's. */
export const boardConfig = (s: LabState): Experiment =>
  s.sweepCells?.cells[s.sweepCells.shown].config ?? s.config;

// ─── storage ─────────────────────────────────────────────────────────────────

/** The storage slice: the recorder's to write. */
export const setStorage = writer<keyof StorageSlice>();

// ─── view ────────────────────────────────────────────────────────────────────

const setViewSlice = writer<keyof ViewSlice>();
export const setView = (patch: Partial<ViewPrefs>) =>
  setViewSlice((s) => ({ view: { ...s.view, ...patch } }));
export const setEmbed = (embed: EmbedView) => setViewSlice(() => ({ embed }));
/** The user's scale for one chart: log or linear, from now on whatever its data spans. */
export const chooseLog = (chartId: string, on: boolean) =>
  setViewSlice((s) => ({
    view: {
      ...s.view,
      logCharts: on
        ? [...new Set([...s.view.logCharts, chartId])]
        : s.view.logCharts.filter((c) => c !== chartId),
      linearCharts: on
        ? s.view.linearCharts.filter((c) => c !== chartId)
        : [...new Set([...s.view.linearCharts, chartId])],
    },
  }));
export const toggleRun = (runIndex: number) =>
  setViewSlice((s) => ({ view: { ...s.view, hiddenRuns: toggle(s.view.hiddenRuns, runIndex) } }));
export const toggleAgent = (agent: string) =>
  setViewSlice((s) => ({ view: { ...s.view, hiddenAgents: toggle(s.view.hiddenAgents, agent) } }));

function toggle<T>(list: T[], x: T): T[] {
  return list.includes(x) ? list.filter((y) => y !== x) : [...list, x];
}

// ─── workflow ─────────────────────────────────────────────────────────────────

/** The workflow slice: the picker's and the preparation's (workflow-open.ts) to write. */
export const setWorkflowSlice = writer<keyof WorkflowSlice>();

/** One dash pattern per agent, in the order the task lists its agents. */
const AGENT_DASHES = ['', '6 3', '2 3', '10 3 2 3'] as const;
/** Run `runIndex`'s colour among an experiment's runs: its estimator's (runColors, core/estimators.ts). */
export const runColor = (runs: readonly { estimator: EstimatorChoice }[], runIndex: number) =>
  runColors(runs.map((r) => r.estimator))[runIndex] ?? runColors([undefined])[0];
export const agentDash = (i: number) => AGENT_DASHES[i % AGENT_DASHES.length];
