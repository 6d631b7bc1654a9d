/**
 * Result files in the page (docs/sharing.md#opening-one-in-the-page): a result opened read-only
 * becomes the session on screen, its runs drawn from the file's frames (no worker, nothing
 * recorded), and the session on screen becomes a result to share. The controller puts an opened
 * result on screen (controller.ts: openResult); this module turns a file's runs into the page's
 * and the page's into a file's.
 */
import type { Experiment } from '../../core/config';
import { estimatorNamed, runColors } from '../../core/estimators';
import { baseLabel } from '../../report/findings';
import { writeResult } from '../../report/result-file';
import { labBuild } from './build-id';
import type { Result, ResultMachine, ResultRun } from '../../report/result-format';
import { resultExperiment } from '../../report/result-make';
import type { Cell, SweepFile } from '../../rl/sweep';
import { runId } from '../../workers/protocol';
import { framesOf, restoreRunData, runData, setRollouts } from '../run-data';
import { renameMetricKey, renameRole } from '../../core/renamed-roles';
import { decodeExperiment } from '../../core/url';
import { NOT_RECORDED, sessionMadeFrom } from '../opened-words';
import type { StoredFrame } from './recorder';
import { runColor } from './store';
import type { LabState, OpenedResult, RunView, StoredSession } from './store';

/** A result's runs as the page draws them, their frames and latest rollout sample in run-data. */
export interface ResultOnScreen {
  /** The experiment the board shows (a sweep's first cell); null for runs imported from other tools. */
  config: Experiment | null;
  runs: RunView[];
  /** A sweep's cells, so the Map and the board's cell pick read them as a link sweep's. */
  sweepCells: LabState['sweepCells'];
  opened: OpenedResult;
}

/** Runs of one experiment's index share a colour; imported runs by their group (as Other tools colours them). */
function runIndexOf(r: ResultRun, groups: Map<string, number>): number {
  if (r.runIndex >= 0) return r.runIndex;
  const group = baseLabel(r.label);
  if (!groups.has(group)) groups.set(group, groups.size);
  return groups.get(group)!;
}

/** A result on screen: each run's frames and its latest rollout sample restored in run-data. */
export function resultOnScreen(
  { body, sha256 }: Result,
  name: string,
  url: string | null = null,
): ResultOnScreen {
  const groups = new Map<string, number>();
  // Imported runs (no experiment) are coloured by the estimator their group names, as Other tools colours them.
  const names = [...new Set(body.runs.filter((r) => r.runIndex < 0).map((r) => baseLabel(r.label)))];
  const groupColors = runColors(names.map(estimatorNamed));
  const prefix = `r${sha256.slice(0, 8)}`;
  const runs = body.runs.map((r, i): RunView => {
    const id = runId(`${prefix}-${i}`);
    restoreRunData(id, r.keys, r.frames);
    const sample = r.rollouts.at(-1);
    if (sample) setRollouts(id, sample.step, sample.trajectories);
    const runIndex = runIndexOf(r, groups);
    const exp = body.experiments[r.experiment].experiment;
    const color = exp && r.runIndex >= 0 ? runColor(exp.runs, r.runIndex) : groupColors[runIndex];
    const last = r.frames.at(-1);
    return {
      ...{ id, label: r.label, seed: r.seed, runIndex, color, agents: r.agents },
      ...(body.sweep ? { cell: r.experiment } : {}),
      ...{ models: [], base: {}, markers: r.markers, state: 'done', message: 'opened' },
      // Frames carry 0-based step indices: steps done is the last one's plus one.
      step: last ? last[r.keys.indexOf('step')] + 1 : 0,
      tokensPerS: NaN,
      rolloutStep: sample?.step ?? -1,
    };
  });
  const experiments = body.experiments.map((e) => e.experiment);
  const config = experiments[0];
  let sweepCells: LabState['sweepCells'] = null;
  if (body.sweep && config && experiments.every((e) => e !== null)) {
    const cells = body.experiments.map((e, index): Cell => ({
      index,
      params: e.params ?? {},
      dir: `cell-${index}`,
      config: e.experiment!,
    }));
    const file: SweepFile = {
      ...{ version: 1, config, grid: body.sweep.grid, shard: null },
      cells: cells.map(({ params, dir }) => ({ params, dir })),
    };
    sweepCells = { file, cells, shown: 0 };
  }
  const opened: OpenedResult = {
    ...{ name, sha256, made: body.made, machine: body.machines[0] ?? null },
    cannotTrain: trainHereBlocker({ body, sha256 }),
    url,
  };
  return { config, runs, sweepCells, opened };
}

/**
 * Why an opened result cannot be trained here, or null: Train it here trains one experiment the
 * lab can run (a sweep's: the cell on screen), so runs imported from other tools cannot.
 */
export function trainHereBlocker({ body }: Result): string | null {
  if (body.experiments.some((e) => !e.experiment))
    return 'its runs were imported from other tools: no experiment to train';
  return null;
}

/** What a session's runs trained on, as recorded: each run's in turn, once each ("wasm"; "wasm and webgpu"). */
type Trained = { backend?: string; kernels?: string };

const recorded = (runs: readonly Trained[], key: keyof Trained): string =>
  [...new Set(runs.map((r) => r[key] ?? NOT_RECORDED))].join(' and ') || NOT_RECORDED;

/**
 * Where the page ran, in a result's words (the build's commit; the browser as the runtime), and
 * the backend and kernels `runs` trained on as the session recorded them: "not recorded" where it
 * did not (a session stored before they were kept), never the backend the page uses now. One
 * machine per build that recorded into the session (`builds`, StoredSession's; null: not recorded,
 * a commit "unknown"), never the build that shares it unless it trained it.
 */
function pageMachines(
  createdAt: number,
  runs: readonly Trained[],
  builds: readonly (string | null)[],
): ResultMachine[] {
  return builds.map((b) => pageMachine(createdAt, runs, b ?? 'unversioned'));
}

function pageMachine(createdAt: number, runs: readonly Trained[], build: string): ResultMachine {
  return {
    date: new Date(createdAt).toISOString(),
    commit: build === 'unversioned' ? null : build.replace('+dirty', ''),
    dirty: build === 'unversioned' ? null : build.endsWith('+dirty'),
    cpu: `${navigator.hardwareConcurrency} logical cores`,
    cores: navigator.hardwareConcurrency,
    platform: navigator.platform,
    runtime: navigator.userAgent,
    backend: recorded(runs, 'backend'),
    kernels: recorded(runs, 'kernels'),
  };
}

/**
 * What the runs on screen trained on: the stored session's record of each (it keeps a run's
 * backends across a fallback or a reload), else what its worker said in this page.
 */
function trainedOnScreen(shown: readonly RunView[], stored: StoredSession | undefined): Trained[] {
  return shown.map((r) => {
    const kept = stored?.runs.find((x) => x.id === r.id);
    return {
      backend: kept?.backend ?? r.backend?.backend ?? undefined,
      kernels: kept?.kernels ?? r.kernels,
    };
  });
}

/**
 * The session on screen as a result file's bytes: every run's frames (run-data holds every step:
 * its rings are as long as a run may be), its latest rollouts, its live changes, Findings and What
 * differs as the page computes them, and this browser as the machine. A link sweep's cells are
 * not shared yet: the board's experiment alone. An opened result is shared as it was opened.
 * `recording`: the stored session the live runs are recorded in (else the restored one is named).
 */
export function sessionResult(
  s: LabState,
  opened: Result | null,
  recording: { id: string; createdAt: number } | null = null,
): Uint8Array {
  if (opened) return writeResult(opened.body);
  const config = s.sweepCells?.cells[s.sweepCells.shown].config ?? s.config;
  const shown = s.sweepCells ? s.runs.filter((r) => r.cell === s.sweepCells?.shown) : s.runs;
  const runs = shown.flatMap((r): ResultRun[] => {
    const d = runData(r.id);
    if (!d) return [];
    const frames = framesOf(r.id);
    const rollouts = d.rollouts ? [{ step: d.rollouts.step, trajectories: d.rollouts.trajectories }] : [];
    const card = { label: r.label, seed: r.seed, experiment: 0, runIndex: r.runIndex, agents: r.agents };
    return [{ ...card, markers: r.markers, keys: [...d.codec.keys], frames, rollouts }];
  });
  const session = recording ?? s.restored;
  const createdAt = session?.createdAt ?? Date.now();
  const stored = s.pastSessions?.find((p) => p.id === session?.id);
  return writeResult({
    made: {
      by: 'page',
      at: new Date().toISOString(),
      from: session ? sessionMadeFrom(session.id, session.createdAt) : 'this session',
    },
    experiments: [resultExperiment(config, null, runs)],
    sweep: null,
    runs,
    // The builds the stored session records (a session never stored: this one).
    machines: pageMachines(createdAt, trainedOnScreen(shown, stored), stored?.builds ?? [labBuild()]),
  });
}

/**
 * A stored session (Past sessions → Share) as a result file's bytes, without opening it: its runs'
 * frames as IndexedDB holds them (a step recorded twice, by a run continued after a reload, counts
 * once: the later), under today's names for renamed roles, as opening it would draw them. A stored
 * session keeps no rollouts, so the file has none; the machine is this browser, dated when the
 * session began, with the backend and kernels its runs recorded (not the session on screen's).
 */
export function storedSessionResult(session: StoredSession, frames: StoredFrame[]): Uint8Array {
  const decoded = decodeExperiment(session.experiment);
  if (!decoded.ok) throw new Error('its experiment link no longer reads as an experiment');
  const { task } = decoded.config;
  const runs = session.runs
    .filter((r) => r.keys.length > 0)
    .map((r): ResultRun => {
      const byStep = new Map<number, Float64Array>();
      for (const f of frames) if (f.run === r.id) byStep.set(f.step, f.values);
      const card = { label: r.label, seed: r.seed, experiment: 0, runIndex: r.runIndex };
      return {
        ...{ ...card, agents: r.agents.map((a) => renameRole(a, task)), markers: r.markers ?? [] },
        keys: r.keys.map((k) => renameMetricKey(k, task)),
        frames: [...byStep].sort(([a], [b]) => a - b).map(([, values]) => values),
        rollouts: [],
      };
    });
  if (runs.length === 0) throw new Error('it recorded no step');
  return writeResult({
    made: {
      by: 'page',
      at: new Date().toISOString(),
      from: sessionMadeFrom(session.id, session.createdAt),
    },
    experiments: [resultExperiment(decoded.config, null, runs)],
    sweep: null,
    runs,
    machines: pageMachines(
      session.createdAt,
      session.runs.filter((r) => r.keys.length > 0),
      session.builds ?? [null],
    ),
  });
}
