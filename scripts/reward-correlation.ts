/**
 * `npm run reward-correlation -- [--presets id,…] [--models DIR] [--batches 8]`
 * How correlated are the agents' own rewards? For each preset (default every shipped one), over
 * base-model rollouts at the preset's own B, G and temperature (no update): per trajectory each
 * agent's mean row reward (its own reward, penalties included), and per pair of agents the Pearson
 * correlation of those means over the trajectories both acted in, raw and centred by the group's
 * mean (the part an estimator's group baseline leaves: GRPO's trajectory score mixes the agents'
 * outcomes into every row's advantage exactly when this is below 1). A pair whose rewards are one
 * (a shared reward) prints 1; n/a where either is constant. docs/estimator-algebra.md#reward-dials.
 */
import { scriptArgs } from './cli-args';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { PRESETS, presetById } from '../src/core/presets';
import { pearson } from '../src/rl/same-batch';
import { groupIndices } from '../src/rl/rows';
import { mean } from '../src/rl/stats';
import { taskOf } from '../src/tasks/registry';
import { baseRollouts } from './base-rollouts';

const USAGE = `Usage: npm run reward-correlation -- [--presets id,…] [--models DIR] [--batches 8]

How correlated are the agents' own rewards? Per preset, over base-model rollouts (no update), the
Pearson correlation of each pair of agents' mean row rewards per trajectory, raw and group-centred.
See docs/estimator-algebra.md#reward-dials.`;

const values = scriptArgs(USAGE, {
  presets: { type: 'string', default: PRESETS.map((p) => p.id).join(',') },
  models: { type: 'string', default: 'models' },
  batches: { type: 'string', default: '8' },
});
tf.enableProdMode();
await tf.setBackend('wasm');

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

console.log('preset\ttask\tagents\tcorr\tcorr (group-centred)\ttrajectories');
for (const id of values.presets.split(',')) {
  const exp = presetById(id)?.config;
  if (!exp) throw new Error(`--presets: no preset '${id}'; presets: ${PRESETS.map((p) => p.id).join(', ')}`);
  const agents = taskOf(exp).agents.map((a) => a.role as string);
  // Per trajectory (judged only): its group and each acting agent's mean row reward.
  const trajs: { group: string; own: Record<string, number> }[] = [];
  for await (const { b, result: r } of baseRollouts(exp, values.models, Number(values.batches), 'corr')) {
    for (const t of r.trajectories) {
      if (t.status !== 'ok') continue;
      const rows = r.rows.filter((row) => row.traj === t.traj);
      const own: Record<string, number> = {};
      for (const [agent, idx] of groupIndices(rows, (row) => row.agent))
        own[agent] = mean(idx.map((i) => rows[i].reward));
      trajs.push({ group: `${b}/${t.group}`, own });
    }
  }
  for (let i = 0; i < agents.length; i++)
    for (let j = i + 1; j < agents.length; j++) {
      const [a, c] = [agents[i], agents[j]];
      const both = trajs.filter((t) => a in t.own && c in t.own);
      // Group-centred: each value minus its group's mean over the same trajectories.
      const centred = (k: string) => {
        const groups = groupIndices(both, (t) => t.group);
        const out = new Float64Array(both.length);
        for (const idx of groups.values()) {
          const mu = mean(idx.map((n) => both[n].own[k]));
          for (const n of idx) out[n] = both[n].own[k] - mu;
        }
        return out;
      };
      const raw = pearson(
        both.map((t) => t.own[a]),
        both.map((t) => t.own[c]),
      );
      console.log(
        `${id}\t${exp.task}\t${a}~${c}\t${fmt(raw)}\t${fmt(pearson(centred(a), centred(c)))}\t${both.length}`,
      );
    }
}
