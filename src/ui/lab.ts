/**
 * Session actions: plain functions (testable without React) that create and drive one
 * LabSession — one worker per run × seed — with the store's config, and route its events into
 * the store (slow state), run-data.ts (metric frames, rollouts) and persist.ts (IndexedDB). Each
 * action does something only where the session state machine (session-state.ts) enables it. A
 * structural config change resets the session (the user is asked first: ask in store.ts); a live
 * hyper-parameter applies in place and leaves a chart marker. The live session itself is held in
 * live-session.ts (with reset), and started or resumed from IndexedDB in lab-start.ts.
 */
import type { LiveParam } from '../core/live-params';
import { latestLive, withBaseLive } from '../core/live-schedule';
import { encodeExperiment } from '../core/url';
import { flush, recordingId } from './persist';
import { statesToResume } from './resume-point';
import { claimToTrain, letGoOnceStopped } from './handoff';
import { canDo, nextState } from './session-state';
import type { SessionAction, SessionState } from './session-state';
import { addError, setConfig, useLab } from './store';
import { dropSession, liveSession, onceReady } from './live-session';
import { bringingBack, isOpening, resumeSession, startSession, whileClaimed, withSession } from './lab-start';

/** Where `action` leads from the state the session is in now, or null where it does nothing. */
function target(action: SessionAction): SessionState | null {
  const now = useLab.getState().sessionState;
  return canDo(now, action) ? nextState(now, action) : null;
}

/** Train: every run trains (creating the workers, or resuming a restored session, first). */
export function play(): void {
  const to = target('train');
  if (!to) return;
  withSession((s) => {
    s.play();
    useLab.setState({ sessionState: to, autoPaused: false });
  });
}

/** Pause: every run stops after its current step (a finished session has nothing to pause). */
export function pause(): void {
  const to = target('pause');
  const session = liveSession();
  if (!to || !session) return;
  session.pause();
  useLab.setState({ sessionState: to });
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
    useLab.setState({ sessionState: to });
  });
}

/** Run again: the finished experiment from step 0 in a new session (the finished one stays in Past sessions). */
export function runAgain(): void {
  const to = target('runAgain');
  if (!to || isOpening()) return; // a Continue being opened owns the session until it settles
  try {
    startSession().play();
  } catch {
    return; // startSession said why in the alert area
  }
  useLab.setState({ sessionState: to });
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
  if (!to || !id || !Number.isInteger(n) || n < 1 || isOpening()) return;
  const { config: before, sessionState: from } = useLab.getState();
  const longer = { ...before, steps: before.steps + n };
  bringingBack(
    (async () => {
      // Finished, this tab let the session go: it claims it back, or shows it read-only.
      if (!(await claimToTrain(dropSession))) throw new Error('another tab took this session over');
      // The done workers go first, so the longer experiment below is no structural change to a live session.
      dropSession();
      setConfig(longer);
      await flush();
      const { count, saved } = await statesToResume(id, useLab.getState().runs);
      if (count === 0) throw new Error('no run of this session has a saved state');
      return resumeSession(id, saved, encodeExperiment(longer));
    })(),
  ).then(
    (s) => {
      // Reset while it opened: the user left this session, so its resumed runs must not start.
      if (useLab.getState().sessionState !== from) return s.dispose();
      s.play();
      useLab.setState({ sessionState: to, autoPaused: false });
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
  liveSession()?.pace(delayMs);
}

/** Asks every run for its files (`what`); each run's are downloaded as they arrive. */
const downloadFromRuns = (what: 'snapshot' | 'runStates') => (): void => {
  const s = liveSession();
  if (s) onceReady(() => s[what]());
};
/** Every run's models' weights, as checkpoint files. */
export const snapshot = downloadFromRuns('snapshot');
/** Every run's whole state now (weights, optimizer moments, step), as the CLI's state files. */
export const downloadRunStates = downloadFromRuns('runStates');

/** Fault injection for tests and demos: every run's GPU device is destroyed (see run.worker.ts). */
export function simulateDeviceLoss(): void {
  liveSession()?.loseDevice();
}

// ─── live hyper-parameters ───────────────────────────────────────────────────

/**
 * Applies a hyper-parameter to every run without a reset, at each run's next step (one step for
 * all its repeats: LabSession.set), or from step 0 where no run trains yet. The config (and so the
 * link) follows; the workers answer with the step it takes effect at, which becomes a chart marker.
 */
export function setLiveNext(param: LiveParam, value: number): void {
  const { config, sweepCells } = useLab.getState();
  if (latestLive(config, param) === value) return;
  const s = liveSession();
  // A link sweep's cells train as planned: one schedule in the link could not say each cell's step.
  if (s && sweepCells) return;
  // Before any run trains, the value holds from step 0; once they do, each run's step is recorded.
  if (!s) return useLab.setState({ config: withBaseLive(config, param, value) });
  // A change is written into the session (its markers): a stopped tab claims it back for that, and
  // once the runs took it, lets it go again (their 'stopped' follows their 'param').
  whileClaimed(s, (live) =>
    onceReady(() => {
      void live.set(param, value).then(() => {
        if (liveSession() === live && useLab.getState().sessionState !== 'training') letGoOnceStopped(live);
      });
    }),
  );
}
