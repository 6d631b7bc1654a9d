// Imports point one way: no module of src/ reaches itself through its imports, type-only imports
// included (a type-only circle still ties two modules' designs together, and it is how the runtime
// circles in model/kernels/ began). Reads the source as text: every static `from '…'`, bare
// `import '…'` and dynamic `import('…')` whose specifier is relative.
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, importGraph, sourceFiles } from './sources';

/** Strongly connected components of more than one module, or of one that imports itself (Tarjan). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('src/ imports', () => {
  it('finds a planted circle, so that an empty answer means something', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('form no circle', () => {
    const files = sourceFiles(SRC);
    const graph = new Map([...importGraph(files)].map(([file, { modules }]) => [file, modules]));
    expect(graph.size).toBeGreaterThan(100);
    // The graph is real: the trainer's edges to the layers below it are found.
    expect(graph.get(join(SRC, 'train/trainer.ts'))).toContain(join(SRC, 'rl/same-batch.ts'));
    expect(graph.get(join(SRC, 'train/trainer.ts'))).toContain(join(SRC, 'train/ppo-update.ts'));
    const cycles = importCycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(' → '));
    expect(cycles).toEqual([]);
  });
});
