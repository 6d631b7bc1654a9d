/**
 * A RunTrainer's state, taken and given back: `saveRunState` reads everything a trainer needs to
 * go on at its next step (weights, AdamW moments, references, step, live parameters, buffers) in
 * one readback, and `resumeRunTrainer` builds the trainer that goes on from such a state. The
 * state's format, its checks and its file are run-state.ts's; this is the part that touches a
 * live trainer and the device, so the format stays free of both.
 */
import * as tf from '@tensorflow/tfjs';
import type { LiveSchedule } from '../core/live-params';
import { LIVE_PARAMS } from '../core/live-params';
import { checkpointOf, loadCheckpointInto } from '../model/checkpoint';
import type { EnvRunner } from '../tasks/env';
import { packRunState, verifyRunState, type RunState } from './run-state';
import { RunTrainer } from './trainer';

/**
 * Everything needed to resume `t` at its next step: weights, AdamW moments, references, step and
 * live parameters, in one readback. Call between steps.
 */
export async function saveRunState(t: RunTrainer, notes: Record<string, unknown> = {}): Promise<RunState> {
  // Per model: weights, m, v and the reference, flattened in that order.
  const tensors = t.models.flatMap((m) => [
    ...m.model.variables,
    ...m.opt.moments.m,
    ...m.opt.moments.v,
    ...(m.ref?.variables ?? []),
  ]);
  const flat = tf.tidy(() => tf.concat(tensors.map((v) => tf.reshape(v, [-1]))));
  const data = (await flat.data()) as Float32Array;
  flat.dispose();
  let offset = 0;
  const take = (n: number) => data.slice(offset, (offset += n));
  const parts = t.models.map((m) => {
    const n = m.model.numParams();
    return {
      id: m.id,
      preset: m.preset,
      agents: [...m.agents],
      checkpoint: checkpointOf(m.model, take(n), {
        preset: m.preset,
        notes: { step: t.step, agents: m.agents },
      }),
      moments: { step: m.opt.step, m: take(n), v: take(n) },
      ref: m.ref ? checkpointOf(m.ref, take(n), { preset: m.preset, notes: { reference: true } }) : null,
    };
  });
  const found = t.exp.runs.indexOf(t.run);
  const runIndex = found >= 0 ? found : t.exp.runs.findIndex((r) => r.label === t.run.label);
  // The run's schedule as it stands (changes set while it trained too), so a resume takes the due ones.
  const runs = t.exp.runs.map((r, i) => (i === runIndex ? { ...r, live: t.liveSchedule } : r));
  return packRunState(
    {
      experiment: { ...t.exp, runs },
      runIndex,
      label: t.run.label,
      seed: t.seed,
      step: t.step,
      live: t.liveValues(),
      elapsedS: t.elapsedS,
      ...(t.buffers ? { buffers: t.buffers.save() } : {}),
      notes: { backend: tf.getBackend(), ...notes },
    },
    parts,
  );
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
