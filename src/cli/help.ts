/**
 * `lab help`: a summary a screen long, and `help COMMAND` for one command: its usage lines, what
 * it does and writes, and (train, pretrain) the options, read out of the whole text (HELP in
 * args.ts, `help all`), so the two never say different things. `sweep` and `merge` keep their
 * own text (sweep-args.ts).
 */
import { COMMANDS, HELP, UsageError, unknownName } from './args';
import { MERGE_HELP, SWEEP_HELP } from './sweep-args';

/** What `help` alone prints: every command in a line, how to read more, and the exit status. */
export const HELP_SUMMARY = `Agentwise Lab — the page's experiments, headless

Usage: npm run lab -- COMMAND [options]

  train     trains an experiment's runs: --preset ID, --config <file | URL | hash>, or --workflow F
  pretrain  prepares a workflow's base models: --workflow F --out DIR
  sweep     trains the experiment once per cell of a grid of fields: --grid KEY=v1,v2,…
  merge     joins the folders of sweep --shard runs into one sweep folder
  report    prints a train, import or sweep folder's tables again: report DIR
  presets   lists the page's named experiments (ids for --preset)
  export    writes TensorBoard event files, or Dr. MAS launch scripts
  import    reads TensorBoard and W&B runs into a lab folder
  bundle    writes a train, sweep or import folder as one result file to share

  npm run lab -- help COMMAND   what a command takes, does and writes (help all: everything)
Exit status: 0 done, 2 a bad command line or config (each bad field named), 1 a run failed.`;

/** HELP's lines under `heading` ("Usage:", "Commands:", …) up to the next blank line. */
function block(heading: string): string[] {
  const lines = HELP.split('\n');
  const start = lines.indexOf(heading);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Entries of a block: each a line at two spaces' indent ("  train   Runs …") and the deeper ones after it. */
function entries(lines: readonly string[]): string[][] {
  const out: string[][] = [];
  for (const l of lines) {
    if (/^ {2}\S/.test(l) || out.length === 0) out.push([l]);
    else out[out.length - 1].push(l);
  }
  return out;
}

/** The entries of `heading`'s block about `command` (export has two: tensorboard and drmas). */
const about = (heading: string, command: string): string[] =>
  entries(block(heading))
    .filter(
      ([head]) =>
        head.startsWith(`  ${command} `) || head.includes(`lab -- ${command} `) || head === `  ${command}`,
    )
    .flat();

/** The text `help TOPIC` prints; a topic that is no command is refused with the one it most likely meant. */
export function helpFor(topic?: string): string {
  if (topic === undefined) return HELP_SUMMARY;
  if (topic === 'all') return HELP;
  if (topic === 'sweep') return SWEEP_HELP;
  if (topic === 'merge') return MERGE_HELP;
  if (!COMMANDS.includes(topic))
    throw new UsageError(unknownName(`help: no command "${topic}"`, topic, [...COMMANDS, 'all']));
  if (topic === 'help') return HELP_SUMMARY;
  const usage = about('Usage:', topic);
  // train and pretrain take the options below; the other commands' flags are in their usage lines.
  const options = topic === 'train' || topic === 'pretrain' ? ['', 'Options:', ...block('Options:')] : [];
  const tail = topic === 'train' ? ['', 'Environment:', ...block('Environment:')] : [];
  return ['Usage:', ...usage, '', ...about('Commands:', topic), ...options, ...tail].join('\n');
}
