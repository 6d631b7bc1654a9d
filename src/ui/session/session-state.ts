/**
 * The session's buttons as one state machine (no React, no store): the states a session is in,
 * the events that move it, and so, per state, which actions the buttons offer. A button is
 * enabled exactly where its action moves the machine; everywhere else it does nothing, so it is
 * disabled. Whether the config can run at all (a refused field, the memory limit, no backend) is
 * a separate question, answered in train-blockers.ts. Documented in docs/page.md#session-states.
 */

export const SESSION_STATES = ['idle', 'training', 'paused', 'done', 'restored'] as const;
/**
 * idle: no runs on screen. training: workers train. paused: workers wait. done: every run
 * reached its last step (live, or a finished stored session on screen). restored: a stored,
 * unfinished session on screen, with no workers (Train goes on from its saved states).
 */
export type SessionState = (typeof SESSION_STATES)[number];

/** What the buttons do: Train, Pause, Step, Reset, Run again, Continue for N more steps. */
export const SESSION_ACTIONS = ['train', 'pause', 'step', 'reset', 'runAgain', 'continue'] as const;
export type SessionAction = (typeof SESSION_ACTIONS)[number];

/**
 * Events: the user's actions, and what the page learns. finish: every run reached its last step
 * (or failed). restore / restoreFinished: a stored session came on screen, unfinished / finished.
 */
export const SESSION_EVENTS = [...SESSION_ACTIONS, 'finish', 'restore', 'restoreFinished'] as const;
export type SessionEvent = (typeof SESSION_EVENTS)[number];

/** Opening a stored session replaces whatever is on screen (the live runs are kept in Past sessions). */
const RESTORE = { restore: 'restored', restoreFinished: 'done' } as const;

/** Every transition; an event missing from a state's row leaves the state as it is. */
const TRANSITIONS: Record<SessionState, Partial<Record<SessionEvent, SessionState>>> = {
  idle: { train: 'training', step: 'paused', ...RESTORE },
  training: { pause: 'paused', reset: 'idle', finish: 'done', ...RESTORE },
  paused: { train: 'training', step: 'paused', reset: 'idle', finish: 'done', ...RESTORE },
  // Run again: a new session from step 0; Continue: every run goes on from its saved state.
  done: { reset: 'idle', runAgain: 'training', continue: 'training', ...RESTORE },
  restored: { train: 'training', step: 'paused', reset: 'idle', ...RESTORE },
};

/** The state after `event` (the same state where the event does nothing there). */
export const nextState = (state: SessionState, event: SessionEvent): SessionState =>
  TRANSITIONS[state][event] ?? state;

/**
 * The name of the button whose action is `train`: Resume where it goes on with runs that wait
 * mid-session (paused: by Pause, after a Step, or hidden), Train everywhere else (a new session, or
 * a stored one going on from its saved states, or from step 0 where none saved one).
 */
export const trainButtonName = (state: SessionState): 'Train' | 'Resume' =>
  state === 'paused' ? 'Resume' : 'Train';

/** True where the action does something, i.e. where its button is enabled. */
export const canDo = (state: SessionState, action: SessionAction): boolean =>
  TRANSITIONS[state][action] !== undefined;
