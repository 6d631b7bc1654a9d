/**
 * How fast `lab sweep` gets through a grid, timed end to end through the real command (threads,
 * files, checkpoints), printed as runs per hour and the time a whole map would take at that rate
 * (docs/sweeps.md#speed). A benchmark, not a test: it prints figures and never fails on them.
 * `--map standard` (the default): GRPO, Dr. MAS and global-step × shared and per-agent models ×
 * --seeds on sync, against the standard map (180 runs × 200 steps). `--map agents`: the same
 * three estimators on the parts family at N = 2 and 8 with own rewards, against the agents map
 * (15 cells × 3 runs × 5 seeds × 200 steps), whose cost grows with N.
 *
 *   npm run bench:sweep -- [--map standard|agents] [--steps 40] [--seeds 2] [--workers 2] [--shards 1] [--timeout 3600]
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

/** What each map times, and the whole map its rate is quoted against. */
const MAPS = {
  standard: {
    config: `v=1&task=sync&seeds=${seeds}&runs.2.label=Global-step&runs.2.estimator=global-step`,
    grid: ['--grid', 'models.assignment=shared,per-agent'],
    what: `3 estimators × 2 model assignments × ${seeds} seeds on sync`,
    whole: { name: 'the standard map', runs: 180 },
  },
  agents: {
    config:
      `v=1&task=workflow&workflow.family=parts&workflow.args.mix=1&seeds=${seeds}&eval.every=50&eval.k=16` +
      '&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr.+MAS&runs.1.estimator=drmas' +
      '&runs.2.label=global-step&runs.2.estimator=global-step',
    grid: ['--grid', 'workflow.args.agents=2,8'],
    what: `3 estimators × N = 2 and 8 × ${seeds} seeds on the parts family, own rewards`,
    // Its N = 2 and 8 cells stand for the map's five Ns (2, 3, 4, 6, 8: mean 4.6 agents, theirs 5).
    whole: { name: 'the agents map', runs: 225 },
  },
} as const;
const mapName = arg('map', 'standard');
if (!(mapName in MAPS)) throw new Error(`--map: one of ${Object.keys(MAPS).join(', ')}, not ${mapName}`);
const map = MAPS[mapName as keyof typeof MAPS];
const { config, grid } = map;
const runs = 2 * 3 * seeds; // two cells of three runs, each map
const root = mkdtempSync(join(tmpdir(), 'bench-sweep-'));

const lab = (args: string[]) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lab ${args[0]} exited ${code}`))));
  });

console.log(
  `bench:sweep --map ${mapName}: ${runs} runs (${map.what}) × ${steps} steps; ` +
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
    `${map.whole.name} (${map.whole.runs} runs × 200 steps) at this rate: ` +
    `${(((map.whole.runs * 200) / runStepsPerHour) * 60).toFixed(0)} min`,
);
rmSync(root, { recursive: true, force: true });
