/**
 * `npm run tree-cost -- [--batches 20] [--error 0.3]`
 * What tree sampling costs in policy work, per task, against parallel sampling of the same batch:
 * the task's demonstrators (each call wrong with probability --error) stand in for the policies, so
 * the counts need no model and no backend. Per step (B = 4 instances, G = 8, mean over seeded
 * batches): policy calls that become rows, policy calls spent on greedy completions (tasks without
 * turnReward), and policy rounds (batched policy invocations, each one decode pass: the latency a
 * step pays in sequence). Timings of real runs are in perf/rollout_ms (README "Tree sampling").
 */
import { scriptArgs } from './cli-args';
import { TASK_NAMES } from '../src/core/config-names';
import { Prng } from '../src/core/prng';
import { mean } from '../src/rl/stats';
import { demonstratorPolicy } from '../src/tasks/demo';
import type { Policy } from '../src/tasks/orchestrator';
import { getTask, sampleInstances } from '../src/tasks/registry';
import { SAMPLINGS } from '../src/tasks/sampling';

const USAGE = `Usage: npm run tree-cost -- [--batches 20] [--error 0.3]

What tree sampling costs in policy work per task, against parallel sampling of the same batch,
with the demonstrators (wrong with probability --error) standing in for the policies.`;

const values = scriptArgs(USAGE, {
  batches: { type: 'string', default: '20' },
  error: { type: 'string', default: '0.3' },
});
const batches = Number(values.batches);
const errorRate = Number(values.error);
const B = 4;
const G = 8;

console.log(
  `per step, B = ${B}, G = ${G}, demonstrators with error rate ${errorRate}, mean over ${batches} batches`,
);
console.log(
  'task'.padEnd(16) +
    'turnReward'.padEnd(12) +
    'parallel rows / rounds'.padStart(24) +
    'tree rows / completion calls / rounds'.padStart(40),
);
for (const name of TASK_NAMES) {
  const task = getTask(name);
  const cells = (['parallel', 'tree'] as const).map((sampling) => {
    const rows: number[] = [];
    const completions: number[] = [];
    const rounds: number[] = [];
    return (async () => {
      for (let b = 0; b < batches; b++) {
        let n = 0;
        const demo = demonstratorPolicy(name, errorRate);
        const counted: Policy = async (calls, o) => (n++, demo(calls, o));
        const r = await SAMPLINGS[sampling].rollout({
          task: name,
          instances: sampleInstances(task, new Prng(b), 'train', B),
          groupSize: G,
          // One model for all agents: a round is one batched call whoever acts.
          policies: { all: counted },
          agentModels: Object.fromEntries(task.agents.map((a) => [a.role, 'all'])),
          seed: b,
        });
        rows.push(r.rows.length);
        completions.push(r.completionCalls);
        rounds.push(n);
      }
      return { rows: mean(rows), completions: mean(completions), rounds: mean(rounds) };
    })();
  });
  const [p, t] = await Promise.all(cells);
  const f = (x: number) => x.toFixed(1);
  console.log(
    name.padEnd(16) +
      (task.turnReward ? 'yes' : 'no').padEnd(12) +
      `${f(p.rows)} / ${f(p.rounds)}`.padStart(24) +
      `${f(t.rows)} / ${f(t.completions)} / ${f(t.rounds)}`.padStart(40),
  );
}
