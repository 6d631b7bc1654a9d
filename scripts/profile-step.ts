/**
 * Where a train step's time goes in Node, and what saving its run state costs
 * (docs/figures.md#where-a-steps-time-goes): the experiment's runs in lockstep as `lab train`
 * runs them (wasm, in-process environments, shipped base models), and after each step the save
 * path the page's run worker takes, part by part: the state read (one read of every weight
 * and moment, unsealed), its check (the fast hash IndexedDB's copy carries), one structured clone
 * of it (what an IndexedDB put copies); and what a file costs beside: the state sealed (its
 * checkpoints and itself hashed) and encoded. Milliseconds of wall time and of this process's
 * CPU, medians over the steps after the first.
 *
 *   npx tsx scripts/profile-step.ts [--config 'v=1'] [--steps 12]
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { cpus, loadavg } from 'node:os';
import { M } from '../src/core/metrics';
import { runRepeats } from '../src/core/config';
import { enableRelaxedSimd } from '../src/backends/relaxed-simd-node';
import { loadConfig } from '../src/cli/load-config';
import { loadShippedBase } from '../src/cli/base-models';
import { InProcessEnvRunner } from '../src/tasks/env';
import { encodeRunState, sealRunState, stateCheck } from '../src/train/run-state';
import { readRunState } from '../src/train/trainer-state';
import { RunTrainer } from '../src/train/trainer';
import { arg, median } from './cli-args';

enableRelaxedSimd();
await tf.setBackend('wasm');
const exp = loadConfig(arg('config', 'v=1'));
const steps = Number(arg('steps', '12'));
const { checkpoints } = await loadShippedBase(exp);
const trainers = runRepeats(exp).map(
  ({ seed, runIndex }) =>
    new RunTrainer({ exp, run: exp.runs[runIndex], seed, base: checkpoints, env: new InProcessEnvRunner() }),
);

/** Wall and CPU ms of `f`. */
async function timed<T>(f: () => T | Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const [w0, c0] = [performance.now(), process.cpuUsage()];
  const value = await f();
  const c = process.cpuUsage(c0);
  return { value, wall: performance.now() - w0, cpu: (c.user + c.system) / 1000 };
}

const rows: Record<string, { wall: number[]; cpu: number[] }> = {};
const put = (name: string, wall: number, cpu = NaN) => {
  const r = (rows[name] ??= { wall: [], cpu: [] });
  r.wall.push(wall);
  r.cpu.push(cpu);
};
let bytes = 0;
console.log(
  `[profile-step] ${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (let s = 0; s < steps; s++) {
  for (const t of trainers) {
    const step = await timed(() => t.trainStep());
    const m = step.value.metrics;
    const read = await timed(() => readRunState(t, { reason: 'periodic' }));
    const check = await timed(() => stateCheck(read.value));
    const clone = await timed(() => structuredClone(read.value));
    const sealed = await timed(() => sealRunState(read.value));
    const file = await timed(() => encodeRunState(sealed.value));
    bytes = file.value.byteLength;
    if (s === 0) continue; // the first step compiles and warms up
    put('step (all phases)', step.wall, step.cpu);
    put('  rollout', m[M.rolloutMs]);
    put('  update', m[M.updateMs]);
    put('  evaluation (steps with one)', m[M.evalMs] || NaN);
    put('  rewards, advantages, metrics', step.wall - m[M.rolloutMs] - m[M.updateMs] - m[M.evalMs]);
    put('save: read the state (one read, unsealed)', read.wall, read.cpu);
    put('save: its check (hashWords)', check.wall, check.cpu);
    put('save: one structured clone of it', clone.wall, clone.cpu);
    put('a file: seal the state (hashBytes, twice)', sealed.wall, sealed.cpu);
    put('a file: encode it', file.wall, file.cpu);
  }
}
for (const t of trainers) t.dispose();
const fmt = (xs: number[]) => {
  const v = xs.filter((x) => !Number.isNaN(x));
  return v.length ? median(v).toFixed(1) : '–';
};
console.log(
  `state: ${(bytes / 1e6).toFixed(2)} MB per run; medians over steps 1–${steps - 1} of ${trainers.length} runs`,
);
console.log('part'.padEnd(48) + 'wall ms'.padStart(9) + 'cpu ms'.padStart(9));
for (const [name, r] of Object.entries(rows))
  console.log(name.padEnd(48) + fmt(r.wall).padStart(9) + fmt(r.cpu).padStart(9));
console.log(
  `load average after: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
