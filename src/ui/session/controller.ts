/**
 * The page's one owner of the live session. It owns the run workers (a LabSession: one worker per
 * run × seed), the commands waiting for them to load, the checkpoint files the next session starts
 * from, the workflow datasets and base models its runs get (workflow-library.ts) and the tab's
 * writer lock (writer-lock.ts, through its recorder: recorder.ts), and offers the
 * user's actions: play, pause, step, run again, continue, a live change (setLiveNext) and reset.
 * Each action does something only where the session state machine (session-state.ts) enables it,
 * and `dispatch` is the one place that moves the machine. A structural config change resets the
 * session (the user is asked first: ask in store.ts); a live hyper-parameter applies in place and
 * leaves a chart marker. Worker messages come back through worker-messages.ts.
 *
 * Every piece of the session's state is a field here or in the recorder, none a module variable,
 * so a test builds a controller of its own (test/ui/session/controller.test.ts).
 *
 * The writer lock, in the controller's words: a tab keeps its claim only while its runs train.
 * Paused, or finished, it lets the session go once every run has stopped and saved its state and
 * the frames queued are stored (letGoOnceStopped), so a second tab showing the session read-only
 * may take it over from those states. Told to train again (Train, Step, Continue), it claims the
 * session back first (claimToTrain); if another tab took it meanwhile, its workers stop, nothing
 * it still has queued is written, and it shows the session read-only, as a tab that lost the claim
 * on a restored session does (restore.ts).
 */
import { runRepeats, structuralKey } from '../../core/config';
import type { Experiment } from '../../core/config';
import type { LiveParam } from '../../core/live-params';
import { latestLive, withBaseLive } from '../../core/live-schedule';
import { encodeExperiment, sameStructure } from '../../core/url';
import { memoryVerdict } from '../../sizing/memory';
import { LabSession } from '../../workers/client';
import type { RunId } from '../../workers/protocol';
import type { SessionOptions } from '../../workers/run-start';
import { loadMeasurements } from '../backend-cache';
import type { Result } from '../../report/result-format';
import { summariesOf } from '../../report/result-make';
import { stepsToReproduce } from '../../report/reproduced';
import { clearRunData, forgetRunData } from '../run-data';
import { threadChoice } from '../thread-setting';
import { keeping, newRunView, planSweep, waitingState } from './controller-start';
import { Recorder } from './recorder';
import { resultOnScreen, sessionResult, trainHereBlocker } from './result';
import { statesToResume } from './resume-point';
import { canDo } from './session-state';
import type { SessionAction, SessionEvent } from './session-state';
import { clearUnsaved } from './storage-full';
import {
  addError,
  ask,
  chooseConfig,
  moveSession,
  setConfig,
  setExperiment,
  setSession,
  takePending,
  useLab,
} from './store';
import type { LabState, RunView, SessionSlice } from './store';
import { receive } from './worker-messages';
import { WriterLock } from './writer-lock';
import { WorkflowLibrary } from './workflow-library';

export interface ControllerOptions {
  /** Tests only: how each run's worker is made (Node has no Web Worker), and how many run at once. */
  workers?: Pick<SessionOptions, 'newWorker' | 'slots'>;
}

export class SessionController {
  /** The tab's writer lock: the sessions it records, and the one on screen it watches. */
  readonly writer = new WriterLock();
  /** What the session records in IndexedDB. */
  readonly recorder = new Recorder(this.writer);
  /** Workflow datasets and prepared base models: each run of a workflow experiment gets them. */
  readonly workflows = new WorkflowLibrary();
  /** The run workers of the live session, if any. */
  private workers: LabSession | null = null;
  /** Commands that need a loaded run wait until every run with a worker has sent `ready`. */
  private whenReady: (() => void)[] = [];
  /** Checkpoint files to start the next session from (the Start-from-checkpoints picker). */
  private uploads: { name: string; bytes: ArrayBuffer }[] = [];
  /** The restored session being brought back: until it settles it owns the session (a second click waits for it). */
  private opening: Promise<LabSession> | null = null;
  /** Letting go and claiming back, one after the other: a claim waits for a letting-go in progress. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Paused by the Page Visibility API, to go on when the tab shows again. */
  private autoPaused = false;
  /** The result file on screen (store's `opened` says what of it the page shows), shared as it came. */
  private opened: Result | null = null;

  constructor(private readonly options: ControllerOptions = {}) {}

  /** The live session's run workers, if any. */
  get live(): LabSession | null {
    return this.workers;
  }

  /** The one writer of the session state machine: moves it by `event`, with `patch` in the same store update. */
  dispatch(event: SessionEvent, patch?: Partial<Omit<SessionSlice, 'sessionState'>>): void {
    moveSession(event, patch);
  }

  /**
   * A result file on screen, read-only (docs/sharing.md#opening-one-in-the-page): what was on
   * screen goes (a live session stays in Past sessions), the result's experiment becomes the
   * page's, and its runs are drawn from its frames. Nothing trains and nothing is recorded: it
   * ran elsewhere (trainBlockers keeps Train, Step, Run again and Continue off).
   */
  openResult(result: Result, name: string, url: string | null = null): void {
    this.clear();
    this.dropCompared();
    const shown = resultOnScreen(result, name, url);
    if (shown.config) chooseConfig(shown.config);
    setExperiment({ sweep: [] });
    this.opened = result;
    const { runs, sweepCells, opened } = shown;
    this.dispatch('restoreFinished', {
      runs,
      sweepCells,
      opened,
      frameVersion: useLab.getState().frameVersion + 1,
    });
  }

  /**
   * Train it here (docs/sharing.md#train-it-here): the opened result's experiment (a sweep's:
   * the cell on screen) trains on this machine as a session recorded like any other, while the
   * opened runs of that experiment stay on screen beside it, read-only (the store's `compared`),
   * for the Reproduced? card. A result shared before its runs finished trains to the steps they
   * reached, its experiment's steps set so (the link and the status bar say what trains).
   */
  trainHere(): void {
    const { opened, runs, sweepCells } = useLab.getState();
    const result = this.opened;
    if (!opened || !result || trainHereBlocker(result)) return;
    const cell = sweepCells?.shown ?? 0;
    const experiment = result.body.experiments[cell].experiment!;
    const mine = (i: number) => result.body.runs[i].experiment === cell;
    // Without their cell: beside the runs trained here they are one experiment's, not a sweep's.
    const beside = runs
      .filter((_, i) => mine(i))
      .map(({ cell: _, ...r }): RunView => ({ ...r, opened: true }));
    const compared = {
      result: opened,
      runs: beside,
      summaries: summariesOf(
        experiment,
        result.body.runs.filter((_, i) => mine(i)),
      ),
      configuredSteps: experiment.steps,
    };
    const steps = stepsToReproduce(
      experiment.steps,
      beside.map((r) => r.step),
    );
    chooseConfig({ ...experiment, steps }); // as it came, whatever was edited since
    setSession({ compared });
    this.clear('reset'); // the opened runs' frames stay in run-data: clear keeps compared's
    this.play();
  }

  /** The opened runs beside the local ones go (Reset, another result or session opened). */
  private dropCompared(): void {
    const { compared } = useLab.getState();
    if (!compared) return;
    forgetRunData(compared.runs.map((r) => r.id));
    setSession({ compared: null });
  }

  /** The session on screen as a result file's bytes (an opened result: as it was opened). */
  shareResult(): Uint8Array {
    return sessionResult(useLab.getState(), this.opened, this.recorder.recordingSession);
  }

  /** Whether the buttons' `action` does something from the state the session is in now. */
  private can(action: SessionAction): boolean {
    return canDo(useLab.getState().sessionState, action);
  }

  // ─── the user's actions ────────────────────────────────────────────────────

  /** Train: every run trains (creating the workers, or resuming a restored session, first). */
  play(): void {
    if (!this.can('train')) return;
    this.withSession((s) => {
      s.play();
      this.autoPaused = false;
      this.dispatch('train');
    });
  }

  /** Pause: every run stops after its current step (a finished session has nothing to pause). */
  pause(): void {
    const s = this.workers;
    if (!this.can('pause') || !s) return;
    s.pause();
    this.dispatch('pause');
    this.letGoOnceStopped(s);
  }

  /** Step: exactly one more step per run, from a paused (or not yet started) session. */
  step(): void {
    if (!this.can('step')) return;
    this.withSession((s) => {
      this.onceReady(() => {
        s.step();
        this.letGoOnceStopped(s); // after the step, as after a pause
      });
      this.dispatch('step');
    });
  }

  /** Run again: the finished experiment from step 0 in a new session (the finished one stays in Past sessions). */
  runAgain(): void {
    if (!this.can('runAgain') || this.opening) return; // a Continue being opened owns the session until it settles
    try {
      this.startSession().play();
    } catch {
      return; // startSession said why in the alert area
    }
    this.dispatch('runAgain');
  }

  /**
   * Continue for `n` more steps: the finished session's runs go on from their states saved at the
   * last step (the workers save when a run is done), recording into the same session; the
   * experiment's steps grow by `n`, so the link says what ran. The 'ready' handler cuts each run's
   * curve at its saved step, so no step is recorded twice.
   */
  continueFor(n: number): void {
    const id = this.recorder.recordingId ?? useLab.getState().restored?.id;
    if (!this.can('continue') || !id || !Number.isInteger(n) || n < 1 || this.opening) return;
    const { config: before, sessionState: from } = useLab.getState();
    const longer = { ...before, steps: before.steps + n };
    this.bringingBack(
      (async () => {
        // Finished, this tab let the session go: it claims it back, or shows it read-only.
        if (!(await this.claimToTrain())) throw new Error('another tab took this session over');
        // The done workers go first, so the longer experiment below is no structural change to a live session.
        this.dropWorkers();
        setConfig(longer);
        await this.recorder.flush();
        const { count, saved } = await statesToResume(id, useLab.getState().runs);
        if (count === 0) throw new Error('no run of this session has a saved state');
        return this.resumeSession(id, saved, encodeExperiment(longer));
      })(),
    ).then(
      (s) => {
        // Reset while it opened: the user left this session, so its resumed runs must not start.
        if (useLab.getState().sessionState !== from) return s.dispose();
        s.play();
        this.autoPaused = false;
        this.dispatch('continue');
      },
      (e: Error) => {
        // Nothing ran: the link goes back to the steps that did.
        if (useLab.getState().config === longer) setConfig(before);
        if (useLab.getState().readOnly) return; // taken over by another tab, said so (showTakenOver)
        addError(`Could not continue the runs (${e.message}); Run again starts them over.`);
      },
    );
  }

  /** Reset: the workers go and every run's history is forgotten (what is stored in IndexedDB stays). */
  reset(): void {
    this.clear('reset');
    this.dropCompared();
  }

  /** Speed control: a pause between steps, so a user can follow each one (0 = full speed). */
  setPace(delayMs: number): void {
    setSession({ paceMs: delayMs });
    this.workers?.pace(delayMs);
  }

  /**
   * A live change: a hyper-parameter applies to every run without a reset, at each run's next step
   * (one step for all its repeats: LabSession.set), or from step 0 where no run trains yet. The
   * config (and so the link) follows; the workers answer with the step it takes effect at, which
   * becomes a chart marker.
   */
  setLiveNext(param: LiveParam, value: number): void {
    const { config, sweepCells } = useLab.getState();
    if (latestLive(config, param) === value) return;
    const s = this.workers;
    // A link sweep's cells train as planned: one schedule in the link could not say each cell's step.
    if (s && sweepCells) return;
    // Before any run trains, the value holds from step 0; once they do, each run's step is recorded.
    if (!s) return setConfig(withBaseLive(config, param, value));
    // A change is written into the session (its markers): a stopped tab claims it back for that, and
    // once the runs took it, lets it go again (their 'stopped' follows their 'param').
    this.whileClaimed(s, (live) =>
      this.onceReady(() => {
        void live.set(param, value).then(() => {
          if (this.workers === live && useLab.getState().sessionState !== 'training')
            this.letGoOnceStopped(live);
        });
      }),
    );
  }

  /** Asks every run for its files; each run's are downloaded as they arrive (worker-messages.ts). */
  private downloadFromRuns(what: 'snapshot' | 'runStates'): void {
    const s = this.workers;
    if (s) this.onceReady(() => s[what]());
  }
  /** Every run's models' weights, as checkpoint files. */
  snapshot(): void {
    this.downloadFromRuns('snapshot');
  }
  /** Every run's whole state now (weights, optimizer moments, step), as the CLI's state files. */
  downloadRunStates(): void {
    this.downloadFromRuns('runStates');
  }

  /** Fault injection for tests and demos: every run's GPU device is destroyed (see run.worker.ts). */
  simulateDeviceLoss(): void {
    this.workers?.loseDevice();
  }

  /**
   * Start the runs from these checkpoint files (e.g. ones downloaded earlier; none: the shipped base
   * models). The workers check that each fits a model of the experiment; a misfit is an error naming
   * the file. The runs start over from them: with runs on screen the page asks first (ask).
   */
  async chooseCheckpoints(files: readonly File[]): Promise<void> {
    const next = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
    const title = next.length > 0 ? 'Start from these checkpoints' : 'Start from the shipped base models';
    const apply = () => {
      this.uploads = next;
      setSession({ uploads: next.map((u) => u.name) });
    };
    ask({ title, detail: 'the runs start over from them', apply });
  }

  // ─── the run workers ───────────────────────────────────────────────────────

  /** Runs `f` now if every run with a worker is loaded, else once the last one is (workers drop early steps). */
  onceReady(f: () => void): void {
    if (this.workers?.allReady()) f();
    else this.whenReady.push(f);
  }

  /** A run sent `ready`: once every run with a worker has, the commands waiting for that go. */
  runReady(): void {
    if (!this.workers?.allReady()) return;
    const queued = this.whenReady;
    this.whenReady = [];
    for (const f of queued) f();
  }

  /**
   * Run workers at the store's pace (a link sweep's: every cell's runs in its one queue), made the
   * live ones; commands queue until all of their runs are ready.
   */
  private spawn(config: Experiment | readonly Experiment[], options: SessionOptions): LabSession {
    this.whenReady = [];
    const threads = () => threadChoice(config, useLab.getState().threads).threads;
    // A workflow's runs get its dataset, and start from its prepared base models unless the user
    // chose checkpoint files (a link sweep's cells share the workflow's data and base models).
    const first = Array.isArray(config) ? config[0] : (config as Experiment);
    const uploads = options.uploads?.length ? options.uploads : (this.workflows.baseFor(first) ?? []);
    const s = new LabSession(config, (msg) => receive(this, msg), {
      measurements: loadMeasurements,
      threads,
      ...this.options.workers,
      ...options,
      uploads,
      dataset: this.workflows.dataFor(first),
    });
    const { paceMs } = useLab.getState();
    if (paceMs > 0) s.pace(paceMs);
    this.workers = s;
    return s;
  }

  /** Terminates the workers (the caller says what the session is now). */
  private dropWorkers(): void {
    this.workers?.dispose();
    this.workers = null;
    this.whenReady = [];
  }

  /**
   * Terminates the workers and forgets every run's history (what is stored in IndexedDB stays);
   * with `event`, the state machine moves by it in the same store update.
   */
  private clear(event?: SessionEvent): void {
    const { imported, compared } = useLab.getState();
    if (this.workers) this.recorder.endSession();
    this.dropWorkers();
    this.autoPaused = false;
    // Imported runs stay on the charts, and an opened result's runs beside the ones trained here.
    clearRunData([...imported, ...(compared?.runs ?? [])].map((r) => r.id));
    clearUnsaved();
    this.opened = null;
    const patch = { runs: [], errors: [], restored: null, readOnly: null, sweepCells: null, opened: null };
    if (event) this.dispatch(event, patch);
    else setSession(patch);
    // An action that waited on "keep the runs or start anew" has no runs left to protect: it applies.
    takePending()?.apply();
  }

  // ─── starting and resuming ─────────────────────────────────────────────────

  /**
   * Spawns the workers for the current config (ending any previous session); the caller moves the
   * state. A link sweep's cells are trained in one session, and not stored: no IndexedDB record,
   * no saved states (docs/sweeps.md#a-sweep-in-a-link says so, and the Map).
   */
  private startSession(): LabSession {
    this.clear();
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
      this.spawn(sweepCells ? experiments : config, { uploads: this.uploads });
    } catch (e) {
      addError(`Could not start the runs: ${(e as Error).message}`);
      throw e;
    }
    setSession({ sweepCells }); // before the runs: newRunView reads their cells
    const workers = this.workers!;
    setSession({ runs: workers.runs.map((r) => newRunView(r, workers.queued())) });
    if (sweepCells) return workers;
    const id = this.recorder.beginSession(encodeExperiment(config), useLab.getState().runs);
    workers.keepStates(keeping(this.recorder, id, false));
    return workers;
  }

  /** The stored session on screen, if Train can resume it: it ran the experiment now configured. */
  private resumable(): string | null {
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
  private async resumeSession(
    id: string,
    saved: readonly string[],
    experiment?: string,
  ): Promise<LabSession> {
    const { config, runs: shown, pastSessions } = useLab.getState();
    await this.writer.claimOrWatch(id); // one writer per session: another tab training it keeps it
    if (!(await this.recorder.continueSession(id, experiment))) throw new Error('the stored session is gone');
    // The stored record holds every run, also those that never started (they waited in the queue).
    const recorded = pastSessions?.find((p) => p.id === id)?.runs ?? shown;
    const ids = runRepeats(config).map((r) => recorded.find((x) => x.label === r.label)?.id);
    if (ids.some((x) => x === undefined))
      throw new Error('the stored session does not hold every run of this experiment');
    const workers = this.spawn(config, {
      ids: ids as RunId[],
      persist: keeping(this.recorder, id, true, saved),
    });
    const queue = workers.queued();
    setSession({
      restored: null,
      runs: workers.runs.map((info) => {
        const r = shown.find((x) => x.id === info.id);
        return r
          ? { ...r, ...waitingState(info, queue, 'resuming from the saved state…') }
          : newRunView(info, queue);
      }),
    });
    return workers;
  }

  /** `p` is the session being brought back until it settles. */
  private bringingBack(p: Promise<LabSession>): Promise<LabSession> {
    this.opening = p.finally(() => (this.opening = null));
    return this.opening;
  }

  /**
   * Runs `f` on the live session: the current one, the restored one resumed if a run of it has a
   * saved state (its runs without one start from step 0), or a new one (a restored session without
   * states stays as recorded, in Past sessions).
   */
  private withSession(f: (s: LabSession) => void): void {
    const live = this.workers;
    if (live) return this.whileClaimed(live, f);
    const id = this.resumable();
    if (!id) {
      try {
        return f(this.startSession());
      } catch {
        return; // startSession said why in the alert area
      }
    }
    (this.opening ?? this.bringingBack(this.openRestored(id))).then(f, (e: Error) =>
      addError(`Could not resume the stored runs (${e.message}); Reset starts them over.`),
    );
  }

  private async openRestored(id: string): Promise<LabSession> {
    // Runs that waited in the queue (or had not reached their first save, or whose state is ahead
    // of their recorded steps) start from step 0.
    const { saved } = await statesToResume(id, useLab.getState().runs);
    return saved.length > 0 ? this.resumeSession(id, saved) : this.startSession();
  }

  // ─── the writer lock ───────────────────────────────────────────────────────

  /** Letting go and claiming back, one after the other: each waits for the one before. */
  private inTurn<T>(f: () => Promise<T>): Promise<T> {
    const next = this.turn.then(f);
    this.turn = next.catch(() => undefined);
    return next;
  }

  /** The runs of `s` stop (pause, and save); then, if the session is still paused or done, it goes. */
  letGoOnceStopped(s: LabSession): void {
    void this.inTurn(async () => {
      await s.stopped();
      const now = useLab.getState().sessionState;
      if (now === 'paused' || now === 'done') await this.recorder.letGoWhileStopped();
    });
  }

  /**
   * Claims the recorded session back before its runs train. False if another tab took it over:
   * this tab's workers have ended, and the session is shown read-only, saying so.
   */
  private claimToTrain(): Promise<boolean> {
    return this.inTurn(async () => {
      const id = this.recorder.recordingId;
      if (await this.recorder.claimAgain()) return true;
      this.dropWorkers();
      if (id) this.showTakenOver(id);
      return false;
    });
  }

  /** Runs `f` on `live` once this tab has claimed its session again (stopped, it let it go). */
  private whileClaimed(live: LabSession, f: (s: LabSession) => void): void {
    void this.claimToTrain().then((mine) => mine && this.workers === live && f(live));
  }

  /** This tab's runs of session `id` stopped for good: it shows the session read-only until the other tab lets it go. */
  private showTakenOver(id: string): void {
    const { pastSessions, runs } = useLab.getState();
    const createdAt = pastSessions?.find((p) => p.id === id)?.createdAt ?? Date.now();
    this.dispatch('restore', {
      runs: runs.map((r) => ({ ...r, state: 'done', message: 'restored' })),
      restored: { id, createdAt, startsOver: [] },
      readOnly: { id, free: false },
    });
    addError(
      'Another tab took this session over while this tab was stopped: its runs stopped here, and the session is shown read-only',
    );
    this.writer.watch(id);
  }

  // ─── reactions to the page around it ───────────────────────────────────────

  /** A store reaction: a structural config change resets the session (each way to one asks first: ask). */
  resetOnStructuralChange(s: LabState, prev: LabState): void {
    const structural = s.config !== prev.config && structuralKey(s.config) !== structuralKey(prev.config);
    if (this.workers && structural) this.reset();
  }

  /** A store reaction: once every run is done, the session's lock goes, as on a pause. */
  letGoWhenDone(s: LabState, prev: LabState): void {
    const live = this.workers;
    if (live && s.sessionState === 'done' && prev.sessionState !== 'done') this.letGoOnceStopped(live);
  }

  /** Pauses the runs while the tab is hidden, and goes on when it is shown; returns a function that stops it. */
  followVisibility(): () => void {
    const onVisibility = () => {
      const { sessionState } = useLab.getState();
      if (document.visibilityState === 'hidden' && sessionState === 'training') {
        this.pause();
        this.autoPaused = true;
      } else if (document.visibilityState === 'visible' && this.autoPaused && sessionState === 'paused') {
        this.play();
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }
}
