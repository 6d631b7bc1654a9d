/**
 * The page's one live LabSession (one worker per run × seed), held here so that starting it
 * (lab-start.ts), the user's actions on it (lab.ts) and the store reactions (lab-reactions.ts) all
 * mean the same one: its workers spawned with the store's settings, commands held until every run
 * is loaded, and its end (reset). Apart from lab.ts because every other session module needs it.
 */
import type { Experiment } from '../core/config';
import { LabSession } from '../workers/client';
import type { SessionOptions } from '../workers/run-start';
import { loadMeasurements } from './backend-cache';
import { threadChoice } from './thread-setting';
import { endSession } from './persist';
import { clearUnsaved } from './unsaved';
import { clearRunData } from './run-data';
import { nextState } from './session-state';
import { useLab } from './store';
import { receive } from './worker-messages';

let session: LabSession | null = null;
/** The live session, if any (for the store reactions: lab-reactions.ts). */
export const liveSession = (): LabSession | null => session;
/** Commands that need a loaded run wait until every run with a worker has sent `ready`. */
let whenReady: (() => void)[] = [];

/** Runs `f` now if every run with a worker is loaded, else once the last one is (workers drop early steps). */
export function onceReady(f: () => void): void {
  if (session?.allReady()) f();
  else whenReady.push(f);
}

/** A run sent `ready`: once every run with a worker has, the commands waiting for that go. */
function onRunReady(): void {
  if (!session?.allReady()) return;
  const queued = whenReady;
  whenReady = [];
  for (const f of queued) f();
}

/**
 * A LabSession at the store's pace (a link sweep's: every cell's runs in its one queue), made the
 * live one; commands queue until all of its runs are ready.
 */
export function spawn(config: Experiment | readonly Experiment[], options: SessionOptions): LabSession {
  whenReady = [];
  const threads = () => threadChoice(config, useLab.getState().threads).threads;
  const s = new LabSession(config, (msg) => receive(msg, onRunReady), {
    ...{ measurements: loadMeasurements, threads },
    ...options,
  });
  const { paceMs } = useLab.getState();
  if (paceMs > 0) s.pace(paceMs);
  session = s;
  return s;
}

/** Terminates the workers (the caller says what the session is now). */
export function dropSession(): void {
  session?.dispose();
  session = null;
  whenReady = [];
}

/** Terminates the workers and forgets every run's history (what is stored in IndexedDB stays). */
export function reset(): void {
  const { pending } = useLab.getState();
  if (session) endSession();
  dropSession();
  clearRunData(useLab.getState().imported.map((r) => r.id)); // imported runs stay on the charts
  clearUnsaved();
  useLab.setState((s) => ({
    sessionState: nextState(s.sessionState, 'reset'),
    ...{ autoPaused: false, runs: [], errors: [], restored: null, pending: null, readOnly: null },
    sweepCells: null,
  }));
  // An action that waited on "keep the runs or start anew" has no runs left to protect: it applies.
  pending?.apply();
}
