/**
 * Dedicated worker hosting one run: picks the compute backend (with the sanity check), loads the
 * shipped base models, and drives a RunTrainer on command — play, pause, single step, live
 * hyper-parameters, snapshots. Each step goes out as one transferred metric frame. Environments
 * run in a pool of nested env workers with a time limit. tfjs lives only in workers.
 *
 * On a GPU backend the run's state (run-state.ts) is read back after every step, so that when the
 * device is lost the run goes on from exactly there on wasm: a resumed run repeats what the lost
 * one would have computed, so nothing recorded is lost or repeated.
 */
import * as tf from '@tensorflow/tfjs';
import { FrameCodec } from '../core/frame';
import { saveCheckpoint, encodeCheckpoint } from '../model/checkpoint';
import { fusedKernelsAvailable, KERNEL_FAMILIES } from '../model/kernels/wasm';
import { checkRunIdentity, decodeRunState, encodeRunState } from '../train/run-state';
import type { RunState } from '../train/run-state';
import { RunTrainer, type TrainStepResult } from '../train/trainer';
import { selectBackend } from './backend';
import { inspectBatch } from './inspect';
import { loadBaseModels } from './base-models';
import { WorkerEnvRunner, type WorkerLike } from './env-pool';
import { browserPlatform } from './platform-browser';
import { getState, putState, stateKey } from './state-store';
import type { FromWorker, RunId, RunStatus, ToWorker } from './protocol';

const post = (msg: FromWorker, transfer: Transferable[] = []) => postMessage(msg, transfer);

let id = '' as RunId;
let trainer: RunTrainer | null = null;
let env: WorkerEnvRunner | null = null;
let codec: FrameCodec | null = null;
/** On GPU backends: the run's state after its latest step, to fall back to if the device is lost. */
let guard: RunState | null = null;
/** Bumped when the device is lost: a step still in flight on the old device is then discarded. */
let generation = 0;
/** Resolves once a lost device has been noticed (never on wasm or cpu). */
let deviceLost: Promise<void> = new Promise(() => {});
let steps = 0;
let playing = false;
/** The step being computed, if any: one at a time; pause waits for it before saving. */
let inFlight: Promise<void> | null = null;
/** Where this run's state goes in IndexedDB, and the step it was last saved at. */
let persist: { session: string; key: string; every: number } | null = null;
let savedStep = -1;
/** Wait between steps while playing (the page's speed control). */
let delayMs = 0;
/**
 * Rollouts go to the page at most once per ROLLOUTS_MS while the run plays: the inspector is
 * read, not watched, and each message is tens of kilobytes to clone on the page's main thread.
 * A step taken alone, the last step and a pause send the latest.
 */
const ROLLOUTS_MS = 1000;
let rolloutsSentAt = -Infinity;
let unsentRollouts: Extract<FromWorker, { type: 'rollouts' }> | null = null;
function sendRollouts(msg: Extract<FromWorker, { type: 'rollouts' }> | null, now: boolean): void {
  unsentRollouts = msg;
  if (!msg || !(now || performance.now() - rolloutsSentAt >= ROLLOUTS_MS)) return;
  post(msg);
  rolloutsSentAt = performance.now();
  unsentRollouts = null;
}

function setState(state: RunStatus, message?: string) {
  post({ type: 'state', runId: id, state, step: trainer?.step ?? 0, ...(message ? { message } : {}) });
}

async function start(msg: Extract<ToWorker, { type: 'start' }>): Promise<void> {
  const { config, seed, uploads = [] } = msg;
  persist = msg.persist ? { session: msg.persist.session, key: stateKey(msg.run, msg.label), every: msg.persist.every } : null;
  env = new WorkerEnvRunner({
    spawn: () => new Worker(new URL('./env.worker.ts', import.meta.url), { type: 'module' }) as unknown as WorkerLike,
    size: 1,
    timeoutMs: config.rollout.envTimeoutMs,
  });
  let notes: Record<string, string>;
  if (msg.persist?.resume) {
    setState('loading', 'loading the saved run state…');
    const stored = await getState(msg.persist.session, stateKey(msg.run, msg.label));
    if (!stored) throw new Error(`no saved state for ${msg.label} in this session`);
    const state = decodeRunState(stored.bytes);
    const m = state.manifest;
    try {
      checkRunIdentity(m, { experiment: config, runIndex: msg.run, seed });
    } catch (e) {
      throw new Error(`the saved state of ${msg.label} ${(e as Error).message}`, { cause: e });
    }
    trainer = RunTrainer.resume(state, { env });
    savedStep = trainer.step;
    notes = Object.fromEntries(trainer.models.map((pm) => [pm.id, `resumed at step ${m.step} (saved on ${String(m.notes.backend)})`]));
  } else {
    setState('loading', config.models.base === 'shipped' || uploads.length ? 'loading base models…' : undefined);
    const base = await loadBaseModels(
      config,
      uploads.map((u) => ({ name: u.name, bytes: new Uint8Array(u.bytes) })),
    );
    notes = base.notes;
    trainer = new RunTrainer({ exp: config, run: config.runs[msg.run], seed, base: base.checkpoints, env });
  }
  if (onGpu()) guard = await trainer.saveState({ reason: 'device-loss guard' });
  const keys = trainer.metricKeys();
  codec = new FrameCodec(keys);
  steps = config.steps;
  post({
    type: 'ready',
    runId: id,
    keys,
    agents: trainer.agents,
    models: trainer.models.map((m) => ({ id: m.id, preset: m.preset, agents: m.agents, params: m.model.numParams() })),
    base: notes,
    startStep: trainer.step,
    kernels: kernelsInUse(),
  });
  setState(trainer.step >= steps ? 'done' : 'paused');
}

/**
 * Saves the run's state to IndexedDB unless it is already saved at this step. A failure is
 * reported and training goes on: the metrics are recorded by the page either way.
 */
async function save(): Promise<void> {
  const t = trainer;
  if (!persist || !t || t.step === savedStep) return;
  const step = t.step;
  try {
    const state = guard && guard.manifest.step === step ? guard : await t.saveState({ reason: 'periodic' });
    await putState({ session: persist.session, run: persist.key, step, savedAt: Date.now(), bytes: encodeRunState(state).buffer as ArrayBuffer });
    savedStep = step;
    post({ type: 'saved', runId: id, step });
  } catch (e) {
    post({ type: 'saved', runId: id, step, error: (e as Error).message });
  }
}

/** What the ready message says about kernels (the fused ones exist for wasm only). */
function kernelsInUse(): string {
  const fused = KERNEL_FAMILIES.filter((f) => fusedKernelsAvailable(f));
  return fused.length ? `fused wasm SIMD (${fused.join(', ')})` : `tfjs ${tf.getBackend()} ops`;
}

const onGpu = () => ['webgpu', 'webgl'].includes(tf.getBackend());

function stepOnce(): Promise<void> {
  if (!trainer || !codec || inFlight || trainer.step >= steps) return Promise.resolve();
  const gen = generation;
  const step = trainAndSend(trainer, codec, gen).finally(() => {
    if (gen === generation) inFlight = null; // after a device loss the fallback owns inFlight
  });
  inFlight = step;
  return step;
}

/** One step: train, guard the state on a GPU, send the frame and rollouts, save when due. */
async function trainAndSend(t: RunTrainer, c: FrameCodec, gen: number): Promise<void> {
  // The first step compiles every shader (seconds on WebGPU); say so rather than look frozen.
  if (t.step === 0) setState('compiling', 'compiling shaders…');
  let r: TrainStepResult;
  try {
    r = await t.trainStep();
  } catch (e) {
    // A step that failed because its device went away is the fallback's to redo, not an error;
    // the loss may be reported a little after the failure it caused.
    if (onGpu()) await Promise.race([deviceLost, new Promise((resolve) => setTimeout(resolve, 2000))]);
    if (gen !== generation) return;
    throw e;
  }
  if (gen !== generation) return; // the device was lost meanwhile; the fallback redoes this step
  if (onGpu()) guard = await t.saveState({ reason: 'device-loss guard' });
  if (gen !== generation) return;
  const values = c.encode(r.metrics);
  post({ type: 'frame', runId: id, step: r.step, values }, [values.buffer]);
  sendRollouts({ type: 'rollouts', runId: id, step: r.step, trajectories: inspectBatch(r) }, !playing || t.step >= steps);
  if (t.step >= steps) {
    playing = false;
    await save();
    setState('done');
  } else {
    if (persist && t.step % persist.every === 0) await save();
    setState(playing ? 'running' : 'paused');
  }
}

async function loop(): Promise<void> {
  const gen = generation; // a loop on a lost device ends; the fallback starts its own
  while (playing && gen === generation) {
    await stepOnce();
    // Also lets pause/step/set messages in between steps.
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/**
 * A lost WebGPU device (driver reset, GPU removed, some systems after a long background spell):
 * the run switches to wasm and goes on from its state after the last completed step (the guard),
 * or stops with a message if even that fails. Frames already sent stay with the page.
 */
function watchDeviceLoss(): void {
  type Lost = { reason?: string; message?: string };
  const device = (tf.backend() as unknown as { device?: { lost?: Promise<Lost> } }).device;
  if (!device?.lost) return;
  deviceLost = device.lost.then((info) => {
    void fallBack(`GPU device lost (${info.reason ?? 'unknown'}: ${info.message || 'no message'})`);
  });
}

async function fallBack(why: string): Promise<void> {
  const wasPlaying = playing;
  playing = false;
  generation++;
  inFlight = null;
  const old = trainer;
  const saved = guard;
  trainer = null;
  try {
    old?.dispose(); // its tensors belong to the lost device; freeing them is bookkeeping only
  } catch {
    // nothing to free on a dead device
  }
  try {
    if (!saved || !env) throw new Error('no saved state to go on from');
    const report = await selectBackend(tf, 'wasm', browserPlatform);
    if (!report.backend) throw new Error(`wasm refused: ${report.attempts.map((a) => a.reason).join('; ')}`);
    trainer = RunTrainer.resume(saved, { env });
    guard = null;
    const step = trainer.step;
    post({
      type: 'fallback',
      runId: id,
      report,
      step,
      message: `${why} after step ${step}; the run goes on from there on wasm`,
      kernels: kernelsInUse(),
    });
    if (trainer.step >= steps) return setState('done');
    setState('paused');
    if (wasPlaying) {
      playing = true;
      setState('running');
      await loop();
    }
  } catch (e) {
    post({
      type: 'error',
      runId: id,
      message: `${why}; the run could not go on (${(e as Error).message}). Its recorded metrics are kept; reload or choose wasm to train again.`,
    });
    setState('failed', why);
  }
}

async function handle(msg: ToWorker): Promise<void> {
  switch (msg.type) {
    case 'init': {
      id = msg.runId;
      const report = await selectBackend(tf, msg.backend, browserPlatform);
      if (report.backend === 'webgpu') watchDeviceLoss();
      post({ type: 'backend', runId: id, report });
      return;
    }
    case 'start':
      return start(msg);
    case 'play':
      if (playing) return;
      playing = true;
      setState('running');
      return loop();
    case 'pause':
      playing = false;
      if (!inFlight) setState('paused');
      // A paused run is saved, so a reload or a closed tab resumes exactly here. (A failed step
      // has already been reported by the command that ran it.)
      await inFlight?.catch(() => undefined);
      sendRollouts(unsentRollouts, true);
      return save();
    case 'step':
      if (!playing) await stepOnce();
      return;
    case 'pace':
      if (!Number.isFinite(msg.delayMs) || msg.delayMs < 0) throw new Error(`pace must be a delay ≥ 0 ms, got ${msg.delayMs}`);
      delayMs = msg.delayMs;
      return;
    case 'set': {
      if (!trainer) throw new Error('no run to change: start it first');
      trainer.setLive(msg.param, msg.value);
      post({ type: 'param', runId: id, param: msg.param, value: msg.value, step: trainer.step });
      return;
    }
    case 'snapshot': {
      if (!trainer) throw new Error('no run to snapshot');
      const files: Record<string, ArrayBuffer> = {};
      for (const m of trainer.models) {
        const ckpt = await saveCheckpoint(m.model, { preset: m.preset, notes: { step: trainer.step, agents: m.agents } });
        files[m.id] = encodeCheckpoint(ckpt).buffer as ArrayBuffer;
      }
      post({ type: 'checkpoint', runId: id, step: trainer.step, files }, Object.values(files));
      return;
    }
    case 'lose-device': {
      const device = (tf.backend() as unknown as { device?: { destroy(): void } }).device;
      if (!device) throw new Error(`no GPU device to lose: this run is on ${tf.getBackend()}`);
      device.destroy();
      return;
    }
    default: {
      const never: never = msg;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
}

onmessage = (event: MessageEvent<ToWorker>) => {
  handle(event.data).catch((e: Error) => {
    playing = false;
    post({ type: 'error', runId: id, message: e.message });
    setState('failed', e.message);
  });
};
