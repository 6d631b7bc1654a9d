/**
 * The session's state machine, exhaustively: every state × every event, against a table written
 * out here by hand (not read from the module), and the enabled buttons of every state.
 */
import { describe, expect, it } from 'vitest';
import {
  SESSION_ACTIONS,
  SESSION_EVENTS,
  SESSION_STATES,
  canDo,
  nextState,
} from '../../../src/ui/session/session-state';
import type { SessionEvent, SessionState } from '../../../src/ui/session/session-state';

// Columns: train pause step reset runAgain continue finish restore restoreFinished ('-': no change).
const EXPECTED: Record<SessionState, string> = {
  idle: /*     */ 'training -       paused  -    -        -        -    restored done',
  training: /* */ '-        paused  -       idle -        -        done restored done',
  paused: /*   */ 'training -       paused  idle -        -        done restored done',
  done: /*     */ '-        -       -       idle training training -    restored done',
  restored: /* */ 'training -       paused  idle -        -        -    restored done',
};

describe('session state machine', () => {
  it('lists the five states, six actions and nine events', () => {
    expect(SESSION_STATES).toEqual(['idle', 'training', 'paused', 'done', 'restored']);
    expect(SESSION_ACTIONS).toEqual(['train', 'pause', 'step', 'reset', 'runAgain', 'continue']);
    expect(SESSION_EVENTS).toHaveLength(9);
  });

  for (const state of SESSION_STATES) {
    const row = EXPECTED[state].split(/\s+/);
    for (const [i, event] of SESSION_EVENTS.entries()) {
      const want = (row[i] === '-' ? state : row[i]) as SessionState;
      it(`${state} × ${event} → ${want}`, () => {
        expect(nextState(state, event as SessionEvent)).toBe(want);
      });
    }
  }

  it('enables exactly the actions that move the machine', () => {
    expect(
      Object.fromEntries(SESSION_STATES.map((s) => [s, SESSION_ACTIONS.filter((a) => canDo(s, a))])),
    ).toEqual({
      idle: ['train', 'step'],
      training: ['pause', 'reset'],
      paused: ['train', 'step', 'reset'],
      done: ['reset', 'runAgain', 'continue'],
      restored: ['train', 'step', 'reset'],
    });
    // A finished session: Train and Pause do nothing, so they are off.
    expect(canDo('done', 'train')).toBe(false);
    expect(canDo('done', 'pause')).toBe(false);
    expect(nextState('done', 'pause')).toBe('done');
  });
});
