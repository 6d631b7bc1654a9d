/** Reading a train folder's metrics.jsonl in the CLI tests that kill, stop and resume runs. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The folder's metrics lines as written (none before the file exists). */
export const lines = (dir: string): string[] =>
  existsSync(join(dir, 'metrics.jsonl'))
    ? readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean)
    : [];

/** A metrics line without its wall-clock and memory readings: what a rerun must reproduce. */
export const science = (line: string): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(JSON.parse(line)).filter(
      ([k]) => k !== 'time_s' && !k.startsWith('perf/') && !k.startsWith('mem/'),
    ),
  );

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
