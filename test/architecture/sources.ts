// The source tree the architecture tests read as text.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const SRC = resolve(__dirname, '../../src');

/** Every .ts and .tsx file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}
