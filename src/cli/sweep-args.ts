/** `lab sweep` and `lab merge` command lines and help. Parsing only; sweep.ts runs them. */
import { BACKEND_NAMES } from '../core/config-names';
import type { BackendName } from '../core/config-names';
import { parseDial, parseShard, SweepRefused } from '../rl/sweep';
import type { SweepFile } from '../rl/sweep';
import type { Dial } from '../core/url-sweep';
import { parseOptions, UsageError, wholeNumber } from './args';

export const SWEEP_HELP = `Usage:
  npm run lab -- sweep --config <file | URL | hash> --grid KEY=v1,v2,… [--grid …] --steps N --out DIR
  npm run lab -- sweep --workflow F [--config …] --grid workflow.mix=0,0.5,1 --steps N --out DIR
                       [--shard i/n] [--workers K] [--backend B] [--checkpoint-every N] [--quiet]

Runs the experiment once per cell of the grid: the cartesian product of the --grid dials, the
first dial varying slowest. A --config link that carries the page's sweep keys
(&sweep.KEY=v1,v2,…, as the page's link sweep writes them) brings those dials first, in the
link's order; --grid flags add dials after them, and a key in both is refused: the link's sweep
and lab sweep are the same experiment. KEY is any field a lab link takes (optim.lr, rollout.groupSize,
runs.1.estimator, …) and each value is checked as that link field is: a value the config refuses
is refused before anything runs, naming the key and value. Values holding a comma are separated
by ';' instead. Every cell is an ordinary train folder, DIR/cells/<n>_<key>-<value>…, with all
the config's runs × seeds; DIR/sweep.json lists the cells ({"params": {KEY: value}, "dir": …}).

  --shard i/n    Run only the i-th (0 ≤ i < n) of n disjoint slices (cells i, i+n, i+2n, …), e.g.
                 --shard $SLURM_ARRAY_TASK_ID/4 in a Slurm array, --shard $JOB_COMPLETION_INDEX/4
                 in a Kubernetes Indexed Job; each shard its own --out, joined by lab merge.
  --workflow F   A workflow file (docs/workflows.md) replaces the task of the experiment
                 --config gives; its fields sweep like any other (workflow.mix,
                 workflow.rewards.<agent>.mix, …). Its base models are prepared once, before
                 the cells start, and every cell starts from them.
  --workers K    Train K cells at once, each in a thread of its own (default 1; about one per core).
  --steps, --backend, --checkpoint-every, --quiet: as for train; so is LAB_SIMD=plain (the
                 wasm kernels' plain-SIMD build), which every cell's thread inherits.

Running the same command again goes on where it stopped: finished cells are kept, a cell cut off
mid-way resumes from its saved state (as train --resume), untouched cells start. Ctrl-C or
SIGTERM: every cell in flight finishes its step and saves its state, exit 130 (143); a second
signal quits at once. npm run lab -- report DIR prints the map. See docs/sweeps.md.`;

export const MERGE_HELP = `Usage:
  npm run lab -- merge SHARD_DIR… --out DIR

Joins the folders of lab sweep --shard runs into one sweep folder: DIR/sweep.json as the unsharded
sweep writes it and every cell folder copied. Refuses shards of different sweeps (config, grid or
steps) and a cell held by two shards, naming them; a cell no shard holds is named and left to run:
the sweep command with --out DIR runs it. See docs/sweeps.md.`;

export interface SweepArgs {
  command: 'sweep';
  config: string | null;
  /** A workflow file: the swept experiment's task (docs/workflows.md#on-the-command-line). */
  workflow: string | null;
  grid: Dial[];
  steps: number;
  out: string;
  shard: SweepFile['shard'];
  workers: number;
  backend: BackendName;
  checkpointEvery: number;
  quiet: boolean;
}
export interface MergeArgs {
  command: 'merge';
  shards: string[];
  out: string;
}

/** `argv` after `sweep`; null for --help. */
export function parseSweep(argv: readonly string[]): SweepArgs | null {
  const usage = 'npm run lab -- sweep --help';
  const { values: v, positionals } = parseOptions(
    argv,
    {
      config: { type: 'string' },
      workflow: { type: 'string' },
      grid: { type: 'string', multiple: true },
      steps: { type: 'string' },
      out: { type: 'string' },
      shard: { type: 'string' },
      workers: { type: 'string' },
      backend: { type: 'string' },
      'checkpoint-every': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    usage,
  );
  if (v.help) return null;
  if (positionals.length) throw new UsageError(`sweep takes no "${positionals[0]}"; ${usage}`);
  const grid = (v.grid ?? []) as string[];
  // A --config link may carry the dials itself (sweep.KEY=…): sweep.ts reads it and checks again.
  if (!grid.length && typeof v.config !== 'string')
    throw new UsageError(`sweep needs at least one --grid KEY=v1,v2,…; ${usage}`);
  if (typeof v.out !== 'string') throw new UsageError(`sweep needs --out DIR; ${usage}`);
  if (typeof v.steps !== 'string') throw new UsageError(`sweep needs --steps N; ${usage}`);
  const backend = (v.backend ?? 'wasm') as BackendName;
  if (!BACKEND_NAMES.includes(backend))
    throw new UsageError(`--backend must be one of ${BACKEND_NAMES.join(', ')}; got "${v.backend}"`);
  try {
    return {
      command: 'sweep',
      config: (v.config as string | undefined) ?? null,
      workflow: (v.workflow as string | undefined) ?? null,
      grid: grid.map(parseDial),
      steps: wholeNumber('steps', v.steps, 1),
      out: v.out,
      shard: typeof v.shard === 'string' ? parseShard(v.shard) : null,
      workers: typeof v.workers === 'string' ? wholeNumber('workers', v.workers, 1) : 1,
      backend,
      checkpointEvery:
        typeof v['checkpoint-every'] === 'string'
          ? wholeNumber('checkpoint-every', v['checkpoint-every'], 0)
          : 25,
      quiet: v.quiet === true,
    };
  } catch (e) {
    throw e instanceof SweepRefused ? new UsageError(e.message) : e;
  }
}

/** `argv` after `merge`; null for --help. */
export function parseMerge(argv: readonly string[]): MergeArgs | null {
  const usage = 'npm run lab -- merge SHARD_DIR… --out DIR';
  const { values: v, positionals } = parseOptions(
    argv,
    { out: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    usage,
  );
  if (v.help) return null;
  if (typeof v.out !== 'string' || !positionals.length) throw new UsageError(`usage: ${usage}`);
  return { command: 'merge', shards: positionals, out: v.out };
}
