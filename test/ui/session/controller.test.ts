/**
 * The session controller built fresh, as a test builds it: no module state, so each test's
 * controller has its own run workers, recorder and writer lock. Node has no Web Worker, so its
 * workers are ones that keep what they are sent and answer as a run worker does when asked
 * (`pause` → `paused` and `stopped`, `hold` → `holding`); `ready` and `done` are said by the test
 * (SessionOptions.newWorker, as test/workers/crashed-worker.test.ts). Node has no IndexedDB
 * either: the recorder records nothing and says so, and training goes on, as in a browser that
 * refuses storage. The page's behaviour around it is the browser tests' (session-states, writer).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveValue } from '../../../src/core/live-params';
import type { FromWorker, RunId, ToWorker } from '../../../src/workers/protocol';
import { SessionController } from '../../../src/ui/session/controller';
import { resetLab, showCell, useLab } from '../../../src/ui/session/store';
import { readResult, writeResult } from '../../../src/report/result-file';
import { runData } from '../../../src/ui/run-data';
import { smallBody, smallExperiment } from '../../report/result-fixture';
import { SRC, sourceFiles } from '../../architecture/sources';

/** A run worker that keeps what it is sent and answers `pause` and `hold` as a run worker does. */
class ScriptedWorker {
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: ((e: { message: string }) => void) | null = null;
  readonly sent: ToWorker[] = [];
  terminated = false;
  runId = '' as RunId;
  step = 0;
  postMessage(msg: ToWorker): void {
    this.sent.push(msg);
    this.runId = msg.runId;
    // Answers come later, as a worker's do: never inside the sender's call.
    const later = (m: FromWorker) => queueMicrotask(() => this.say(m));
    if (msg.type === 'pause') {
      later({ type: 'state', runId: this.runId, state: 'paused', step: this.step });
      later({ type: 'stopped', runId: this.runId, step: this.step });
    }
    if (msg.type === 'hold') later({ type: 'holding', runId: this.runId, step: this.step, done: false });
  }
  terminate(): void {
    this.terminated = true;
  }
  say(msg: FromWorker): void {
    this.onmessage?.({ data: msg });
  }
  ready(): void {
    this.say({
      type: 'ready',
      runId: this.runId,
      keys: ['step'],
      agents: ['verifier'],
      models: [],
      base: {},
      startStep: 0,
      kernels: 'tfjs',
    });
  }
  sentTypes = () => this.sent.map((m) => m.type);
}

function fresh() {
  const workers: ScriptedWorker[] = [];
  const controller = new SessionController({
    workers: {
      newWorker: () => {
        const w = new ScriptedWorker();
        workers.push(w);
        return w as unknown as Worker;
      },
    },
  });
  return { controller, workers };
}

/** Lets queued microtasks and the writer lock's fallback wait (150 ms, no Web Locks in Node) run. */
const settle = (ms = 0) => new Promise((ok) => setTimeout(ok, ms));
const state = () => useLab.getState().sessionState;

let made: SessionController[] = [];
beforeEach(() => resetLab());
afterEach(() => {
  for (const c of made) {
    c.reset();
    c.writer.close();
  }
  made = [];
});

describe('a session controller built fresh', () => {
  it('holds no session until Train, and shares nothing with another controller', async () => {
    const a = fresh();
    const b = fresh();
    made = [a.controller, b.controller];
    expect([a.controller.live, b.controller.live]).toEqual([null, null]);
    a.controller.play();
    expect(a.controller.live).not.toBeNull();
    expect(b.controller.live).toBeNull();
    await settle();
    // One worker per run × seed of the default experiment (two runs, one seed), each told to start
    // (Train's `play` reaches a worker made a moment before its `start`, as it does in the page).
    expect(a.workers.map((w) => w.sentTypes())).toEqual([
      ['play', 'start'],
      ['play', 'start'],
    ]);
    expect(b.workers).toHaveLength(0);
  });

  it('Train: the workers start, each plays once ready; Pause stops them; Step is one step each', async () => {
    const { controller, workers } = fresh();
    made = [controller];
    controller.play();
    expect(state()).toBe('training');
    expect(useLab.getState().runs.map((r) => [r.label, r.state])).toEqual([
      ['GRPO', 'loading'],
      ['Dr. MAS', 'loading'],
    ]);
    await settle();
    for (const w of workers) w.ready();
    expect(workers.map((w) => w.sentTypes())).toEqual([
      ['play', 'start', 'play'],
      ['play', 'start', 'play'],
    ]);

    controller.pause();
    expect(state()).toBe('paused');
    await settle();
    expect(useLab.getState().runs.map((r) => r.state)).toEqual(['paused', 'paused']);

    controller.step();
    // Pause, then the wait for every run to stop (LabSession.stopped pauses too); a stopped tab claims
    // its session back before its runs train again, then lets it go after the step. Each pause asks
    // every run its next step first (`hold`) and stops them all at the latest (`pause` at it).
    await settle(200);
    expect(state()).toBe('paused');
    for (const w of workers)
      expect(w.sentTypes().slice(3)).toEqual(['hold', 'pause', 'hold', 'pause', 'step', 'hold', 'pause']);
  });

  it('every run done is the machine hearing finish; Reset ends the workers and the runs', async () => {
    const { controller, workers } = fresh();
    made = [controller];
    controller.play();
    await settle();
    for (const w of workers) w.ready();
    for (const w of workers) w.say({ type: 'state', runId: w.runId, state: 'done', step: 5 });
    expect(state()).toBe('done');
    expect(controller.live).not.toBeNull();

    controller.reset();
    expect(state()).toBe('idle');
    expect(controller.live).toBeNull();
    expect(useLab.getState().runs).toEqual([]);
    expect(workers.every((w) => w.terminated)).toBe(true);
  });

  it('a live change before any run is the experiment’s value from step 0; with runs, every repeat holds for it', async () => {
    const { controller, workers } = fresh();
    made = [controller];
    controller.setLiveNext('lr', 0.005);
    expect(liveValue(useLab.getState().config, 'lr')).toBe(0.005);
    expect(controller.live).toBeNull();

    controller.play();
    await settle();
    for (const w of workers) w.ready();
    controller.setLiveNext('lr', 0.002);
    await settle(200);
    // Each repeat says its next step and holds there; the change is set at the latest of them.
    for (const w of workers) {
      expect(w.sentTypes()).toEqual(['play', 'start', 'play', 'hold', 'set']);
      expect(w.sent[4]).toMatchObject({ type: 'set', param: 'lr', value: 0.002, step: 0 });
    }
    // The experiment's value stays until the runs take the change (their `param` schedules it).
    expect(liveValue(useLab.getState().config, 'lr')).toBe(0.005);
  });
});

describe('Train it here beside an opened result', () => {
  it('trains the result’s experiment as a session, keeps the opened runs beside it read-only; Reset clears both', async () => {
    const { controller, workers } = fresh();
    made = [controller];
    const result = readResult(writeResult(smallBody()));
    controller.openResult(result, 'small.lab.json.gz');
    const opened = useLab.getState().runs;
    expect(opened.map((r) => r.label)).toEqual(['GRPO #0', 'GRPO #1', 'Dr. MAS #0', 'Dr. MAS #1']);
    expect(useLab.getState().opened?.cannotTrain).toBeNull();

    controller.trainHere();
    await settle();
    const s = useLab.getState();
    // A session of the result's experiment (2 runs × 2 seeds); the file is no
    // longer the session on screen, its runs stand beside it, marked opened, with their frames.
    expect(state()).toBe('training');
    expect(s.opened).toBeNull();
    expect(s.runs.map((r) => [r.label, r.seed])).toEqual([
      ['GRPO #0', 0],
      ['GRPO #1', 1],
      ['Dr. MAS #0', 0],
      ['Dr. MAS #1', 1],
    ]);
    expect(workers.length).toBeGreaterThan(0); // as many at once as the machine's slots; the rest queued
    expect(s.compared?.result.name).toBe('small.lab.json.gz');
    expect(s.compared?.runs.map((r) => [r.id, r.opened])).toEqual(opened.map((r) => [r.id, true]));
    expect(s.compared?.runs.map((r) => runData(r.id)?.codec.keys.length)).toEqual(
      result.body.runs.map((r) => r.keys.length),
    );
    // Each opened run beside its twin in the twin's colour.
    expect(s.compared?.runs.map((r) => r.color)).toEqual(s.runs.map((r) => r.color));
    expect(s.compared?.summaries.map((x) => [x.run, x.seed])).toEqual(s.runs.map((r) => [r.label, r.seed]));

    controller.reset();
    expect(useLab.getState().compared).toBeNull();
    expect(opened.map((r) => runData(r.id))).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('a result shared before its runs finished trains to the steps they reached, its experiment saying so', async () => {
    const { controller, workers } = fresh();
    made = [controller];
    // The 12-step experiment shared after 5 of its steps (Share result writes the frames so far).
    const body = smallBody();
    const runs = body.runs.map((r) => ({ ...r, frames: r.frames.slice(0, 5), rollouts: [] }));
    controller.openResult(readResult(writeResult({ ...body, runs })), 'partial.lab.json.gz');
    expect(useLab.getState().config.steps).toBe(12);
    expect(useLab.getState().runs.map((r) => r.step)).toEqual([5, 5, 5, 5]);

    controller.trainHere();
    await settle();
    const s = useLab.getState();
    expect(state()).toBe('training');
    // 5 steps, as far as its runs went; the experiment's own 12 kept to say why.
    expect(s.config.steps).toBe(5);
    expect(s.compared?.configuredSteps).toBe(12);
    expect(s.compared?.summaries.map((x) => x.steps)).toEqual([5, 5, 5, 5]);
    // Each run worker is told the 5 steps.
    expect(workers.length).toBeGreaterThan(0);
    for (const w of workers)
      expect(w.sent.find((m) => m.type === 'start')).toMatchObject({ config: { steps: 5 } });
  });

  it('an opened sweep trains the cell on screen, beside that cell’s opened runs alone', async () => {
    const { controller } = fresh();
    made = [controller];
    // Two cells of one dial: the small experiment at lr 0.001 and at 0.002, each run × seed once.
    const body = smallBody();
    const lrs = [0.001, 0.002];
    const experiments = lrs.map((lr) => ({
      ...body.experiments[0],
      experiment: { ...smallExperiment(), optim: { ...smallExperiment().optim, lr } },
      params: { 'optim.lr': lr },
    }));
    const runs = lrs.flatMap((_, cell) => body.runs.map((r) => ({ ...r, experiment: cell })));
    const sweep = { grid: [{ key: 'optim.lr', values: lrs.map(String) }], map: [] };
    const result = readResult(writeResult({ ...body, experiments, runs, sweep }));
    controller.openResult(result, 'sweep.lab.json.gz');
    expect(useLab.getState().opened?.cannotTrain).toBeNull();
    const onScreen = useLab.getState().runs;
    expect(onScreen.map((r) => r.cell)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    showCell(1); // as the board's cell pick does

    controller.trainHere();
    await settle();
    const s = useLab.getState();
    expect(state()).toBe('training');
    expect(s.sweepCells).toBeNull(); // one experiment trains here: the cell's
    expect(s.config.optim.lr).toBe(0.002);
    expect(s.runs.map((r) => [r.label, r.seed, r.cell])).toEqual([
      ['GRPO #0', 0, undefined],
      ['GRPO #1', 1, undefined],
      ['Dr. MAS #0', 0, undefined],
      ['Dr. MAS #1', 1, undefined],
    ]);
    // Beside them, the opened runs of cell 1 only, without their cell, their frames kept.
    expect(s.compared?.runs.map((r) => [r.id, r.cell, r.opened])).toEqual(
      onScreen.slice(4).map((r) => [r.id, undefined, true]),
    );
    expect(s.compared?.runs.every((r) => runData(r.id) !== undefined)).toBe(true);
    expect(onScreen.slice(0, 4).map((r) => runData(r.id))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(s.compared?.summaries.map((x) => [x.run, x.seed])).toEqual(s.runs.map((r) => [r.label, r.seed]));
  });

  it('is off for a result of runs imported from other tools, saying why', () => {
    const { controller } = fresh();
    made = [controller];
    const body = smallBody();
    const result = readResult(
      writeResult({
        ...body,
        experiments: [{ ...body.experiments[0], experiment: null }],
        runs: body.runs.map((r) => ({ ...r, runIndex: -1 })),
      }),
    );
    controller.openResult(result, 'imported.lab.json.gz');
    expect(useLab.getState().opened?.cannotTrain).toBe(
      'its runs were imported from other tools: no experiment to train',
    );
    controller.trainHere();
    expect(state()).toBe('done');
    expect(useLab.getState().compared).toBeNull();
  });
});

describe('the session controller’s state lives in fields', () => {
  const session = join(SRC, 'ui/session');
  const files = sourceFiles(session);

  it('no module of src/ui/session keeps state in a module variable', () => {
    const moduleState = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => /^(let |var |const \w+ = new (Map|Set|WeakMap)\b)/.test(l))
        .map((l) => `${relative(SRC, f)}: ${l}`),
    );
    expect(files.length).toBeGreaterThan(5);
    expect(moduleState).toEqual([]);
  });

  it('only the controller’s dispatch moves the session state machine', () => {
    const movers = sourceFiles(SRC)
      .filter((f) => /\bmoveSession\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(movers.sort()).toEqual(['ui/session/controller.ts', 'ui/session/store.ts']);
  });
});
