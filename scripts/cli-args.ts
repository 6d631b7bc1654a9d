/** Command-line helpers shared by the scripts (benchmarks, profiles). Node only. */

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
