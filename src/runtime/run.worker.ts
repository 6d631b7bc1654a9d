/**
 * Dedicated worker hosting one run: picks the compute backend (with the sanity check), loads the
 * shipped base models, and drives a RunTrainer on command — play, pause, single step, live
 * hyper-parameters, snapshots. Each step goes out as one transferred metric frame. Environments
 * run in a pool of nested env workers with a time limit. tfjs lives only in workers.
 */
import * as tf from '@tensorflow/tfjs';
import type { Experiment } from '../core/config';
import { FrameCodec } from '../core/frame';
import { saveCheckpoint, encodeCheckpoint } from '../model/checkpoint';
import { RunTrainer, type StepResult } from '../train/trainer';
import { selectBackend } from './backend';
import { loadBaseModels } from './base-models';
import { WorkerEnvRunner, type WorkerLike } from './env-pool';
import { browserPlatform } from './platform-browser';
import type { FromWorker, InspectedTrajectory, RunId, RunState, ToWorker } from './protocol';

const post = (msg: FromWorker, transfer: Transferable[] = []) => postMessage(msg, transfer);

let id = '' as RunId;
let trainer: RunTrainer | null = null;
let codec: FrameCodec | null = null;
let steps = 0;
let playing = false;
let busy = false;
/** Wait between steps while playing (the page's speed control). */
let delayMs = 0;

function setState(state: RunState, message?: string) {
  post({ type: 'state', runId: id, state, step: trainer?.step ?? 0, ...(message ? { message } : {}) });
}

/** The first few groups of the batch, for the rollout inspector. */
function inspect(r: StepResult, groups = 2): InspectedTrajectory[] {
  return r.trajectories
    .filter((t) => t.group < groups)
    .map((t) => ({
      group: t.group,
      traj: t.traj,
      success: t.success,
      reward: t.reward,
      status: t.status,
      turns: r.rows.flatMap((row, i) =>
        row.traj === t.traj
          ? [
              {
                agent: row.agent,
                prompt: row.prompt,
                response: row.response,
                valid: row.valid,
                reward: row.reward,
                advantage: r.advantages[i],
                logp: row.oldLogp,
              },
            ]
          : [],
      ),
    }));
}

async function start(config: Experiment, runIndex: number, seed: number, uploads: { name: string; bytes: ArrayBuffer }[]): Promise<void> {
  setState('loading', config.models.base === 'shipped' || uploads.length ? 'loading base models…' : undefined);
  const { checkpoints, notes } = await loadBaseModels(
    config,
    uploads.map((u) => ({ name: u.name, bytes: new Uint8Array(u.bytes) })),
  );
  const env = new WorkerEnvRunner({
    spawn: () => new Worker(new URL('./env.worker.ts', import.meta.url), { type: 'module' }) as unknown as WorkerLike,
    size: 1,
    timeoutMs: config.rollout.envTimeoutMs,
  });
  trainer = new RunTrainer({ exp: config, run: config.runs[runIndex], seed, base: checkpoints, env });
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
  });
  setState('paused');
}

async function stepOnce(): Promise<void> {
  if (!trainer || !codec || busy || trainer.step >= steps) return;
  busy = true;
  try {
    // The first step compiles every shader (seconds on WebGPU); say so rather than look frozen.
    if (trainer.step === 0) setState('compiling', 'compiling shaders…');
    const r = await trainer.trainStep();
    const values = codec.encode(r.metrics);
    post({ type: 'frame', runId: id, step: r.step, values }, [values.buffer]);
    post({ type: 'rollouts', runId: id, step: r.step, trajectories: inspect(r) });
    if (trainer.step >= steps) {
      playing = false;
      setState('done');
    } else setState(playing ? 'running' : 'paused');
  } finally {
    busy = false;
  }
}

async function loop(): Promise<void> {
  while (playing) {
    await stepOnce();
    // Also lets pause/step/set messages in between steps.
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/**
 * A lost WebGPU device (driver reset, GPU removed, tab backgrounded too long on some systems)
 * stops the run with a message naming the step; the page keeps every frame already received.
 * Recovering would mean resuming from a checkpoint on the next backend: not built yet.
 */
function watchDeviceLoss(): void {
  type Lost = { reason?: string; message?: string };
  const device = (tf.backend() as unknown as { device?: { lost?: Promise<Lost> } }).device;
  void device?.lost?.then((info) => {
    playing = false;
    const at = trainer ? ` at step ${trainer.step}` : '';
    post({
      type: 'error',
      runId: id,
      message: `GPU device lost${at} (${info.reason ?? 'unknown'}: ${info.message ?? 'no message'}); the run stopped and its recorded metrics are kept. Reload, or choose the wasm backend, to train again.`,
    });
    setState('failed', 'GPU device lost');
  });
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
      return start(msg.config, msg.run, msg.seed, msg.uploads ?? []);
    case 'play':
      if (playing) return;
      playing = true;
      setState('running');
      return loop();
    case 'pause':
      playing = false;
      if (!busy) setState('paused');
      return;
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
