/**
 * What the controller (controller.ts) needs to start a session's runs, as plain functions of what
 * it hands them: each new run's first view, a link sweep's cells planned over the experiment, and
 * where the runs keep their states. Apart from the controller because starting is most of the work
 * and none of the choosing.
 */
import { scheduleEntries } from '../../core/live-schedule';
import { planLinkSweep, sweepFile } from '../../rl/sweep';
import { parseSaveEvery } from '../../storage/storage-fault';
import { queuedText } from '../../workers/run-start';
import type { RunInfo, SessionOptions } from '../../workers/run-start';
import type { RunId } from '../../workers/protocol';
import { fieldReason } from '../field-labels';
import type { Recorder } from './recorder';
import { runColor, useLab } from './store';
import type { LabState, RunView } from './store';

/**
 * Steps between the run states each worker keeps in IndexedDB (also saved on pause and when done):
 * every step, so a page closed at any moment loses at most the step in progress. A state is read
 * between two steps and written while the next one trains (train/driver.ts); what that costs the
 * default experiment is measured in docs/page.md#a-page-closed-mid-step.
 */
const SAVE_EVERY = 1;
/** The benchmarks' `?save-every=N` (storage-fault.ts), else SAVE_EVERY. */
const saveEvery = () =>
  (typeof location === 'undefined' ? null : parseSaveEvery(location.search)) ?? SAVE_EVERY;

/** A new run's first status: starting its worker, or its place in the queue (`queue`: the runs waiting). */
export function waitingState(
  r: RunInfo,
  queue: readonly RunId[],
  starting = 'starting worker…',
): Pick<RunView, 'state' | 'message'> {
  return r.queued
    ? { state: 'queued', message: queuedText(queue.indexOf(r.id), queue.length) }
    : { state: 'loading', message: starting };
}

/** What the status bar and charts know of a run before its worker has said anything. */
export function newRunView(r: RunInfo, queue: readonly RunId[]): RunView {
  const { config, sweepCells } = useLab.getState();
  const experiment = sweepCells?.cells[r.cell].config ?? config;
  return {
    id: r.id,
    label: r.label,
    seed: r.seed,
    runIndex: r.runIndex,
    color: runColor(experiment.runs, r.runIndex),
    ...(sweepCells ? { cell: r.cell } : {}),
    ...waitingState(r, queue),
    step: 0,
    agents: [],
    models: [],
    base: {},
    tokensPerS: NaN,
    rolloutStep: -1,
    // A link's scheduled changes are replayed by the worker; their markers are known now.
    markers: scheduleEntries(experiment.runs[r.runIndex]?.live ?? {}),
  };
}

/**
 * The link sweep's cells planned over the experiment as it stands (planLinkSweep: the checks the
 * link was opened with), with the sweep.json `lab sweep` would write for them; null without a sweep.
 */
export function planSweep(): LabState['sweepCells'] {
  const { config, sweep } = useLab.getState();
  if (sweep.length === 0) return null;
  const planned = planLinkSweep(config, sweep);
  if (!planned.ok) throw new Error(planned.errors.map((e) => fieldReason(e, config)).join('; '));
  return { file: sweepFile(config, sweep, null, planned.cells), cells: planned.cells, shown: 0 };
}

/** Where the runs of session `id` keep their states (`resume`: going on from those `saved`), recorded by `recorder`. */
export const keeping = (
  recorder: Recorder,
  id: string,
  resume: boolean,
  saved?: readonly string[],
): NonNullable<SessionOptions['persist']> => ({
  session: id,
  every: saveEvery(),
  resume,
  saved,
  fault: recorder.fault,
  framesStored: (run) => recorder.framesStored(run),
});
