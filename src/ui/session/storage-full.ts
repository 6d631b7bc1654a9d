/**
 * What the page's storage cannot hold now, said in the status bar. A write refused for want of
 * room (a QuotaExceededError: the origin's quota, or a full disk) stops nothing: training goes on
 * in memory, the recorder keeps the refused frames queued and tries them again at each flush
 * (recorder.ts), each run's worker tries its state again at its next save, and what was stored
 * before stays. Once a write goes through, the queued frames land and the line goes. The recorder
 * also asks the browser once, when a session is first worth keeping (a run's state is stored), to
 * keep its storage (`navigator.storage.persist()`); Past sessions shows the answer.
 */
import type { RunId, RunStatus } from '../../workers/protocol';
import { setStorage } from './store';
import type { LabState } from './store';
import { stepsCount } from '../../core/step-words';

/** The recorder could not store frames from step `from` on (the first refused). */
export function framesUnsaved(from: number): void {
  setStorage((s) => {
    const frames = Math.min(from, s.unsaved.frames ?? Infinity);
    return frames === s.unsaved.frames ? null : { unsaved: { ...s.unsaved, frames } };
  });
}

/** The recorder's queue is stored again. */
export function framesSaved(): void {
  setStorage((s) => (s.unsaved.frames === undefined ? null : { unsaved: { states: s.unsaved.states } }));
}

/** A run's state could not be saved at `step` for want of room (`null`: it was saved). */
export function stateUnsaved(run: RunId, step: number | null): void {
  setStorage((s) => {
    const { [run]: was, ...rest } = s.unsaved.states;
    if (step === null) return was === undefined ? null : { unsaved: { ...s.unsaved, states: rest } };
    return was !== undefined ? null : { unsaved: { ...s.unsaved, states: { ...rest, [run]: step } } };
  });
}

/** Nothing is queued or refused (a new session starts over: what it writes says the rest). */
export const clearUnsaved = () => setStorage({ unsaved: { states: {} } });

/** The status bar's sentence, or null when everything is being saved. */
export function unsavedText(s: Pick<LabState, 'unsaved' | 'runs'>): string | null {
  const { frames, states } = s.unsaved;
  const runs = s.runs.filter((r) => states[r.id] !== undefined);
  if (frames === undefined && runs.length === 0) return null;
  const what = [
    ...(frames !== undefined ? [`the steps from ${frames} on`] : []),
    ...(runs.length > 0
      ? [
          `the run states of ${runs.map((r) => r.label).join(', ')} (a reload would go back to the state after ${stepsCount(Math.min(...runs.map((r) => r.savedStep ?? 0)))})`,
        ]
      : []),
  ];
  if (s.runs.some((r) => TRAINING.includes(r.state)))
    return `Storage is full: ${what.join(' and ')} are not being saved. Training goes on in this tab and what was saved before stays; saving picks up again once there is room.`;
  // Paused, done or failed: nothing trains, and a finished run's worker saves its state no more.
  return `Storage is full: ${what.join(' and ')} are not saved. No run is training; what was saved before stays, and the rest is held in this tab only until it is closed: download it to keep it.`;
}

/** The run states in which a run is training (or about to): the line's "training goes on" is true then. */
const TRAINING: readonly RunStatus[] = ['queued', 'loading', 'compiling', 'running'];
