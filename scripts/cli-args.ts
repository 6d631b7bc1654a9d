/** Command-line helpers shared by the scripts (benchmarks, profiles). Node only. */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Node's strict parseArgs with the manners of `lab`: `--help` prints `usage` and exits 0, and an
 * unknown or malformed flag prints one line naming it plus the usage and exits 2, not a stack trace.
 */
export function scriptArgs<O extends Options>(usage: string, options: O) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}

/** The value after `--name`, or `fallback`. */
export const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

/** Whether `--name` was given. */
export const flag = (name: string): boolean => process.argv.includes(`--${name}`);

/** Median; the lower middle of an even count. */
export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * Ends the process with a message naming `what` if it still runs after `seconds`: no benchmark
 * waits forever (a hung page, a lost GPU device, a step that never comes).
 */
export function watchdog(seconds: number, what: string): void {
  if (!(seconds > 0)) throw new Error(`--timeout must be a positive number of seconds, got ${seconds}`);
  setTimeout(() => {
    console.error(
      `[${what}] still running after ${seconds} s: gave up (raise --timeout if the machine is just slow)`,
    );
    process.exit(1);
  }, seconds * 1000).unref();
}
