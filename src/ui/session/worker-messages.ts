/**
 * The page's one reducer of worker messages (the controller's run workers give it every message of
 * their runs): each is switched on by type, into the store (slow state), run-data.ts (frames,
 * rollouts) and the recorder (IndexedDB). When every run is done the controller dispatches
 * `finish`.
 */
import type { LiveParam } from '../../core/live-params';
import { withScheduled } from '../../core/live-schedule';
import type { FromWorker, RunId } from '../../workers/protocol';
import { keepMeasurement } from '../backend-cache';
import { downloadBlob, fileName } from '../export';
import {
  flushRunData,
  initRunData,
  pushFrame,
  pushSaved,
  pushStep,
  runData,
  setRollouts,
  truncateRunData,
} from '../run-data';
import type { Recorder } from './recorder';
import type { SessionEvent } from './session-state';
import { stateUnsaved } from './storage-full';
import { addError, patchRun, setConfig, useLab } from './store';

/** What the reducer needs of the session controller (controller.ts): its recorder, dispatch and ready queue. */
interface Controller {
  readonly recorder: Recorder;
  dispatch(event: SessionEvent): void;
  /** A run sent `ready`: the commands waiting for every run to load may go. */
  runReady(): void;
}

/** Every run reached its last step (or failed): the session is done, and offers Run again / Continue. */
function finishIfAllDone(c: Controller): void {
  const { runs } = useLab.getState();
  if (runs.length > 0 && runs.every((r) => r.state === 'done' || r.state === 'failed')) c.dispatch('finish');
}

/** A run's legend label, for messages (its worker id if the run is gone). */
const labelOf = (id: RunId) => useLab.getState().runs.find((r) => r.id === id)?.label ?? id;

/**
 * The page's one reducer of worker messages: every message of every run of `c`'s workers arrives
 * here (LabSession adds its own: a crashed worker, a refused backend, a queued run's status) and is
 * switched on by type, into the store (slow state), run-data.ts (frames, rollouts) and the recorder.
 */
export function receive(c: Controller, msg: FromWorker): void {
  const id = msg.runId;
  const { recorder } = c;
  switch (msg.type) {
    case 'backend':
      keepMeasurement(msg.report.measurement);
      patchRun(id, { backend: msg.report });
      if (!msg.report.backend) fail(id, `no usable backend for ${msg.report.requested}`);
      return;
    case 'fallback':
      // Not a failure: the run goes on. Said in the alert area so the switch is never silent.
      patchRun(id, {
        backend: msg.report,
        kernels: msg.kernels,
        message: `on ${msg.report.backend} since step ${msg.step}`,
      });
      recorder.recordMachine(id, msg.step, msg.report.backend ?? undefined, msg.kernels);
      addError(`${labelOf(id)}: ${msg.message}`);
      return;
    case 'ready': {
      // A resumed run keeps its restored curve up to the step it goes on from; the steps after its
      // last save are recomputed, so their recorded frames go (in the page and in IndexedDB).
      const restored = runData(id);
      const kept = restored && restored.codec.keys.join() === msg.keys.join();
      if (kept) truncateRunData(id, msg.startStep);
      else initRunData(id, msg.keys);
      void recorder.dropFrames(id, msg.startStep);
      // The frames its state carried that the page had not stored (carried-frames.ts) fill the
      // steps between the restored curve and the state: drawn and recorded like any frame.
      const have = kept
        ? Math.min(useLab.getState().runs.find((r) => r.id === id)?.step ?? 0, msg.startStep)
        : 0;
      for (const f of msg.carried ?? [])
        if (f.step >= have) {
          pushFrame(id, f.step, f.values);
          recorder.recordFrame(id, f.step, f.values);
        }
      patchRun(id, { step: msg.startStep, kernels: msg.kernels });
      // Where it trains from here on, kept in the stored session (a result shares it after a reload).
      recorder.recordMachine(
        id,
        msg.startStep,
        useLab.getState().runs.find((r) => r.id === id)?.backend?.backend ?? undefined,
        msg.kernels,
      );
      recorder.recordReady(id, { keys: msg.keys, agents: msg.agents, models: msg.models, base: msg.base });
      patchRun(id, { agents: msg.agents, models: msg.models, base: msg.base });
      c.runReady();
      return;
    }
    case 'frame':
      pushFrame(id, msg.step, msg.values);
      recorder.recordFrame(id, msg.step, msg.values);
      return;
    case 'rollouts':
      return setRollouts(id, msg.step, msg.trajectories);
    case 'state': {
      // A run says its state after every step: only a change of state or message is news now;
      // the step goes with the next tick's commit (run-data.ts, TICK_MS).
      const run = useLab.getState().runs.find((r) => r.id === id);
      if (run && run.state === msg.state && run.message === msg.message) return pushStep(id, msg.step);
      flushRunData(); // a new state commits with what came before it: a run said done shows its last step and save
      patchRun(id, (r) => ({ state: msg.state, message: msg.message, step: Math.max(r.step, msg.step) }));
      if (msg.state === 'done' || msg.state === 'failed') finishIfAllDone(c);
      return;
    }
    case 'holding':
    case 'stopped':
    case 'saving':
      // LabSession's own: it agrees the step of a live change, says when runs stopped, and tells
      // a state how far its run's frames are stored (client.ts)
      return;
    case 'param':
      patchRun(id, (r) => ({
        markers: [...r.markers, { step: msg.step, param: msg.param, value: msg.value }],
      }));
      return recordChange(id, msg.step, msg.param, msg.value);
    case 'checkpoint': {
      // One file per model of the run.
      const base = fileName(`${labelOf(id)}-step-${msg.step}`);
      for (const [model, bytes] of Object.entries(msg.files)) {
        downloadBlob(`${base}-${model}.ckpt`, new Blob([bytes], { type: 'application/octet-stream' }));
      }
      return;
    }
    case 'run-state':
      return downloadBlob(msg.name, new Blob([msg.bytes], { type: 'application/octet-stream' }));
    case 'saved':
      // No room: the status bar says what is not being saved (storage-full.ts), and the run goes on.
      if (msg.full) {
        flushRunData(); // its message names every run's saved step: the store's must be current
        return stateUnsaved(id, msg.step);
      }
      // Not recording (recording is off, said once, or the session is another tab's now): no state
      // is written, and nothing more to say. Any other failure (the browser closed the states'
      // database, say) turns recording off as one of the page's own would: a run saves after every
      // step, and an alert for each would bury the rest.
      if (msg.error && !recorder.recording) return;
      if (msg.error) return recorder.db.stopRecording(`a run state could not be saved: ${msg.error}`);
      stateUnsaved(id, null);
      recorder.askToKeep(); // a session worth keeping: ask the browser once to keep the site's storage
      // The state carries the frames the page had not stored (carried-frames.ts): a reload resumes here.
      return pushSaved(id, msg.step); // with the next tick's commit
    case 'error':
      return fail(id, msg.message);
    default: {
      const never: never = msg;
      addError(`unknown worker message ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A run took a live change at `step`: the experiment's schedule records it, so the link replays
 * it there (docs/links.md#live-change-schedule). The repeats of a run over seeds share one
 * schedule: LabSession gives them all one step, so each records the same entry.
 */
function recordChange(id: RunId, step: number, param: LiveParam, value: number): void {
  const { runs, config } = useLab.getState();
  const run = runs.find((r) => r.id === id);
  if (run) setConfig(withScheduled(config, run.runIndex, step, param, value));
}

function fail(id: RunId, message: string): void {
  patchRun(id, { error: message });
  const label = labelOf(id);
  addError(`${label}: ${message}`);
}
