/**
 * `npm run amplification -- [--tasks search,math,sync,coder-tester] [--batches 4]`
 * Where do the estimators part? Over base-model rollouts (no update), per task and group size G:
 * each agent's amplification factor (σ_k² + (μ_k − μ)²)/σ² (Dr. MAS Lemma 4.2; 1 = no mismatch),
 * its E[A²] under GRPO and Dr. MAS, its mean row reward against the trajectory mean, and the share
 * of its rows that sit in failing trajectories. Prints a table; the figures behind the default.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema, TASK_NAMES } from '../src/core/config';
import { mixSeed, Prng } from '../src/core/prng';
import { computeAdvantages } from '../src/rl/advantage';
import { rollout } from '../src/tasks/orchestrator';
import { getTask, sampleInstances } from '../src/tasks/registry';
import { loadShippedBase } from '../src/cli/base-models';
import { buildModels, disposeModels } from '../src/train/models';
import { modelPolicy, type SampledTokens } from '../src/train/policy';

const { values } = parseArgs({
  options: { tasks: { type: 'string', default: TASK_NAMES.join(',') }, batches: { type: 'string', default: '4' }, groups: { type: 'string', default: '4,8' } },
});
tf.enableProdMode();
await tf.setBackend('wasm');

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '—');
console.log('task          G  agent     rows/traj  μ_k−μ   amplif  E[A²] grpo  E[A²] drmas  rows in failures');
for (const task of values.tasks.split(',')) {
  const exp = ExperimentSchema.parse({ task });
  const { checkpoints } = await loadShippedBase(exp);
  const models = buildModels(exp, exp.optim, 0, checkpoints);
  const counters = { forwards: 0, readbacks: 0, tokens: 0 };
  const policies = Object.fromEntries(models.map((m) => [m.id, modelPolicy(m.model, counters)]));
  const agentModels = Object.fromEntries(models.flatMap((m) => m.agents.map((a) => [a, m.id])));
  for (const G of values.groups.split(',').map(Number)) {
    const rows: { group: number; traj: number; agent: string; turn: number; reward: number }[] = [];
    const failed = new Set<number>();
    let trajs = 0;
    for (let b = 0; b < Number(values.batches); b++) {
      const instances = sampleInstances(getTask(task), new Prng(mixSeed(7, `amp/${b}`)), 'train', 8);
      const r = await rollout<SampledTokens>({ task: exp.task, instances, groupSize: G, policies, agentModels, seed: mixSeed(7, `amp-roll/${b}`) });
      const offset = b * 8 * G;
      for (const row of r.rows) rows.push({ group: row.group + b * 8, traj: row.traj + offset, agent: row.agent, turn: row.turn, reward: row.reward });
      for (const t of r.trajectories) if (!t.success) failed.add(t.traj + offset);
      trajs += r.trajectories.length;
    }
    const grpo = computeAdvantages(rows, { estimator: 'grpo' }).stats;
    const drmas = computeAdvantages(rows, { estimator: 'drmas' }).stats;
    const mu = rows.reduce((a, r) => a + r.reward, 0) / rows.length;
    for (const agent of Object.keys(grpo.agents)) {
      const own = rows.filter((r) => r.agent === agent);
      const inFail = own.filter((r) => failed.has(r.traj)).length / own.length;
      const g = grpo.agents[agent];
      console.log(
        `${task.padEnd(13)} ${String(G).padStart(2)}  ${agent.padEnd(9)} ${fmt(own.length / trajs).padStart(9)}  ${fmt(g.rewardMean - mu).padStart(6)}  ${fmt(g.amplification).padStart(6)}  ${fmt(g.advSqMean).padStart(10)}  ${fmt(drmas.agents[agent].advSqMean).padStart(11)}  ${fmt(inFail).padStart(16)}`,
      );
    }
  }
  disposeModels(models);
}
