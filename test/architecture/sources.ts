// The source tree the architecture tests read as text, and the imports each module names.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const SRC = resolve(__dirname, '../../src');

/** Every .ts and .tsx file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The file a relative specifier names, as TypeScript's bundler resolution finds it, or null. */
function resolveSpecifier(from: string, spec: string, files: Set<string>): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/**
 * Every static `from '…'`, bare `import '…'` and dynamic `import('…')`, type-only imports included.
 * A worker started as `new Worker(new URL('./x.worker.ts', import.meta.url))` is not an import: the
 * bundler builds it as a bundle of its own, loaded in its own thread.
 */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

export interface Imports {
  /** The modules of src/ it imports (relative specifiers, resolved). */
  modules: string[];
  /** The packages it imports, as written (`@tensorflow/tfjs`, `node:fs`, `react`). */
  packages: string[];
}

/** What each of `files` imports, read from its text. */
export function importGraph(files: string[]): Map<string, Imports> {
  const known = new Set(files);
  const graph = new Map<string, Imports>();
  for (const file of files) {
    const specs = [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => m[1].replace(/\?.*$/, ''));
    const modules = specs
      .filter((s) => s.startsWith('.'))
      .map((s) => resolveSpecifier(file, s, known))
      .filter((t): t is string => t !== null);
    const packages = specs.filter((s) => !s.startsWith('.'));
    graph.set(file, { modules: [...new Set(modules)], packages: [...new Set(packages)] });
  }
  return graph;
}
