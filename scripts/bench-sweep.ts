/**
 * How fast `lab sweep` gets through a grid: a small map on the sync task (GRPO, Dr. MAS and
 * global-step × shared and per-agent models × --seeds), timed end to end through the real command
 * (threads, files, checkpoints), printed as runs per hour and the time the standard map (180 runs ×
 * 200 steps, docs/sweeps.md#speed) would take at that rate. A benchmark, not a test: it prints
 * figures and never fails on them.
 *
 *   npm run bench:sweep -- [--steps 40] [--seeds 2] [--workers 2] [--shards 1] [--timeout 3600]
 *
 * --shards N runs N `--shard i/N` processes side by side (each with --workers) and merges them,
 * as a cluster would; the default is one process with --workers threads.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, watchdog } from './cli-args';

const steps = Number(arg('steps', '40'));
const seeds = Number(arg('seeds', '2'));
const workers = Number(arg('workers', '2'));
const shards = Number(arg('shards', '1'));
for (const [name, v] of Object.entries({ steps, seeds, workers, shards }))
  if (!(Number.isInteger(v) && v >= 1)) throw new Error(`--${name}: a whole number ≥ 1, not ${v}`);
watchdog(Number(arg('timeout', '3600')), 'bench:sweep');

const config = `v=1&task=sync&seeds=${seeds}&runs.2.label=Global-step&runs.2.estimator=global-step`;
const grid = ['--grid', 'models.assignment=shared,per-agent'];
const runs = 2 * 3 * seeds;
const root = mkdtempSync(join(tmpdir(), 'bench-sweep-'));

const lab = (args: string[]) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lab ${args[0]} exited ${code}`))));
  });

console.log(
  `bench:sweep: ${runs} runs (3 estimators × 2 model assignments × ${seeds} seeds) × ${steps} steps on sync; ` +
    `${shards} process(es) × ${workers} worker(s); ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}`,
);
const t0 = performance.now();
const sweepArgs = [
  'sweep',
  '--config',
  config,
  ...grid,
  '--steps',
  String(steps),
  '--workers',
  String(workers),
  '--quiet',
];
if (shards === 1) await lab([...sweepArgs, '--out', join(root, 'sweep')]);
else {
  const dirs = Array.from({ length: shards }, (_, i) => join(root, `shard-${i}`));
  await Promise.all(dirs.map((out, i) => lab([...sweepArgs, '--shard', `${i}/${shards}`, '--out', out])));
  await lab(['merge', ...dirs, '--out', join(root, 'merged')]);
}
const hours = (performance.now() - t0) / 3.6e6;
const runStepsPerHour = (runs * steps) / hours;
console.log(
  `wall ${(hours * 60).toFixed(1)} min: ${(runs / hours).toFixed(1)} runs of ${steps} steps per hour, ` +
    `${(runStepsPerHour / 200).toFixed(1)} runs of 200 steps per hour; ` +
    `the standard map (180 runs × 200 steps) at this rate: ${(((180 * 200) / runStepsPerHour) * 60).toFixed(0)} min`,
);
rmSync(root, { recursive: true, force: true });
