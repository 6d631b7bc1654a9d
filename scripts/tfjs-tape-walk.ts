/**
 * A build-time rewrite of two loops in tfjs-core that Chrome's V8 kept recompiling all through a
 * run (docs/figures.md#where-a-steps-time-goes). `getFilteredNodesXToY` picks the tape's nodes
 * between a gradient's inputs and its loss, and `walkTensorContainer` finds the tensors in a
 * result; both read an object's properties inside `for (… in …)`, and the objects they meet (each
 * kernel's inputs, each op's results) have one shape per kernel. V8's Maglev compiled them for the
 * shapes seen so far, met another, threw the code away ("wrong map") and compiled them again:
 * about 27 times a second in each run worker, 4.7 ms of Maglev and 6.3 ms of Turbofan on the
 * renderer's other threads per run step of the default experiment. Node 20's V8 has no Maglev.
 *
 * The same loops over `Object.keys(…)` read the keys as an array, which V8 optimizes once. For
 * the plain objects and arrays these functions are given, the keys and their order are the same
 * (own enumerable keys, integer keys first, then in insertion order; no tfjs object has enumerable
 * inherited properties). Each rewrite must find exactly the loops it expects, or the build fails:
 * a tfjs upgrade that changes them is then looked at, not silently left unpatched.
 */
import type { Plugin } from 'vite';

interface Rewrite {
  /** The module, by the end of its resolved path. */
  file: RegExp;
  /** The function whose loops are rewritten, and the start of what follows it in the file. */
  from: string;
  to: string;
  /** Each loop head, and how many times the function has it. */
  loops: { head: string; object: string; times: number }[];
}

export const REWRITES: Rewrite[] = [
  {
    file: /[\\/]@tensorflow[\\/]tfjs-core[\\/]dist[\\/]tape\.js$/,
    from: 'export function getFilteredNodesXToY(',
    to: 'export function backpropagateGradients(',
    loops: [
      { head: 'for (const inputName in nodeInputs)', object: 'nodeInputs', times: 2 },
      { head: 'for (const inputName in node.inputs)', object: 'node.inputs', times: 1 },
    ],
  },
  {
    file: /[\\/]@tensorflow[\\/]tfjs-core[\\/]dist[\\/]tensor_util\.js$/,
    from: 'function walkTensorContainer(',
    to: 'function isIterable(',
    loops: [{ head: 'for (const k in iterable)', object: 'iterable', times: 1 }],
  },
];

/** `code` with the loops of `r` rewritten; throws where the function or its loops are not as expected. */
export function rewriteLoops(code: string, r: Rewrite): string {
  const start = code.indexOf(r.from);
  const end = code.indexOf(r.to, start);
  if (start < 0 || end < 0) throw new Error(`tfjs-tape-walk: ${r.from} … ${r.to} not found`);
  let body = code.slice(start, end);
  for (const { head, object, times } of r.loops) {
    const found = body.split(head).length - 1;
    if (found !== times)
      throw new Error(`tfjs-tape-walk: ${r.from}… has ${found} × "${head}", expected ${times}`);
    const variable = head.slice('for (const '.length, head.indexOf(' in '));
    body = body.split(head).join(`for (const ${variable} of Object.keys(${object}))`);
  }
  return code.slice(0, start) + body + code.slice(end);
}

/** The Vite plugin: each module of REWRITES rewritten as it is loaded (build, dev server and tests alike). */
export const tfjsTapeWalk = (): Plugin => {
  const seen = new Set<Rewrite>();
  return {
    name: 'agentwise-tfjs-tape-walk',
    transform(code, id) {
      const r = REWRITES.find((x) => x.file.test(id.split('?')[0]));
      if (!r) return null;
      seen.add(r);
      return { code: rewriteLoops(code, r), map: null };
    },
    buildEnd(error) {
      // A build that bundled tfjs-core but not these files resolves it some other way: say so.
      if (!error && seen.size > 0 && seen.size < REWRITES.length)
        this.warn(`tfjs-tape-walk: only ${seen.size} of ${REWRITES.length} tfjs modules were rewritten`);
    },
  };
};
