/**
 * A RunTrainer's state, taken and given back: `saveRunState` reads everything a trainer needs to
 * go on at its next step (weights, AdamW moments, references, step, live parameters, buffers) in
 * one readback (`readRunState`: before its hashes), and `resumeRunTrainer` builds the trainer
 * that goes on from such a state. The
 * state's format, its checks and its file are run-state.ts's; this is the part that touches a
 * live trainer and the device, so the format stays free of both.
 */
import * as tf from '@tensorflow/tfjs';
import type { LiveSchedule } from '../core/live-params';
import { LIVE_PARAMS } from '../core/live-params';
import { checkpointHeader, loadCheckpointInto } from '../model/checkpoint';
import { heapValues } from '../model/kernels/wasm';
import type { EnvRunner } from '../tasks/env';
import { sealRunState, verifyRunState, type RunState, type UnsealedRunState } from './run-state';
import { RunTrainer } from './trainer';

/**
 * Everything needed to resume `t` at its next step: weights, AdamW moments, references, step and
 * live parameters, in one readback. Call between steps.
 */
export async function saveRunState(t: RunTrainer, notes: Record<string, unknown> = {}): Promise<RunState> {
  return sealRunState(await readRunState(t, notes));
}

/**
 * saveRunState before its hashes (run-state.ts UnsealedRunState): the one read (on wasm a copy
 * from the heap, elsewhere one readback), whose bytes
 * are the payload as they come (per model weights | m | v | ref, the file's layout), and the
 * manifest's fields. What a save after every step costs the run; sealRunState hashes it when a
 * file is wanted. Call between steps.
 */
export async function readRunState(
  t: RunTrainer,
  notes: Record<string, unknown> = {},
): Promise<UnsealedRunState> {
  // Per model: weights, m, v and the reference, flattened in that order.
  const tensors = t.models.flatMap((m) => [
    ...m.model.variables,
    ...m.opt.moments.m,
    ...m.opt.moments.v,
    ...(m.ref?.variables ?? []),
  ]);
  const data = heapValues(tensors) ?? (await readBack(tensors));
  const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
  const payload = (whole ? data : data.slice()).buffer as ArrayBuffer;
  const models = t.models.map((m) => ({
    id: m.id,
    preset: m.preset,
    agents: [...m.agents],
    optStep: m.opt.step,
    weights: checkpointHeader(m.model, { preset: m.preset, notes: { step: t.step, agents: m.agents } }),
    ref: m.ref ? checkpointHeader(m.ref, { preset: m.preset, notes: { reference: true } }) : null,
  }));
  const found = t.exp.runs.indexOf(t.run);
  const runIndex = found >= 0 ? found : t.exp.runs.findIndex((r) => r.label === t.run.label);
  // The run's schedule as it stands (changes set while it trained too), so a resume takes the due ones.
  const runs = t.exp.runs.map((r, i) => (i === runIndex ? { ...r, live: t.liveSchedule } : r));
  const meta = {
    experiment: { ...t.exp, runs },
    runIndex,
    label: t.run.label,
    seed: t.seed,
    step: t.step,
    live: t.liveValues(),
    elapsedS: t.elapsedS,
    ...(t.buffers ? { buffers: t.buffers.save() } : {}),
    notes: { backend: tf.getBackend(), ...notes },
  };
  return { meta, models, payload };
}

/** The tensors' values end to end, by one concat and one readback (a GPU backend's way). */
async function readBack(tensors: readonly tf.Tensor[]): Promise<Float32Array> {
  const flat = tf.tidy(() => tf.concat(tensors.map((v) => tf.reshape(v, [-1]))));
  try {
    return (await flat.data()) as Float32Array;
  } finally {
    flat.dispose();
  }
}

/**
 * A trainer that goes on from a saved state: same experiment, run, seed and models, the optimizer
 * moments and step restored, live parameters re-applied. Its next step is the saved run's next
 * step, and on the same backend it computes what the saved run would have. Its live changes due
 * at or after that step (the state's schedule, plus `schedule`'s) apply at their steps; those
 * before it are already in the restored live values.
 */
export function resumeRunTrainer(
  state: RunState,
  o: { env?: EnvRunner; schedule?: LiveSchedule } = {},
): RunTrainer {
  const { experiment: exp, parts } = verifyRunState(state);
  const m = state.manifest;
  const base = Object.fromEntries(parts.map((p) => [p.state.id, p.checkpoint]));
  const t = new RunTrainer({
    exp,
    run: exp.runs[m.runIndex],
    seed: m.seed,
    base,
    ...(o.env ? { env: o.env } : {}),
    ...(o.schedule ? { schedule: o.schedule } : {}),
  });
  try {
    const ids = t.models.map((pm) => pm.id).join(', ');
    if (parts.map((p) => p.state.id).join(', ') !== ids) {
      throw new Error(
        `run state holds models ${parts.map((p) => p.state.id).join(', ')}; its experiment needs ${ids}`,
      );
    }
    t.models.forEach((pm, i) => {
      pm.opt.loadState(parts[i].moments);
      const ref = parts[i].ref;
      if (pm.ref && !ref)
        throw new Error(`run state has no KL reference for model ${pm.id}, but its experiment's klCoef > 0`);
      if (pm.ref && ref) loadCheckpointInto(pm.ref, ref);
    });
    if (m.buffers && !t.buffers)
      throw new Error("run state holds per-agent buffers, but its run's train.buffer is not per-agent");
    if (m.buffers) t.buffers?.load(m.buffers);
    t.step = m.step;
    const now = t.liveValues();
    for (const p of LIVE_PARAMS) if (now[p] !== m.live[p]) t.setLiveNow(p, m.live[p]);
    t.elapsedS = m.elapsedS;
    return t;
  } catch (e) {
    t.dispose();
    throw e;
  }
}
