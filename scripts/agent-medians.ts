/**
 * `npm run agent-medians -- DIR [stat …]` (default stats: amplification, reward/mean, credit/mean)
 * Per run of a `lab train` folder (seeds pooled by label, as `lab report` does): for each agent and
 * stat, the median over steps of `agent/<name>/<stat>` per seed, then mean ± 95 % CI over seeds
 * (src/rl/findings.ts estimate). Reads DIR/metrics.jsonl, so it works on a run still training.
 */
import { join } from 'node:path';
import { readMetrics } from '../src/cli/run-dir';
import { parseAgentKey } from '../src/core/metrics';
import { baseLabel, estimate, pm } from '../src/rl/findings';
import { median } from '../src/rl/summary';

const [dir, ...asked] = process.argv.slice(2);
if (!dir) throw new Error('usage: npm run agent-medians -- DIR [stat …]');
const stats = asked.length ? asked : ['amplification', 'reward/mean', 'credit/mean'];
const records = readMetrics(join(dir, 'metrics.jsonl'));
const agents = [...new Set(records.flatMap((r) => Object.keys(r.metrics).flatMap((k) => parseAgentKey(k)?.agent ?? [])))];
const byRun = new Map<string, Map<string, Record<string, number>[]>>();
for (const r of records) {
  const seeds = byRun.get(baseLabel(r.run)) ?? new Map<string, Record<string, number>[]>();
  seeds.set(r.run, [...(seeds.get(r.run) ?? []), r.metrics]);
  byRun.set(baseLabel(r.run), seeds);
}
console.log(`median over steps per seed, mean ± 95 % CI over seeds (${dir})`);
for (const stat of stats) {
  console.log(`\n${stat}`);
  console.log('run'.padEnd(22) + agents.map((a) => a.padStart(16)).join(''));
  for (const [run, seeds] of byRun) {
    const steps = Math.min(...[...seeds.values()].map((h) => h.length));
    const cells = agents.map((a) => pm(estimate([...seeds.values()].map((h) => median(h.map((m) => m[`agent/${a}/${stat}`] ?? NaN)))), 2));
    console.log(`${run} (${seeds.size}×${steps})`.padEnd(22) + cells.map((c) => c.padStart(16)).join(''));
  }
}
