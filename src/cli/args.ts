/**
 * The CLI's command line: `lab train --config <file | URL | hash> [--steps N] [--backend B]
 * [--out DIR]` (docs/cli.md#the-lab-command-line). Parsing only; main.ts runs the command.
 */
import { parseArgs } from 'node:util';
import { BACKEND_NAMES } from '../core/config-names';
import type { BackendName } from '../core/config-names';
import { nearest } from '../core/config-suggest';
import { ExperimentSchema } from '../core/config';
import { REWARD_TAIL } from '../report/summary';

export const HELP = `Agentwise Lab — headless runs

Usage:
  npm run lab -- train --config <file | URL | hash> [--steps N] [--backend B] [--out DIR]
                       [--force] [--init a.ckpt,b.ckpt] [--checkpoint-every N] [--quiet]
  npm run lab -- train --preset ID [--steps N] [--backend B] [--out DIR] …
  npm run lab -- train --workflow F [--config X | --preset ID] [--steps N] [--out DIR] …
  npm run lab -- pretrain --workflow F --out DIR [--config X | --preset ID] [--seed N] [--target X]
                          [--max-steps N]
  npm run lab -- train --resume DIR [--steps N] [--backend B] [--checkpoint-every N] [--quiet]
  npm run lab -- sweep --config <file | URL | hash> --grid KEY=v1,v2,… [--grid …] --steps N --out DIR
                       [--shard i/n] [--workers K] [--backend B] [--checkpoint-every N] [--quiet]
  npm run lab -- merge SHARD_DIR… --out DIR
  npm run lab -- presets [--json]
  npm run lab -- report DIR [--tail N]
  npm run lab -- export tensorboard DIR --out TBDIR
  npm run lab -- export drmas --config <file | URL | hash> [--models id,…] --out DIR
  npm run lab -- import <files or folders…> --out DIR [--force] [--wg-map wg_ids.json]
  npm run lab -- bundle RUN_DIR --out FILE [--force]
  npm run lab -- help [COMMAND | all]

Commands:
  train   Runs every run of the experiment (each repeated over its seeds) on the same task
          stream and writes:
            DIR/config.json     the validated experiment, defaults filled in, steps = --steps
            DIR/metrics.jsonl   one line per run per step: {"run": <label>, "step": n, ...metrics}
            DIR/summary.json    final avg@k / pass@k, reward, per-agent grad-norm median, max, spikes
            DIR/machine.json    where it ran, an entry per session (a resume adds one): date,
                                commit (and whether the tree was dirty), CPU, cores, Node, backend,
                                relaxed SIMD on or off
            DIR/checkpoints/    each run's state (weights, optimizer moments, step, live
                                parameters), replaced every --checkpoint-every steps and at the end
            DIR/rollouts/       each run's latest rollouts as the page's inspector shows them,
                                written with its state and at the end (lab bundle shares them)
          It first prints the config's memory estimate, and refuses a config that needs more
          than the wasm backend's 4 GB ("needs about X GB").
          Ctrl-C (SIGINT) or SIGTERM: every run finishes the step in flight and saves its state
          where it stands (unless --checkpoint-every 0), no summary.json is written, and it
          exits 130 (143); --resume DIR goes on from there. A second signal quits at once,
          keeping every line and state already written.
          With several seeds it also prints each run's mean ± 95 % CI over seeds, the paired
          difference from the first run (same seed, same task stream) and a verdict computed
          from its CI: the same numbers as the page's Findings view.
  pretrain
          Prepares a workflow's base models: each agent learns its demonstrator's answers (from
          its reward rule) until every agent's own validation success reaches the workflow's
          base.ownSuccess (default 0.15; each model stops learning once its agents have), or,
          with base.ownSuccess 0, the team's reaches --target (default base.success, 0.3); at
          --max-steps (default 600) it stops short and says so. DIR gets one checkpoint per
          model and manifest.json (recipe, steps, validation success, each agent's own).
          train --workflow F --init DIR starts from them; without --init, train finds the ones
          it prepared itself in .lab-cache/base-models/, or pretrains first and says so. See
          docs/workflows.md.
  sweep   Runs the experiment once per cell of a grid of link fields (the cartesian product
          of the --grid dials), each cell an ordinary train folder under DIR/cells/, listed in
          DIR/sweep.json; --shard i/n runs one of n disjoint slices (a Slurm array task, a
          Kubernetes Indexed Job pod), --workers K trains K cells at once. Rerunning the same
          command goes on where it stopped. npm run lab -- sweep --help says more.
  merge   Joins the folders of sweep --shard runs into one sweep folder, the same cell for
          cell as the unsharded sweep; refuses shards of different sweeps or overlapping cells.
  presets Lists the named experiments the page offers (one list for both): id, title, task and
          the experiment hash (--json: also the blurb and the whole config).
  report  Prints the summary and seed comparison tables again from DIR/config.json and
          DIR/metrics.jsonl (of a finished, stopped or running train), or of a lab import
          folder from DIR/import.json and DIR/metrics.jsonl: each run with its own agents and
          eval K, groups compared over the seeds their run names end in. --tail N: the
          training reward is averaged over the last N steps (default ${REWARD_TAIL}, as the page's
          Findings view). On a sweep folder: the map, a row per figure and cell, with each
          later run's paired difference from the first run (eval, reward, each agent's own
          success, gradient norms, spikes), its 95 % CI and verdict. A line of metrics.jsonl that is not a record (cut off by a crash) is
          skipped with a warning naming its line number; --resume drops it, saying so.
  export tensorboard
          Writes each run of DIR/metrics.jsonl as a TensorBoard event file,
          TBDIR/<run>/events.out.tfevents.*, one event per step, every metric a scalar under
          its lab name (float32), so \`tensorboard --logdir TBDIR\` shows lab runs beside
          cluster runs. Each file carries its run's card (label, seed, agents, live changes;
          TensorBoard's Text tab), so lab import reads it back as that run wherever it lies.
  export drmas
          Writes the experiment as Dr. MAS launch scripts (langfengQ/DrMAS, verl on Ray):
          DIR/run_<task>_<run>.sh per run, shaped like Dr. MAS's run_math.sh / run_search.sh,
          every lab setting with a counterpart carried as a Hydra override; DIR/wg_ids.json
          for import --wg-map; DIR/README.md (what maps and what does not, data preparation,
          ray job submit and Slurm, compute). --models: Hugging Face ids standing in for the
          nano policies, one for all agents or one per agent (default Qwen/Qwen3-4B). Tasks
          math and search only, estimators grpo and drmas only; anything else is refused
          naming the field (exit status 2).
  import  Reads TensorBoard event files (a folder of them is one run, as in TensorBoard), W&B
          history CSVs (one run per file, or per "<run> - <metric>" column) and the page's CSV
          and JSON exports (each run with its seed; a JSON only when given itself) into
          DIR/metrics.jsonl (lines as train writes them) and DIR/import.json (per run: files,
          records read and skipped, the name of every series and the lab key it became).
          An event file's run is its folder under the one given (logs/grpo/seed1 → grpo/seed1);
          a run name ending in a seed (GRPO #2, grpo_seed2, grpo/seed2, grpo-s2) is that seed
          of its group (grpo #2), for lab report's and the page's comparison over seeds.
          Dr. MAS / verl names become lab keys (actor/<wg_id>/grad_norm → agent/<name>/grad_norm,
          critic/score/mean → reward/mean, val/avg@K → eval/avg@K, …); others are kept as
          other/<name>. A record with a bad CRC or length is skipped and counted, a file cut off
          mid-record is read up to the cut; neither stops the import. --wg-map gives the agents
          of each Dr. MAS worker group (lab export drmas writes it); without it they are
          inferred from the wg_id and printed. What would merge two runs into one is refused
          naming the files: one run in two exports, two card-less event files of one name
          given without their folders, a CSV run with a step on two lines. As for train, an
          --out folder that holds a run (trained or imported) is refused; --force moves it
          aside to <DIR>.old-<time>.
  bundle  Writes a train, sweep or import folder as one result file (FILE, *.lab.json.gz) to
          share what ran: every run's and seed's metrics as recorded, the experiment with its
          live changes, Findings and What differs as lab report and the page compute them, a
          sweep's Map table, and machine.json; a SHA-256 of its content, printed. No
          checkpoints. The file is read back before it is written; an existing FILE is kept
          unless --force. The page opens it read-only (docs/sharing.md).
  help    Prints a summary, one line a command; help COMMAND that command's part of this text;
          help all this text.

Options:
  --config <x>   A JSON file holding a whole or partial experiment (defaults fill the rest), a lab
                 URL (the page's address as the browser shows it, …/#v=1&task=math), or a bare
                 hash (v=1&task=math).
                 Default: the default experiment (GRPO vs Dr. MAS on search).
  --preset ID    One of the named experiments (npm run lab -- presets); not with --config.
  --workflow F   A workflow file (JSON or YAML: your own agents, data, flow and rewards,
                 docs/workflows.md), with its dataset file beside it; it replaces the task of
                 the experiment --config or --preset gives (default: the default experiment's
                 runs, GRPO vs Dr. MAS). Refused before anything trains, naming the line, stage
                 or field, if it cannot train.
  --steps N      Overrides the experiment's step count. With --resume: the run's own count
                 (from its config.json) unless N raises it.
  --backend B    One of ${BACKEND_NAMES.join(', ')}. Default: wasm (the fastest backend in Node;
                 tfjs-node is not used). auto sanity-checks each and, when more than one passes
                 (webgpu through a Dawn shim), keeps the fastest by a timed train step.
                 wasm runs on 1 thread here: tfjs turns wasm threads off in Node (tfjs issue
                 3830); the page's wasm threads (backend panel) need a cross-origin isolated browser.
  --out DIR      Output folder. Default: runs/<date>-<time>. A folder that already holds a run
                 is refused (nothing recorded is ever overwritten); one process at a time per
                 folder (DIR/.lock).
  --force        Move a run already in --out aside to <DIR>.old-<time> (never deleted) first.
  --init FILES   Comma-separated checkpoint files (e.g. downloaded from the lab), or folders of
                 them (lab pretrain --out DIR), to start models from instead of the shipped base
                 models; each must fit one model of the experiment (its agents and size), or the
                 run is refused naming the file.
  --checkpoint-every N
                 Save each run's state every N steps and after its last step (default 25;
                 0 = never).
  --resume DIR   Go on with the runs of an earlier train --out DIR (stopped, crashed or finished;
                 raise --steps to train further). Reads DIR/config.json and each run's state in
                 DIR/checkpoints/, drops the metrics.jsonl lines after the saved steps and
                 recomputes them: on the same backend and kernels (LAB_SIMD) they come out
                 identical. A run whose lines before its state are missing starts over from
                 step 0 to recompute them (it says so). Cannot be combined with --config, --out, --force or --init.
  --quiet        No progress bars; the summary table is still printed.

Environment:
  LAB_SIMD=plain The wasm kernels' plain-SIMD build instead of relaxed SIMD (fused multiply-add,
                 the default): a second kernel set on one machine, whose float32 sums round
                 differently, to check which of a table's verdicts hold across machines
                 (the backend line and machine.json say which ran; --resume warns when it
                 differs from the folder's last session). Empty is unset; any value but relaxed
                 or plain: exit status 2. Sweep cells and npm run studies inherit it.

Metric names are those of the lab's charts (agent/<name>/grad_norm, reward/mean, eval/avg@K, …).
Exit status: 0 on success, 2 for a bad command line or config (each bad field is named), 1 if a
run failed, or never trained (every model update skipped for non-finite values; a warning says
which). The summary table's "skipped" column counts each run's skipped updates; two legend lines
under the table say what its reward, skipped and |g| med/max/spikes columns hold.`;

export interface TrainArgs {
  command: 'train';
  config: string | null;
  /** A workflow file: the experiment's task becomes it. */
  workflow: string | null;
  /** A preset id (src/core/presets.ts); exclusive with `config`. */
  preset: string | null;
  steps: number | null;
  backend: BackendName;
  out: string | null;
  init: string[];
  checkpointEvery: number;
  resume: string | null;
  force: boolean;
  quiet: boolean;
}
export interface PretrainArgs {
  command: 'pretrain';
  workflow: string;
  config: string | null;
  preset: string | null;
  out: string;
  seed: number;
  target: number | null;
  maxSteps: number | null;
}
type CliArgs =
  | TrainArgs
  | PretrainArgs
  | { command: 'report'; dir: string; tail: number }
  | { command: 'presets'; json: boolean }
  | { command: 'interop'; argv: string[] }
  | { command: 'sweep'; argv: string[] }
  | { command: 'merge'; argv: string[] }
  | { command: 'bundle'; argv: string[] }
  /** `topic`: a command (help train), `all`, or none for the summary (help.ts). */
  | { command: 'help'; topic?: string };

export class UsageError extends Error {}

/** The commands, for `help` and for "did you mean" on a mistyped one. */
export const COMMANDS = [
  'train',
  'pretrain',
  'sweep',
  'merge',
  'report',
  'presets',
  'export',
  'import',
  'bundle',
  'help',
];

/** A name the user typed (`trian`, `--stpes`) refused, with the one of `names` it most likely meant, or them all. */
export function unknownName(what: string, typed: string, names: readonly string[]): string {
  const meant = nearest(typed, names);
  return `${what}; ${meant ? `did you mean ${meant}?` : `one of: ${names.join(', ')}`}`;
}

/** parseArgs's refusal in the lab's words: an unknown option with the one it most likely meant. */
function optionRefusal(e: Error & { code?: string }, options: OptionSpec): string {
  const m = /^Unknown option '([^']+)'/.exec(e.message);
  if (!m) return e.message;
  // An experiment's own field given as a flag (`--seeds 3`, once in the workflow tutorial): say
  // where it goes, not which flag it is nearest to (--steps, which means something else).
  const field = m[1].replace(/^--/, '').split('=')[0];
  if (Object.hasOwn(ExperimentSchema.shape, field) && !Object.hasOwn(options, field))
    return `Unknown option '${m[1]}': ${field} is a field of the experiment, not a flag; give it in --config (e.g. --config 'v=1&${field}=…')`;
  return unknownName(
    `Unknown option '${m[1]}'`,
    m[1],
    Object.keys(options).map((o) => `--${o}`),
  );
}

/**
 * `--flag N` as a whole number ≥ min, or a usage error in the lab's words:
 * `--steps must be a whole number ≥ 1; got "-1"`.
 */
export function wholeNumber(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min)
    throw new UsageError(`--${flag} must be a whole number ≥ ${min}; got "${text}"`);
  return n;
}

/**
 * The arguments with `--flag -1` written `--flag=-1` where --flag takes a value: node's parser
 * refuses a value that starts with a dash as "ambiguous", so a negative number would never reach
 * the lab's own check, which says what the flag must be.
 */
function signedValuesJoined(argv: readonly string[], valued: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    const takes = argv[i].startsWith('--') && valued.includes(argv[i].slice(2));
    if (takes && next !== undefined && /^-(\d|\.\d|Infinity)/.test(next)) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

type OptionSpec = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;

/**
 * A command's options (strict: an unknown one is refused) and positionals; a bad option is a
 * usage error with parseArgs's message, then `usage` where given. A dash-led number after an
 * option that takes a value is that option's value (signedValuesJoined), for the lab's own check.
 */
export function parseOptions<T extends OptionSpec>(argv: readonly string[], options: T, usage?: string) {
  const valued = Object.keys(options).filter((k) => options[k].type === 'string');
  try {
    return parseArgs({
      args: signedValuesJoined(argv, valued),
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    const message = optionRefusal(e as Error, options);
    throw new UsageError(usage ? `${message}; ${usage}` : message);
  }
}

export function parseCli(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') return { command: 'help' };
  if (command === 'help')
    return { command: 'help', topic: rest[0] === '--help' || rest[0] === '-h' ? undefined : rest[0] };
  // Every command's --help (-h) is its `help COMMAND`, not an unknown option.
  if (COMMANDS.includes(command) && rest.some((a) => a === '--help' || a === '-h'))
    return { command: 'help', topic: command };
  if (command === 'report') {
    const usage = 'usage: npm run lab -- report DIR [--tail N] (a train --out or import --out folder)';
    const parsed = parseOptions(rest, { tail: { type: 'string' } }, usage);
    if (parsed.positionals.length !== 1) throw new UsageError(usage);
    const tail = parsed.values.tail === undefined ? REWARD_TAIL : wholeNumber('tail', parsed.values.tail, 1);
    return { command: 'report', dir: parsed.positionals[0], tail };
  }
  if (command === 'presets') {
    if (rest.some((a) => a !== '--json')) throw new UsageError('usage: npm run lab -- presets [--json]');
    return { command: 'presets', json: rest.includes('--json') };
  }
  if (command === 'export' || command === 'import') return { command: 'interop', argv: [...argv] }; // parsed in interop.ts
  // parsed in sweep-args.ts
  if (command === 'sweep') return { command, argv: rest };
  if (command === 'merge') return { command, argv: rest };
  if (command === 'bundle') return { command, argv: rest }; // parsed in bundle.ts
  if (command === 'pretrain') return parsePretrain(rest);
  if (command !== 'train')
    throw new UsageError(
      `${unknownName(`unknown command "${command}"`, command, COMMANDS)} (npm run lab -- help lists them)`,
    );
  let values;
  const options = {
    config: { type: 'string' },
    preset: { type: 'string' },
    workflow: { type: 'string' },
    steps: { type: 'string' },
    backend: { type: 'string' },
    out: { type: 'string' },
    init: { type: 'string' },
    'checkpoint-every': { type: 'string' },
    resume: { type: 'string' },
    force: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  } as const;
  try {
    ({ values } = parseArgs({
      args: signedValuesJoined(rest, ['steps', 'checkpoint-every']),
      options,
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(optionRefusal(e as Error, options));
  }
  if (values.help) return { command: 'help', topic: 'train' };
  const steps = values.steps === undefined ? null : wholeNumber('steps', values.steps, 1);
  const backend = (values.backend ?? 'wasm') as BackendName;
  if (!BACKEND_NAMES.includes(backend)) {
    throw new UsageError(`--backend must be one of ${BACKEND_NAMES.join(', ')}; got "${values.backend}"`);
  }
  const init = values.init ? values.init.split(',').filter(Boolean) : [];
  const every = values['checkpoint-every'];
  const checkpointEvery = every === undefined ? 25 : wholeNumber('checkpoint-every', every, 0);
  const resume = values.resume ?? null;
  if (resume !== null) {
    const clash = [
      ...(['config', 'preset', 'workflow', 'out', 'init'] as const).filter((k) => values[k] !== undefined),
      ...(values.force ? ['force'] : []),
    ];
    if (clash.length)
      throw new UsageError(
        `--resume takes the config and folder of the run it resumes; drop --${clash.join(', --')}`,
      );
  }
  if (values.preset !== undefined && values.config !== undefined)
    throw new UsageError('--preset and --config both name the experiment; give one');
  return {
    command: 'train',
    config: values.config ?? null,
    preset: values.preset ?? null,
    workflow: values.workflow ?? null,
    steps,
    backend,
    out: values.out ?? null,
    init,
    checkpointEvery,
    resume,
    force: values.force,
    quiet: values.quiet,
  };
}

/** `lab pretrain --workflow F --out DIR [--seed N] [--target X] [--max-steps N] [--config X | --preset ID]`. */
function parsePretrain(argv: readonly string[]): PretrainArgs | { command: 'help'; topic: 'pretrain' } {
  const usage =
    'usage: npm run lab -- pretrain --workflow F --out DIR [--config X | --preset ID] [--seed N] [--target X] [--max-steps N]';
  const { values: v, positionals } = parseOptions(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      workflow: { type: 'string' },
      out: { type: 'string' },
      config: { type: 'string' },
      preset: { type: 'string' },
      seed: { type: 'string' },
      target: { type: 'string' },
      'max-steps': { type: 'string' },
    },
    usage,
  );
  if (v.help) return { command: 'help', topic: 'pretrain' };
  if (positionals.length) throw new UsageError(`pretrain takes no "${positionals[0]}"; ${usage}`);
  if (v.workflow === undefined || v.out === undefined) throw new UsageError(usage);
  if (v.preset !== undefined && v.config !== undefined)
    throw new UsageError('--preset and --config both name the experiment; give one');
  const target = v.target === undefined ? null : Number(v.target);
  if (target !== null && !(target > 0 && target <= 1))
    throw new UsageError(`--target must be a number in (0, 1]; got "${v.target}"`);
  return {
    command: 'pretrain',
    workflow: v.workflow,
    out: v.out,
    config: v.config ?? null,
    preset: v.preset ?? null,
    seed: v.seed === undefined ? 0 : wholeNumber('seed', v.seed, 0),
    target,
    maxSteps: v['max-steps'] === undefined ? null : wholeNumber('max-steps', v['max-steps'], 1),
  };
}
