/**
 * `npm run agent-medians -- DIR [--mean] [stat …]` (default stats: amplification, reward/mean, credit/mean)
 * Per run of a `lab train` folder (seeds pooled by label, as `lab report` does): for each agent and
 * stat, the median over steps of `agent/<name>/<stat>` per seed, then mean ± 95 % CI over seeds; a
 * run-level key (`success/rate`, `perf/rollout_ms`, …) is read as it is, in one column
 * (src/report/findings.ts estimate). Reads DIR/metrics.jsonl, so it works on a run still training.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/cli/load-config';
import { readMetrics } from '../src/cli/session-dir';
import { parseAgentKey } from '../src/core/metrics';
import { baseLabel, estimate, pm } from '../src/report/findings';
import { mean } from '../src/rl/stats';
import { median } from '../src/report/summary';

const [dir, ...args] = process.argv.slice(2);
if (!dir) throw new Error('usage: npm run agent-medians -- DIR [--mean] [stat …]');
// --mean: the mean over steps instead of the median (for rare events such as singleton sets).
const byMean = args.includes('--mean');
const over = (xs: number[]) => (byMean ? mean(xs.filter(Number.isFinite)) : median(xs));
const asked = args.filter((a) => a !== '--mean');
const stats = asked.length ? asked : ['amplification', 'reward/mean', 'credit/mean'];
// The folder's task, so a folder of an earlier build reads under today's role names (plan's solver is its planner).
const task = existsSync(join(dir, 'config.json')) ? loadConfig(join(dir, 'config.json')).task : undefined;
const records = readMetrics(join(dir, 'metrics.jsonl'), undefined, task);
const agents = [
  ...new Set(records.flatMap((r) => Object.keys(r.metrics).flatMap((k) => parseAgentKey(k)?.agent ?? []))),
];
const byRun = new Map<string, Map<string, Record<string, number>[]>>();
for (const r of records) {
  const seeds = byRun.get(baseLabel(r.run)) ?? new Map<string, Record<string, number>[]>();
  seeds.set(r.run, [...(seeds.get(r.run) ?? []), r.metrics]);
  byRun.set(baseLabel(r.run), seeds);
}
console.log(`${byMean ? 'mean' : 'median'} over steps per seed, mean ± 95 % CI over seeds (${dir})`);
for (const stat of stats) {
  // A run-level key (success/rate, groups/singleton_frac, perf/rollout_ms, …) gets one column.
  const runLevel = records.some((r) => stat in r.metrics);
  const columns = runLevel ? ['all agents'] : agents;
  const keyOf = (a: string) => (runLevel ? stat : `agent/${a}/${stat}`);
  console.log(`\n${stat}`);
  console.log('run'.padEnd(22) + columns.map((a) => a.padStart(16)).join(''));
  for (const [run, seeds] of byRun) {
    const steps = Math.min(...[...seeds.values()].map((h) => h.length));
    const cells = columns.map((a) =>
      pm(estimate([...seeds.values()].map((h) => over(h.map((m) => m[keyOf(a)] ?? NaN)))), byMean ? 3 : 2),
    );
    console.log(`${run} (${seeds.size}×${steps})`.padEnd(22) + cells.map((c) => c.padStart(16)).join(''));
  }
}
