/**
 * The build's rewrite of tfjs-core's tape walk (scripts/tfjs-tape-walk.ts): it finds exactly the
 * loops it expects in the installed tfjs (a tfjs upgrade that changes them fails here and in the
 * build), and the rewritten `getFilteredNodesXToY` picks the same nodes, with the same pruned
 * inputs, as tfjs's own on random tapes.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REWRITES, rewriteLoops } from '../../scripts/tfjs-tape-walk';

const dist = join(
  dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-core/package.json')),
  'dist',
);
const source = (name: string) => readFileSync(join(dist, name), 'utf8');

/** tfjs's `getFilteredNodesXToY` from `code`, as a function (test code: the build never evaluates it). */
function filterOf(code: string) {
  const [r] = REWRITES;
  const text = code.slice(code.indexOf(r.from), code.indexOf(r.to)).replace(/^export /, '');
  type Node = { id: number; inputs: Record<string, { id: number }>; outputs: { id: number }[] };
  return new Function(`${text}; return getFilteredNodesXToY;`)() as (
    tape: Node[],
    xs: { id: number }[],
    y: { id: number },
  ) => Node[];
}

describe('tfjs-tape-walk', () => {
  it('rewrites each of its loops in the installed tfjs-core, and only those', () => {
    for (const [r, file] of [
      [REWRITES[0], 'tape.js'],
      [REWRITES[1], 'tensor_util.js'],
    ] as const) {
      expect(r.file.test(join(dist, file))).toBe(true);
      const before = source(file);
      const after = rewriteLoops(before, r);
      const heads = r.loops.reduce((n, l) => n + l.times, 0);
      expect(after.split(' of Object.keys(').length - 1).toBe(
        before.split(' of Object.keys(').length - 1 + heads,
      );
      const fn = after.slice(after.indexOf(r.from), after.indexOf(r.to));
      for (const { head } of r.loops) expect(fn).not.toContain(head);
      // Outside the function nothing changed (tape.js's backpropagateGradients keeps its for…in).
      expect(after.slice(after.indexOf(r.to))).toBe(before.slice(before.indexOf(r.to)));
    }
    expect(() =>
      rewriteLoops('function walkTensorContainer() {} function isIterable() {}', REWRITES[1]),
    ).toThrow(/has 0 × "for \(const k in iterable\)", expected 1/);
  });

  it('picks the same nodes between x and y as tfjs does, on random tapes', () => {
    const original = filterOf(source('tape.js'));
    const rewritten = filterOf(rewriteLoops(source('tape.js'), REWRITES[0]));
    const names = ['a', 'b', 'x', 'indices'];
    // A tape of up to 12 nodes, each reading tensors made before it (ids below 100 + its index).
    const tape = fc.array(
      fc.record({
        inputs: fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
        from: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        outputs: fc.integer({ min: 1, max: 2 }),
      }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(
        tape,
        fc.uniqueArray(fc.nat(4), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        (spec, xs, y) => {
          let next = 5; // tensors 0–4 exist before the tape
          const nodes = spec.map((s, id) => {
            const made = next;
            const inputs = Object.fromEntries(s.inputs.map((name, k) => [name, { id: s.from[k] % made }]));
            next += s.outputs;
            return { id, inputs, outputs: Array.from({ length: s.outputs }, (_, k) => ({ id: made + k })) };
          });
          const target = { id: y % next };
          const ids = (ns: ReturnType<typeof original>) => ns.map((n) => [n.id, Object.entries(n.inputs)]);
          const want = original(
            nodes,
            xs.map((id) => ({ id })),
            target,
          );
          expect(
            ids(
              rewritten(
                nodes,
                xs.map((id) => ({ id })),
                target,
              ),
            ),
          ).toEqual(ids(want));
        },
      ),
    );
  });
});
