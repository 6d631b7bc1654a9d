/**
 * The CLI's command line: `lab train --config <file | URL | hash> [--steps N] [--backend B]
 * [--out DIR]` (DESIGN.md "CLI"). Parsing only; main.ts runs the command.
 */
import { parseArgs } from 'node:util';
import { BACKEND_NAMES } from '../core/config';
import type { BackendName } from '../core/config';

export const HELP = `Agentwise Lab — headless runs

Usage:
  npm run lab -- train --config <file | URL | hash> [--steps N] [--backend B] [--out DIR]
                       [--init a.ckpt,b.ckpt] [--quiet]
  npm run lab -- help

Commands:
  train   Runs every run of the experiment (each repeated over its seeds) on the same task
          stream and writes:
            DIR/config.json     the validated experiment, defaults filled in
            DIR/metrics.jsonl   one line per run per step: {"run": <label>, "step": n, ...metrics}
            DIR/summary.json    final avg@k / pass@k, reward, per-agent grad-norm median, max, spikes
  help    Prints this text.

Options:
  --config <x>   A JSON file holding a whole or partial experiment (defaults fill the rest), a lab
                 URL (http://localhost:5173/#v=1&task=math), or a bare hash (v=1&task=math).
                 Default: the default experiment (GRPO vs Dr. MAS on search).
  --steps N      Overrides the experiment's step count.
  --backend B    One of ${BACKEND_NAMES.join(', ')}. Default: wasm (the fastest backend in Node;
                 tfjs-node is not used). auto tries them in order with a sanity check.
  --out DIR      Output folder. Default: runs/<date>-<time>.
  --init FILES   Comma-separated checkpoint files (e.g. downloaded from the lab) to start models
                 from instead of the shipped base models; each must fit one model of the
                 experiment (its agents and size), or the run is refused naming the file.
  --quiet        No progress bars; the summary table is still printed.

Metric names are those of the lab's charts (agent/<name>/grad_norm, reward/mean, eval/avg@K, …).
Exit status: 0 on success, 2 for a bad command line or config (each bad field is named), 1 if a
run failed.`;

export interface TrainArgs {
  command: 'train';
  config: string | null;
  steps: number | null;
  backend: BackendName;
  out: string | null;
  init: string[];
  quiet: boolean;
}
export type CliArgs = TrainArgs | { command: 'help' };

export class UsageError extends Error {}

export function parseCli(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') return { command: 'help' };
  if (command !== 'train') throw new UsageError(`unknown command "${command}"; try: npm run lab -- help`);
  let values;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: {
        config: { type: 'string' },
        steps: { type: 'string' },
        backend: { type: 'string' },
        out: { type: 'string' },
        init: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return { command: 'help' };
  let steps: number | null = null;
  if (values.steps !== undefined) {
    steps = Number(values.steps);
    if (!Number.isInteger(steps) || steps < 1) throw new UsageError(`--steps must be a positive integer, got "${values.steps}"`);
  }
  const backend = (values.backend ?? 'wasm') as BackendName;
  if (!BACKEND_NAMES.includes(backend)) {
    throw new UsageError(`--backend must be one of ${BACKEND_NAMES.join(', ')}; got "${values.backend}"`);
  }
  const init = values.init ? values.init.split(',').filter(Boolean) : [];
  return { command: 'train', config: values.config ?? null, steps, backend, out: values.out ?? null, init, quiet: values.quiet };
}
