/**
 * The live session's reactions to the page around it: a structural config change resets it, a
 * finished one lets its session go (handoff.ts), and a hidden tab pauses it until it is shown.
 */
import { structuralKey } from '../core/config';
import { letGoOnceStopped } from './handoff';
import { pause, play } from './lab';
import { liveSession, reset } from './live-session';
import { useLab } from './store';
import type { LabState } from './store';

/** A store reaction: a structural config change resets the session (each way to one asks first: ask). */
export function resetOnStructuralChange(s: LabState, prev: LabState): void {
  const structural = s.config !== prev.config && structuralKey(s.config) !== structuralKey(prev.config);
  if (liveSession() && structural) reset();
}

/** A store reaction: once every run is done, the session's lock goes (handoff.ts), as on a pause. */
export function letGoWhenDone(s: LabState, prev: LabState): void {
  const live = liveSession();
  if (live && s.sessionState === 'done' && prev.sessionState !== 'done') letGoOnceStopped(live);
}

/** Pauses the runs while the tab is hidden, and goes on when it is shown; returns a function that stops it. */
export function startLabSync(): () => void {
  const onVisibility = () => {
    const s = useLab.getState();
    if (document.visibilityState === 'hidden' && s.sessionState === 'training') {
      pause();
      useLab.setState({ autoPaused: true });
    } else if (document.visibilityState === 'visible' && s.autoPaused && s.sessionState === 'paused') {
      play();
    }
  };
  document.addEventListener('visibilitychange', onVisibility);
  return () => document.removeEventListener('visibilitychange', onVisibility);
}
