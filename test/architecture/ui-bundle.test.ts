// The page's main bundle never loads tfjs: no module of src/ui/ reaches `@tensorflow/*` through its
// imports, however indirectly, nor a module of src/model/, src/train/ or src/cli/ (the UI reaches
// models and trainers only through the worker protocol). Lint checks the UI's own imports
// (eslint.config.js); this walks them to the end. Type-only imports count too: a type from a tfjs
// module ties the UI to it as surely. Worker entry points are the one way across: a worker the page
// starts as `new Worker(new URL('./x.worker.ts', import.meta.url))` is no import, and the bundler
// builds it as a bundle of its own that loads in its own thread, where tfjs belongs
// (docs/architecture.md#layers).
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, importGraph, sourceFiles, type Imports } from './sources';

const TFJS = /^@tensorflow\//;
const ABOVE_THE_PROTOCOL = ['model', 'train', 'cli'].map((layer) => join(SRC, layer) + '/');

/**
 * For each entry, the shortest import chain from it to a module `banned` names or to a package
 * `bannedPackage` matches, as `a → b → package`; the first one found per entry.
 */
function bannedChains(
  graph: Map<string, Imports>,
  entries: string[],
  banned: (file: string) => boolean,
  bannedPackage: (spec: string) => boolean,
  name: (file: string) => string = (f) => f,
): string[] {
  const chains: string[] = [];
  for (const entry of entries) {
    const parent = new Map<string, string | null>([[entry, null]]);
    const chainTo = (file: string): string[] => {
      const out: string[] = [];
      for (let at: string | null = file; at !== null; at = parent.get(at)!) out.unshift(name(at));
      return out;
    };
    const queue = [entry];
    let found: string[] | null = null;
    while (queue.length && !found) {
      const file = queue.shift()!;
      if (banned(file)) found = chainTo(file);
      const { modules, packages } = graph.get(file) ?? { modules: [], packages: [] };
      const pkg = packages.find(bannedPackage);
      if (!found && pkg) found = [...chainTo(file), pkg];
      for (const next of modules) {
        if (parent.has(next)) continue;
        parent.set(next, file);
        queue.push(next);
      }
    }
    if (found) chains.push(found.join(' → '));
  }
  return chains;
}

describe("the page's main bundle", () => {
  const graph = importGraph(sourceFiles(SRC));
  const rel = (f: string) => relative(SRC, f);
  const isTfjs = (spec: string) => TFJS.test(spec);
  const aboveProtocol = (f: string) => ABOVE_THE_PROTOCOL.some((dir) => f.startsWith(dir));

  it('names the chain of a planted import, so that an empty answer means something', () => {
    const planted = new Map<string, Imports>([
      ['ui/a.ts', { modules: ['x/b.ts'], packages: ['react'] }],
      ['x/b.ts', { modules: ['x/c.ts'], packages: [] }],
      ['x/c.ts', { modules: [], packages: ['@tensorflow/tfjs'] }],
      ['ui/d.ts', { modules: ['x/e.ts'], packages: [] }],
      ['x/e.ts', { modules: [], packages: [] }],
    ]);
    expect(bannedChains(planted, ['ui/a.ts', 'ui/d.ts'], () => false, isTfjs)).toEqual([
      'ui/a.ts → x/b.ts → x/c.ts → @tensorflow/tfjs',
    ]);
    // The walk sees tfjs where it is: the run worker loads it.
    expect(bannedChains(graph, [join(SRC, 'workers/run.worker.ts')], () => false, isTfjs)).toHaveLength(1);
  });

  it('reaches no tfjs, and no model, trainer or CLI module, from any module of src/ui/', () => {
    const ui = sourceFiles(join(SRC, 'ui'));
    expect(ui.length).toBeGreaterThan(50);
    expect(bannedChains(graph, ui, aboveProtocol, isTfjs, rel)).toEqual([]);
  });
});
