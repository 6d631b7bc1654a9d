/**
 * Import speed: a TensorBoard event file of N records (default 100,000), one scalar each as
 * Dr. MAS writes them (torch SummaryWriter.add_scalar: one Event per scalar), read and mapped by
 * importFiles. Prints records per second (median of --reps). Writes the file to --out (default
 * bench/events-100k/) for the page's drop-zone benchmark. `npm run bench:import -- [--records N] [--reps R]`
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptArgs } from './cli-args';
import { importFiles } from '../src/interop/import';
import { encodeFileVersion, encodeScalars } from '../src/interop/tb-event';
import { frameRecords } from '../src/interop/tfrecord';

const USAGE = `Usage: npm run bench:import -- [--records 100000] [--reps 5] [--out bench/events-100k/drmas_math]

Import speed: writes a TensorBoard event file of N scalar records as Dr. MAS writes them, reads
it back with importFiles, and prints records per second (median of --reps).`;

const values = scriptArgs(USAGE, {
  records: { type: 'string' },
  reps: { type: 'string' },
  out: { type: 'string' },
});
const n = Number(values.records ?? 100_000);
const reps = Number(values.reps ?? 5);
const out = values.out ?? 'bench/events-100k/drmas_math';

const tags = [
  ...['SolverAgent', 'VerifierAgent'].flatMap((a) =>
    ['grad_norm', 'pg_loss', 'pg_clipfrac', 'ppo_kl'].map((s) => `actor/Qwen3-4B_${a}/${s}`),
  ),
  'critic/score/mean',
  'response_length/mean',
];
const records = [encodeFileVersion(1.7e9)];
for (let i = 0; i < n - 1; i++) {
  const step = Math.floor(i / tags.length);
  records.push(encodeScalars(step, 1.7e9 + step, [[tags[i % tags.length], Math.sin(i)]]));
}
const bytes = frameRecords(records);
mkdirSync(out, { recursive: true });
const path = join(out, 'events.out.tfevents.1700000000.bench');
writeFileSync(path, bytes);

const times: number[] = [];
let steps = 0;
for (let r = 0; r < reps; r++) {
  const t0 = performance.now();
  const { runs } = importFiles([{ path: 'bench/drmas_math/events.out.tfevents.1700000000.bench', bytes }]);
  times.push(performance.now() - t0);
  steps = runs[0].rows.length;
}
const median = times.sort((a, b) => a - b)[Math.floor(reps / 2)];
console.log(
  `${n} records (${(bytes.length / 1e6).toFixed(1)} MB, ${steps} steps) → median ${median.toFixed(0)} ms, ${Math.round(n / (median / 1000)).toLocaleString('en')} records/s (${reps} reps; file at ${path})`,
);
