/**
 * Result file sizes (docs/sharing.md#sizes): the default experiment trained for 200 steps and a
 * sweep, each bundled as `lab bundle` bundles it, with its size, its bytes per frame and the time
 * to write and read it; then the standard map's size (180 runs × 200 steps) estimated as the
 * sweep's bytes per frame × 36,000 frames, and checked by writing and reading a file of that many
 * frames: the sweep's runs repeated into as many cells as it takes (each run's frames are far
 * longer than gzip's 32 KB window, so a repeated run compresses no better than a new one).
 *
 * `npm run bench:result -- [--train DIR] [--sweep DIR] [--runs 180] [--steps 200]`. Without
 * --train it trains the default experiment for 200 steps, without --sweep two cells of the
 * standard map (sync-own, alice's reward × 4, shared and per-agent models, GRPO, Dr. MAS and
 * global-step × 5 seeds, 200 steps), each into a temporary folder (minutes each).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { folderResult } from '../src/cli/bundle';
import { readResult, writeResult } from '../src/report/result-file';
import type { ResultBody } from '../src/report/result-format';
import { median, scriptArgs } from './cli-args';

const USAGE = `Usage: npm run bench:result -- [--train DIR] [--sweep DIR] [--runs 180] [--steps 200]

Result file sizes: bundles a train folder of the default experiment (200 steps) and a sweep
folder as lab bundle does, prints each file's size, bytes per frame and write and read times, and
estimates the size of a sweep of --runs runs × --steps steps from the sweep's bytes per frame,
checked by writing and reading a file of that many frames. Without --train or --sweep it trains
them first, into a temporary folder (minutes each).`;

const values = scriptArgs(USAGE, {
  train: { type: 'string' },
  sweep: { type: 'string' },
  runs: { type: 'string' },
  steps: { type: 'string' },
});
const RUNS = Number(values.runs ?? 180);
const STEPS = Number(values.steps ?? 200);
const MAP =
  'v=1&task=sync-own&seeds=5&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr. MAS' +
  '&runs.1.estimator=drmas&runs.2.label=global-step&runs.2.estimator=global-step';

function lab(args: string[]): void {
  console.log(`npm run lab -- ${args.join(' ')}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--quiet'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const temp = () => mkdtempSync(join(tmpdir(), 'agentwise-bench-result-'));
const trainDir = values.train ?? join(temp(), 'default');
if (!values.train) lab(['train', '--steps', '200', '--out', trainDir]);
const sweepDir = values.sweep ?? join(temp(), 'map');
if (!values.sweep)
  lab([
    ...['sweep', '--config', MAP, '--grid', 'models.assignment=shared,per-agent'],
    ...['--grid', 'reward.scale.alice=4', '--steps', '200', '--out', sweepDir],
  ]);

const MB = (n: number) => `${(n / 2 ** 20).toFixed(2)} MB`;
const framesOf = (b: ResultBody) => b.runs.reduce((n, r) => n + r.frames.length, 0);

/** Writes and reads a body 3 times; its size and the median times. */
function measure(name: string, body: ResultBody): number {
  let bytes: Uint8Array = new Uint8Array();
  const write: number[] = [];
  const read: number[] = [];
  for (let i = 0; i < 3; i++) {
    let t0 = performance.now();
    bytes = writeResult(body);
    write.push(performance.now() - t0);
    t0 = performance.now();
    readResult(bytes);
    read.push(performance.now() - t0);
  }
  const frames = framesOf(body);
  const keys = Math.max(...body.runs.map((r) => r.keys.length));
  console.log(
    `${name}: ${body.runs.length} runs, ${frames} frames of up to ${keys} keys → ${MB(bytes.length)} ` +
      `(${Math.round(bytes.length / frames)} bytes per frame); write ${median(write).toFixed(0)} ms, read ${median(read).toFixed(0)} ms`,
  );
  return bytes.length / frames;
}

measure(`train ${trainDir}`, folderResult(trainDir));
const sweep = folderResult(sweepDir);
const perFrame = measure(`sweep ${sweepDir}`, sweep);
console.log(
  `${RUNS} runs × ${STEPS} steps at the sweep's bytes per frame: ${MB(perFrame * RUNS * STEPS)} (estimate)`,
);
// The sweep's cells repeated until it has RUNS runs: the estimate, written and read.
const copies = Math.ceil(RUNS / sweep.runs.length);
const cells = sweep.experiments.length;
const tiled: ResultBody = {
  ...sweep,
  experiments: Array.from({ length: copies }, () => sweep.experiments).flat(),
  runs: Array.from({ length: copies }, (_, c) =>
    sweep.runs.map((r) => ({ ...r, experiment: r.experiment + c * cells })),
  )
    .flat()
    .slice(0, RUNS),
};
measure(`the sweep's runs repeated to ${RUNS}`, tiled);
