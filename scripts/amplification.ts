/**
 * `npm run amplification -- [--presets id,…] [--config <file | URL | hash>] [--models DIR] [--batches 8]
 *   [--credit shared | counterfactual | shapley] [--credit-weight λ] [--credit-replay turn | prompt]`
 * Where do the estimators part? For each preset (or the one experiment `--config` names, with base
 * models read from `--models`, default the shipped `models/`), over base-model rollouts at the preset's own
 * B, G and temperature (no update), per agent: rows per trajectory, the median over batches of its
 * amplification (GRPO's trajectory baseline) and amplification_rows (global-step's pooled-rows
 * baseline), the share of its rows that sit in failing trajectories, and the correlation of its
 * rows' advantages under GRPO and Dr. MAS; per preset the batch success. On `math` also the share
 * of first answers the verifier rejects, split by whether the answer was right; on `search` and its
 * variants the router's errors: the share of trajectories that time out ("no" at the last step),
 * that hold a cautious "no" (every needed fact already in) or an eager "yes" (before they are), and
 * the success rate after an eager "yes". μ is the mean trajectory score (GRPO's baseline level), μk
 * agent k's mean row reward. With `--credit`,
 * each row's reward first gets λ × its agent's per-agent credit (src/train/credit.ts, replays in
 * process), as a run with that `reward.credit` would train on; μk and σk show each agent's reward
 * distribution.
 */
import { scriptArgs } from './cli-args';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { PRESETS, presetById } from '../src/core/presets';
import { mixSeed } from '../src/core/prng';
import { computeAdvantages } from '../src/rl/advantage';
import { formatFixed } from '../src/report/findings';
import { pearson } from '../src/rl/same-batch';
import { median } from '../src/report/summary';
import type { Row } from '../src/tasks/orchestrator';
import { taskOf, taskRefOf } from '../src/tasks/registry';
import { solution, type MathInstance } from '../src/tasks/math';
import type { SearchInstance, SearchState } from '../src/tasks/search';
import { routeErrors } from '../src/tasks/search-routing';
import type { Task } from '../src/tasks/types';
import { loadConfig } from '../src/cli/load-config';
import { batchCredit } from '../src/train/credit';
import { CREDIT_NAMES, type CreditName } from '../src/core/config-names';
import { InProcessEnvRunner } from '../src/tasks/env';
import { baseRollouts } from './base-rollouts';

const USAGE = `Usage: npm run amplification -- [--presets id,…] [--config <file | URL | hash>] [--models DIR]
  [--batches 8] [--credit shared | counterfactual | shapley] [--credit-weight λ] [--credit-replay turn | prompt]

Where do the estimators part? Per preset, over base-model rollouts (no update), per agent:
amplification under GRPO and global-step, rows in failing trajectories, and the correlation of
its rows' advantages under GRPO and Dr. MAS. See the header of scripts/amplification.ts.`;

const values = scriptArgs(USAGE, {
  presets: { type: 'string', default: PRESETS.map((p) => p.id).join(',') },
  config: { type: 'string' },
  models: { type: 'string', default: 'models' },
  batches: { type: 'string', default: '8' },
  credit: { type: 'string', default: 'shared' },
  'credit-weight': { type: 'string', default: '1' },
  'credit-replay': { type: 'string', default: 'turn' },
});
const credit = values.credit as CreditName;
if (!CREDIT_NAMES.includes(credit))
  throw new Error(`--credit: '${values.credit}' is not one of ${CREDIT_NAMES.join(', ')}`);
const creditWeight = Number(values['credit-weight']);
const creditReplay = values['credit-replay'] as 'prompt' | 'turn';
if (!['prompt', 'turn'].includes(creditReplay))
  throw new Error(`--credit-replay: '${creditReplay}' is not prompt or turn`);
tf.enableProdMode();
await tf.setBackend('wasm');

const fmt = (x: number) => formatFixed(x, 2);
function fail(message: string): never {
  throw new Error(message);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Math: of the trajectories whose first answer was right (wrong), the share the verifier rejected. */
function rejections(
  rows: Row[],
  instances: readonly unknown[],
  G: number,
): { all: number; right: number; wrong: number } {
  const byTraj = new Map<number, Row[]>();
  for (const r of rows) byTraj.set(r.traj, [...(byTraj.get(r.traj) ?? []), r]);
  const seen = { right: [0, 0], wrong: [0, 0] };
  for (const [traj, own] of byTraj) {
    const first = own.find((r) => r.agent === 'solver');
    if (!first) continue;
    const right =
      Number(first.response) === solution(instances[Math.floor(traj / G)] as MathInstance)
        ? 'right'
        : 'wrong';
    seen[right][0]++;
    if (own.filter((r) => r.agent === 'solver').length > 1) seen[right][1]++;
  }
  const share = ([n, k]: number[]) => k / n;
  return {
    all: (seen.right[1] + seen.wrong[1]) / (seen.right[0] + seen.wrong[0]),
    right: share(seen.right),
    wrong: share(seen.wrong),
  };
}

/** Search family: per trajectory, how its router erred (src/tasks/search-routing.ts, routeErrors). */
function routing(
  task: Task<SearchInstance, SearchState>,
  rows: Row[],
  instances: readonly unknown[],
  trajectories: readonly { traj: number; success: boolean }[],
  G: number,
) {
  const errs = trajectories.map((t) => ({
    ...routeErrors(
      task,
      instances[Math.floor(t.traj / G)] as SearchInstance,
      rows.filter((r) => r.traj === t.traj),
    ),
    success: t.success,
  }));
  const eager = errs.filter((e) => e.eager > 0);
  return {
    timeout: mean(errs.map((e) => (e.timeout ? 1 : 0))),
    cautious: mean(errs.map((e) => (e.cautious > 0 ? 1 : 0))),
    eager: eager.length / errs.length,
    eagerSuccess: eager.length ? mean(eager.map((e) => (e.success ? 1 : 0))) : NaN,
  };
}

console.log(
  `credit: ${credit}${credit === 'shared' ? '' : `, λ = ${creditWeight}, replays match by ${creditReplay}`}`,
);
console.log(
  'preset         success      μ  agent     rows/traj     μk     σk  amplif (med)  amplif_rows (med)  rows in failures  corr(grpo, drmas)',
);
const experiments = values.config
  ? [{ id: 'config', exp: loadConfig(values.config) }]
  : values.presets.split(',').map((id) => ({ id, exp: presetById(id)?.config ?? fail(`no preset ${id}`) }));
for (const { id, exp } of experiments) {
  const G = exp.rollout.groupSize;
  const per: Record<
    string,
    {
      rows: number;
      amp: number[];
      ampRows: number[];
      inFail: number;
      grpo: number[];
      drmas: number[];
      rewards: number[];
    }
  > = {};
  const env = new InProcessEnvRunner();
  let trajs = 0;
  const success: number[] = [];
  const mu: number[] = [];
  const searchFamily = (taskOf(exp).variantOf ?? exp.task) === 'search';
  const route = {
    timeout: [] as number[],
    cautious: [] as number[],
    eager: [] as number[],
    eagerSuccess: [] as number[],
  };
  const rej = { all: [] as number[], right: [] as number[], wrong: [] as number[] };
  for await (const { b, instances, result: r } of baseRollouts(
    exp,
    values.models,
    Number(values.batches),
    'amp',
  )) {
    const c = await batchCredit({
      task: taskOf(exp),
      step: (inputs) => env.step(taskRefOf(exp), inputs),
      instances,
      rows: r.rows,
      trajectories: r.trajectories,
      options: { credit, creditReplay, creditWeight, creditSamples: exp.reward.creditSamples },
      seed: mixSeed(7, `amp-credit/${b}`),
    });
    const rows = c
      ? r.rows.map((row, i) => ({ ...row, reward: row.reward + c.weight * c.rowCredit[i] }))
      : r.rows;
    const failed = new Set(r.trajectories.filter((t) => !t.success).map((t) => t.traj));
    success.push(mean(r.trajectories.map((t) => (t.success ? 1 : 0))));
    mu.push(
      mean(
        r.trajectories.map((t) => mean(rows.filter((row) => row.traj === t.traj).map((row) => row.reward))),
      ),
    );
    trajs += r.trajectories.length;
    const grpo = computeAdvantages(rows, { estimator: 'grpo' });
    const drmas = computeAdvantages(rows, { estimator: 'drmas' });
    for (const [agent, s] of Object.entries(grpo.stats.agents)) {
      const p = (per[agent] ??= {
        rows: 0,
        amp: [],
        ampRows: [],
        inFail: 0,
        grpo: [],
        drmas: [],
        rewards: [],
      });
      if (Number.isFinite(s.amplification)) p.amp.push(s.amplification);
      if (Number.isFinite(s.amplificationRows)) p.ampRows.push(s.amplificationRows);
      rows.forEach((row, i) => {
        if (row.agent !== agent) return;
        p.rows++;
        p.rewards.push(row.reward);
        if (failed.has(row.traj)) p.inFail++;
        p.grpo.push(grpo.advantages[i]);
        p.drmas.push(drmas.advantages[i]);
      });
    }
    if (exp.task === 'math') {
      const x = rejections(r.rows, instances, G);
      for (const k of ['all', 'right', 'wrong'] as const) if (Number.isFinite(x[k])) rej[k].push(x[k]);
    }
    if (searchFamily) {
      const x = routing(
        taskOf(exp) as unknown as Task<SearchInstance, SearchState>,
        r.rows,
        instances,
        r.trajectories,
        G,
      );
      for (const k of ['timeout', 'cautious', 'eager', 'eagerSuccess'] as const)
        if (Number.isFinite(x[k])) route[k].push(x[k]);
    }
  }
  for (const [agent, p] of Object.entries(per)) {
    console.log(
      `${id.padEnd(14)} ${fmt(mean(success)).padStart(7)}  ${fmt(mean(mu)).padStart(5)}  ${agent.padEnd(9)} ${fmt(p.rows / trajs).padStart(9)}  ${fmt(mean(p.rewards)).padStart(5)}  ${fmt(Math.sqrt(mean(p.rewards.map((x) => (x - mean(p.rewards)) ** 2)))).padStart(5)}  ${fmt(median(p.amp)).padStart(12)}  ${fmt(median(p.ampRows)).padStart(17)}  ${fmt(p.inFail / p.rows).padStart(16)}  ${fmt(pearson(p.grpo, p.drmas)).padStart(17)}`,
    );
  }
  if (exp.task === 'math') {
    console.log(
      `${id.padEnd(14)} first answers rejected: ${fmt(mean(rej.all))} (right ones ${fmt(mean(rej.right))}, wrong ones ${fmt(mean(rej.wrong))})`,
    );
  }
  if (searchFamily) {
    console.log(
      `${id.padEnd(14)} router: timeouts ${fmt(mean(route.timeout))}, a cautious "no" in ${fmt(mean(route.cautious))}, an eager "yes" in ${fmt(mean(route.eager))} of trajectories (success after an eager "yes" ${fmt(mean(route.eagerSuccess))})`,
    );
  }
  env.dispose();
}
