/**
 * `lab export tensorboard <run DIR> --out TBDIR`: the CLI side of src/interop. Reads and writes
 * files; the formats themselves live in src/interop (pure, shared with the page).
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eventFileName, writeEventFile } from '../interop/tensorboard';
import type { Row } from '../interop/tensorboard';
import { UsageError } from './args';
import { readMetrics } from './run-dir';

/** A run label as a folder name (TensorBoard shows the folder as the run's name). */
export const runFolder = (label: string): string => label.replace(/[^\w .()+-]+/g, '_');

/** `--name value` options (all strings) and positionals; an unknown option is a usage error. */
function options<K extends string>(argv: readonly string[], names: readonly K[]): { values: Partial<Record<K, string>>; positionals: string[] } {
  const spec = Object.fromEntries(names.map((n) => [n, { type: 'string' as const }]));
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: true });
    return { values: values as Partial<Record<K, string>>, positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Every run of a train --out folder as one event file under TBDIR/<run>/. */
function exportTensorboard(argv: readonly string[]): void {
  const { values, positionals } = options(argv, ['out']);
  if (positionals.length !== 1 || !values.out) throw new UsageError('usage: npm run lab -- export tensorboard <run DIR> --out TBDIR');
  const [dir] = positionals;
  const metricsPath = join(dir, 'metrics.jsonl');
  if (!existsSync(metricsPath)) throw new UsageError(`${dir} has no metrics.jsonl (expected a train --out folder)`);
  const byRun = new Map<string, Row[]>();
  for (const { run, metrics } of readMetrics(metricsPath)) {
    if (!byRun.has(run)) byRun.set(run, []);
    byRun.get(run)!.push(metrics);
  }
  // Wall times count from when the run folder was made (its config.json).
  const configPath = join(dir, 'config.json');
  const wallStart = (existsSync(configPath) ? statSync(configPath).mtimeMs : Date.now()) / 1000;
  for (const [label, rows] of byRun) {
    const folder = join(values.out, runFolder(label));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, eventFileName(wallStart)), writeEventFile(rows, wallStart));
    console.log(`${label}: ${rows.length} steps → ${folder}`);
  }
  console.log(`view with: tensorboard --logdir ${values.out}`);
}

/** `lab export …` and `lab import …`. */
export function runInterop(argv: readonly string[]): void {
  const [command, what, ...rest] = argv;
  if (command === 'export' && what === 'tensorboard') return exportTensorboard(rest);
  throw new UsageError(`unknown command "${argv.slice(0, 2).join(' ')}"; try: npm run lab -- help`);
}
