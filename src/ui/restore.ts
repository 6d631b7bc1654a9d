/**
 * Stored sessions back on screen: at page load the latest one, or any one the user opens from
 * Past sessions. Its runs come back into the store (state 'done', no workers, with their live-parameter
 * markers) and their frames into run-data rings, so the charts draw the recorded curves; Train
 * goes on from each run's saved state (the controller: session/controller.ts). Stored imports
 * that were on the charts come back beside them (interop.ts).
 */
import { renameMetricKey, renameRole } from '../core/renamed-roles';
import { structuralKey } from '../core/config';
import type { Experiment } from '../core/config';
import { withStoredLabels } from '../core/run-labels';
import { decodeExperiment, sameStructure } from '../core/url';
import { showImport } from './interop';
import { statesOf } from '../storage/state-store';
import type { StateInfo } from '../storage/state-store';
import { restoreRunData } from './run-data';
import { controller } from './session/page';
import type { StoredFrame } from './session/recorder';
import { recordedSteps, usableStates } from './session/resume-point';
import { addError, chooseConfig, runColor, setExperiment, useLab } from './session/store';
import { linkFiles } from './workflow-open';
import type { RunView, StoredSession } from './session/store';

function show(session: StoredSession, frames: StoredFrame[], states: StateInfo[]): void {
  const decoded = decodeExperiment(session.experiment);
  // Its runs keep the labels they were stored under: their lines and saved states go by them.
  const kept = withStoredLabels(useLab.getState().config, session.runs);
  if (kept) chooseConfig(kept);
  // A session stored before plan's roles were renamed draws under today's names (renamed-roles.ts).
  const task = decoded.config.task;
  const role = (name: string) => renameRole(name, task);
  const runs = session.runs
    .filter((r) => r.keys.length > 0)
    .map((r): RunView => {
      const mine = frames.filter((f) => f.run === r.id);
      restoreRunData(
        r.id,
        r.keys.map((k) => renameMetricKey(k, task)),
        mine.map((f) => f.values),
      );
      const models = r.models.map((m) => ({ ...m, id: role(m.id), agents: m.agents.map(role) }));
      const base = Object.fromEntries(Object.entries(r.base).map(([id, note]) => [role(id), note]));
      return {
        id: r.id,
        label: r.label,
        seed: r.seed,
        runIndex: r.runIndex,
        // Its estimator's colour today, not the one stored (an older build coloured runs by place).
        color: runColor(decoded.config.runs, r.runIndex),
        agents: r.agents.map(role),
        models,
        base,
        state: 'done',
        message: 'restored',
        step: recordedSteps(mine.map((f) => f.step)), // the steps Train may go on from
        tokensPerS: NaN,
        markers: r.markers ?? [],
        rolloutStep: -1,
      };
    });
  if (runs.length === 0) return; // a session stopped before any run loaded: nothing to draw
  const { ahead } = usableStates(states, runs);
  // Finished: every run of it reached the experiment's last step (Train would have nothing to do).
  const finished = decoded.ok && session.runs.every((r) => r.lastStep >= decoded.config.steps);
  controller.dispatch(finished ? 'restoreFinished' : 'restore', {
    runs,
    restored: { id: session.id, createdAt: session.createdAt, startsOver: ahead },
    frameVersion: useLab.getState().frameVersion + 1,
  });
  controller.writer.watch(session.id); // another tab training it: read-only here
}

/**
 * At page load: show the newest stored session of the experiment the page opened with (a shared
 * link to another experiment must not show someone's old curves under its settings; a newer
 * session of another experiment does not hide this one's), if the user has not started runs
 * meanwhile. Other sessions stay one click away in Past sessions.
 */
export async function restoreLatest(): Promise<void> {
  const sessions = await controller.recorder.refreshSessions();
  // Imports that were on the charts come back to them, whatever the experiment.
  for (const i of sessions.filter((x) => x.kind === 'import' && x.shown)) await showImport(i.id);
  // A link sweep's cells are never stored: no session of one experiment stands for them.
  if (useLab.getState().sweep.length > 0) return;
  const { config } = useLab.getState();
  const latest = sessions.find((x) => x.kind !== 'import' && ranThis(x, config)); // newest first
  if (!latest) return;
  const [got, states] = await Promise.all([
    controller.recorder.loadSession(latest.id),
    statesOf(latest.id).catch(() => []),
  ]);
  const s = useLab.getState();
  if (got && s.sessionState === 'idle' && s.runs.length === 0) show(got.session, got.frames, states);
}

/**
 * Whether a stored session ran `config`: its link does, or does once its runs take the labels they
 * were stored under (a session stored before a link's estimator brought its own label).
 */
function ranThis(session: StoredSession, config: Experiment): boolean {
  if (sameStructure(session.experiment, config)) return true;
  const r = decodeExperiment(session.experiment);
  const kept = r.ok ? withStoredLabels(r.config, session.runs) : null;
  return kept !== null && structuralKey(kept) === structuralKey(config);
}

/** Past sessions → Open: stops any live runs, sets the experiment to the session's, shows its curves. */
export async function openSession(id: string): Promise<void> {
  const [got, states] = await Promise.all([
    controller.recorder.loadSession(id),
    statesOf(id).catch(() => []),
  ]);
  if (!got) return;
  if (got.session.kind === 'import') return showImport(id); // read-only runs: beside the session's
  // A workflow session's workflow and dataset must be here first (kept, bundled, or opened again).
  const files = await linkFiles(got.session.experiment);
  if (!('ready' in files)) return addError(workflowMissing(files));
  controller.reset();
  const r = decodeExperiment(got.session.experiment);
  if (r.ok) chooseConfig(r.config);
  setExperiment({ sweep: [] }); // a stored session is one experiment's: the link names it alone
  show(got.session, got.frames, states);
}

/** Why a stored workflow session cannot be opened: the file this browser lacks, or the refusal. */
function workflowMissing(files: Exclude<Awaited<ReturnType<typeof linkFiles>>, { ready: true }>): string {
  if ('refused' in files) return `This session's workflow cannot be read: ${files.refused[0].message}`;
  const { data, workflow } = files.wanted;
  const what = data
    ? `its workflow ${data.workflow} reads ${data.file} (SHA-256 ${data.sha256.slice(0, 12)}…)`
    : `its workflow (SHA-256 ${workflow!.slice(0, 12)}…)`;
  return `This session cannot be opened: ${what}, which this browser does not have. Open it in the Workflow panel, then open the session again.`;
}

/**
 * Past sessions → Delete: the session and its saved states. The one on screen goes from the screen
 * too, restored or live: with its states gone, Train could not go on from them as a restored
 * one's note says, and a live one's later steps would be recorded nowhere while it said "saved".
 */
export async function deleteStored(id: string): Promise<void> {
  // Its writer would put back a session with a hole in it.
  const { writer, recorder } = controller;
  if (await writer.claimedElsewhere(id))
    return addError('Another tab is training this session: stop it there first.');
  if (useLab.getState().restored?.id === id || recorder.recordingId === id) controller.reset();
  await recorder.deleteSession(id);
}

/**
 * Take over: the tab that trained the session on screen let it go (or closed). Its curves come
 * back as that tab last stored them, and training goes on here from each run's saved state.
 */
export async function takeOver(): Promise<void> {
  const id = useLab.getState().readOnly?.id;
  if (!id || !useLab.getState().readOnly?.free) return;
  await openSession(id);
  if (useLab.getState().sessionState === 'restored') controller.play();
}
