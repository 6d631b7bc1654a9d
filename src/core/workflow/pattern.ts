/**
 * The pattern language of workflow files: how an agent's output format (`agents[].format`) and the
 * `format` reward rule say what an output looks like, without JavaScript regular expressions (a
 * regular expression from a link or a file could backtrack for minutes; this one cannot).
 *
 *   'yes' | 'no'            a quoted literal, alternatives separated by |
 *   '-'? digit{1,4}         classes: letter (a–z), digit (0–9), space, any (any character of the lab's set)
 *   letter+ (space letter+)*   counts: ? * + {n} {n,m} {n,}; parentheses group
 *
 * A pattern compiles to a Thompson automaton and is matched by simulating every state at once,
 * so matching is linear in the output's length whatever the pattern. Counts are bounded by the
 * context, and the automaton's size is capped, so a pattern cannot be made expensive either.
 * `sample` draws a matching string (the demonstrators' answer for a `format` rule). Pure.
 */
import { CHARSET } from '../vocab';
import type { Prng } from '../prng';

/** The character classes, by name. */
export const PATTERN_CLASSES: Readonly<Record<string, string>> = {
  letter: 'abcdefghijklmnopqrstuvwxyz',
  digit: '0123456789',
  space: ' ',
  any: CHARSET,
};

/** The most a count may say: no output is longer than the context. */
const MAX_COUNT = 128;
/** The most automaton states a pattern may compile to (a cap on the work one match can take). */
const MAX_STATES = 4096;
/** The longest pattern text. */
export const MAX_PATTERN_LENGTH = 200;

type Node =
  | { kind: 'chars'; chars: string }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number | null };

/** A refused pattern: the message says where and why. */
export class PatternError extends Error {}

/** Parses pattern text into its tree, or throws a PatternError naming the position. */
function parse(text: string): Node {
  if (text.length > MAX_PATTERN_LENGTH)
    throw new PatternError(
      `a pattern is at most ${MAX_PATTERN_LENGTH} characters (this one is ${text.length})`,
    );
  let i = 0;
  const fail = (why: string): never => {
    throw new PatternError(`${why} at character ${i + 1} of ${JSON.stringify(text)}`);
  };
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  const number = (): number => {
    const start = i;
    while (i < text.length && text[i] >= '0' && text[i] <= '9') i++;
    if (start === i) fail('expected a number');
    const n = Number(text.slice(start, i));
    if (n > MAX_COUNT) fail(`a count is at most ${MAX_COUNT}`);
    return n;
  };
  const atom = (): Node => {
    skip();
    const ch = text[i];
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) fail('unclosed quote');
      const literal = text.slice(i + 1, end);
      for (const c of literal) if (!CHARSET.includes(c)) fail(`'${c}' is not in the lab's character set`);
      i = end + 1;
      return { kind: 'seq', items: [...literal].map((c) => ({ kind: 'chars', chars: c })) };
    }
    if (ch === '(') {
      i++;
      const inner = alternatives();
      skip();
      if (text[i] !== ')') fail("expected ')'");
      i++;
      return inner;
    }
    const m = /^[a-z]+/.exec(text.slice(i));
    if (!m) return fail(ch === undefined ? 'unexpected end' : `unexpected '${ch}'`);
    const chars = PATTERN_CLASSES[m[0]];
    if (chars === undefined)
      fail(
        `'${m[0]}' is not a class (${Object.keys(PATTERN_CLASSES).join(', ')}); quote literal text: '${m[0]}'`,
      );
    i += m[0].length;
    return { kind: 'chars', chars };
  };
  const counted = (): Node => {
    let node = atom();
    for (;;) {
      skip();
      const q = text[i];
      if (q === '?') node = { kind: 'repeat', node, min: 0, max: 1 };
      else if (q === '*') node = { kind: 'repeat', node, min: 0, max: null };
      else if (q === '+') node = { kind: 'repeat', node, min: 1, max: null };
      else if (q === '{') {
        i++;
        const min = number();
        let max: number | null = min;
        if (text[i] === ',') {
          i++;
          max = text[i] === '}' ? null : number();
        }
        if (text[i] !== '}') fail("expected '}'");
        if (max !== null && max < min) fail(`{${min},${max}} counts down`);
        node = { kind: 'repeat', node, min, max };
      } else return node;
      i++;
    }
  };
  const sequence = (): Node => {
    const items: Node[] = [];
    for (;;) {
      skip();
      if (i >= text.length || text[i] === '|' || text[i] === ')') break;
      items.push(counted());
    }
    if (items.length === 0) fail('empty alternative');
    return items.length === 1 ? items[0] : { kind: 'seq', items };
  };
  const alternatives = (): Node => {
    const options = [sequence()];
    while (text[i] === '|') {
      i++;
      options.push(sequence());
    }
    return options.length === 1 ? options[0] : { kind: 'alt', options };
  };
  const tree = alternatives();
  skip();
  if (i < text.length) fail(`unexpected '${text[i]}'`);
  return tree;
}

/** An automaton state: reads one character of `chars` to reach `next`, or is an ε-split to `out`. */
type State = { chars: string; next: number } | { split: number[] } | { accept: true };

/** Builds the automaton, returning the start state (Thompson's construction, counts unrolled). */
function build(node: Node, states: State[], next: number): number {
  const add = (s: State): number => {
    if (states.length >= MAX_STATES)
      throw new PatternError(`the pattern is too large (over ${MAX_STATES} states); use smaller counts`);
    states.push(s);
    return states.length - 1;
  };
  switch (node.kind) {
    case 'chars':
      return add({ chars: node.chars, next });
    case 'seq':
      return node.items.reduceRight((to, item) => build(item, states, to), next);
    case 'alt':
      return add({ split: node.options.map((o) => build(o, states, next)) });
    case 'repeat': {
      // Optional copies first (from the end), then the required ones in front of them.
      let start = next;
      if (node.max === null) {
        const loop = add({ split: [] });
        const body = build(node.node, states, loop);
        (states[loop] as { split: number[] }).split.push(body, next);
        start = loop;
      } else {
        for (let k = node.min; k < node.max; k++)
          start = add({ split: [build(node.node, states, start), next] });
      }
      for (let k = 0; k < node.min; k++) start = build(node.node, states, start);
      return start;
    }
  }
}

/** A compiled pattern. */
export interface Pattern {
  readonly text: string;
  /** Whether `s`, all of it, is in the pattern's language. */
  matches(s: string): boolean;
  /** A string the pattern matches, drawn from `rng` (repeats are kept short). */
  sample(rng: Prng): string;
}

/** Compiles pattern text, or throws a PatternError. */
export function compilePattern(text: string): Pattern {
  const tree = parse(text);
  const states: State[] = [{ accept: true }];
  const start = build(tree, states, 0);

  const closure = (from: number[]): Set<number> => {
    const seen = new Set<number>();
    const stack = [...from];
    while (stack.length) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      const state = states[s];
      if ('split' in state) stack.push(...state.split);
    }
    return seen;
  };

  return {
    text,
    matches(s: string): boolean {
      let current = closure([start]);
      for (const ch of s) {
        const next: number[] = [];
        for (const id of current) {
          const state = states[id];
          if ('chars' in state && state.chars.includes(ch)) next.push(state.next);
        }
        if (next.length === 0) return false;
        current = closure(next);
      }
      return current.has(0);
    },
    sample(rng: Prng): string {
      const draw = (n: Node): string => {
        switch (n.kind) {
          case 'chars':
            return n.chars[rng.int(n.chars.length)];
          case 'seq':
            return n.items.map(draw).join('');
          case 'alt':
            return draw(n.options[rng.int(n.options.length)]);
          case 'repeat': {
            const max = Math.min(n.max ?? n.min + 3, n.min + 3);
            return Array.from({ length: rng.range(n.min, max) }, () => draw(n.node)).join('');
          }
        }
      };
      return draw(tree);
    },
  };
}
