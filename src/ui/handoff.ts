/**
 * A tab keeps its claim on its session's writer lock (writer-lock.ts) only while its runs train. Paused, or finished,
 * it lets the session go once every run has stopped and saved its state and the frames queued are
 * stored, so a second tab showing the session read-only may take it over from those states. Told
 * to train again (Train, Step, Continue), it claims the session back first; if another tab took it
 * meanwhile, its workers stop, nothing it still has queued is written, and it shows the session
 * read-only, as a tab that lost the claim on a restored session does (restore.ts).
 */
import type { LabSession } from '../workers/client';
import { claimAgain, letGoWhileStopped, recordingId } from './persist';
import { nextState } from './session-state';
import { addError, useLab } from './store';
import { watchWriter } from './writer-lock';

/** Letting go and claiming back, one after the other: a claim waits for a letting-go in progress. */
let turn: Promise<unknown> = Promise.resolve();
function inTurn<T>(f: () => Promise<T>): Promise<T> {
  const next = turn.then(f);
  turn = next.catch(() => undefined);
  return next;
}

/** The runs of `s` stop (pause, and save); then, if the session is still paused or done, it goes. */
export function letGoOnceStopped(s: LabSession): void {
  void inTurn(async () => {
    await s.stopped();
    const now = useLab.getState().sessionState;
    if (now === 'paused' || now === 'done') await letGoWhileStopped();
  });
}

/**
 * Claims the recorded session back before its runs train. False if another tab took it over:
 * `stop` has ended this tab's workers, and the session is shown read-only, saying so.
 */
export function claimToTrain(stop: () => void): Promise<boolean> {
  return inTurn(async () => {
    const id = recordingId();
    if (await claimAgain()) return true;
    stop();
    if (id) showTakenOver(id);
    return false;
  });
}

/** This tab's runs of session `id` stopped for good: it shows the session read-only until the other tab lets it go. */
function showTakenOver(id: string): void {
  const createdAt = useLab.getState().pastSessions?.find((p) => p.id === id)?.createdAt ?? Date.now();
  useLab.setState((s) => ({
    sessionState: nextState(s.sessionState, 'restore'),
    runs: s.runs.map((r) => ({ ...r, state: 'done', message: 'restored' })),
    restored: { id, createdAt, startsOver: [] },
    readOnly: { id, free: false },
  }));
  addError(
    'Another tab took this session over while this tab was stopped: its runs stopped here, and the session is shown read-only',
  );
  watchWriter(id);
}
