/**
 * The template language of workflow files: how a stage's prompt and a reward rule's expected value
 * are written over a row's fields and the agents' outputs. Logic-less and small, so a template is
 * data, never code:
 *
 *   {question}              a row field, or an agent's latest output (as shown to others: cut to
 *                           its maxResponse and to the lab's character set)
 *   {alice|first|reverse}   filters, applied left to right (TEMPLATE_FILTERS)
 *   {#solver}={solver} no{/solver}   a section: its text only once solver has answered
 *   {^solver}first try{/solver}      an inverted section: its text only before solver answers
 *
 * Braces are not in the lab's character set, so no prompt text can be mistaken for a name. A
 * template is parsed once, when the workflow is read; `names` and `guarded` let the flow check refuse a
 * name no stage produces before anything trains. Pure.
 */
import { CHARSET } from '../vocab';

/** Filters a `{name|filter}` may apply, each with its one-line doc. */
export const TEMPLATE_FILTERS = {
  first: { doc: 'the text up to its first space', apply: (s: string) => s.split(' ')[0] },
  last: { doc: 'the text after its last space', apply: (s: string) => s.split(' ').at(-1)! },
  reverse: { doc: 'the text backwards', apply: (s: string) => [...s].reverse().join('') },
  trim: { doc: 'the text without spaces at either end', apply: (s: string) => s.trim() },
} as const;
type FilterName = keyof typeof TEMPLATE_FILTERS;

type Part =
  | { kind: 'text'; text: string }
  | { kind: 'name'; name: string; filters: FilterName[] }
  | { kind: 'section'; name: string; inverted: boolean; parts: Part[] };

/** A refused template: the message says where and why. */
export class TemplateError extends Error {}

/** A parsed template. */
export interface Template {
  readonly text: string;
  /** Every name the template reads outside any section on that name (it must have a value). */
  readonly names: readonly string[];
  /** Names read only inside a section on themselves, or used as a section's name. */
  readonly guarded: readonly string[];
  /** The longest text it can render, given the longest value of each name. */
  longest(lengthOf: (name: string) => number): number;
  /** The text, with `valueOf(name)` for each name (undefined: no value yet, for sections). */
  render(valueOf: (name: string) => string | undefined): string;
}

const NAME = /^[a-z][a-z0-9_]{0,23}$/;

/** Parses template text, or throws a TemplateError naming the position. */
export function parseTemplate(text: string): Template {
  let i = 0;
  const fail = (why: string): never => {
    throw new TemplateError(`${why} at character ${i + 1} of ${JSON.stringify(text)}`);
  };
  const parts = (closing: string | null): Part[] => {
    const out: Part[] = [];
    while (i < text.length) {
      const open = text.indexOf('{', i);
      const close = text.indexOf('}', i);
      if (close >= 0 && (open < 0 || close < open)) {
        i = close;
        fail("'}' without '{'");
      }
      const end = open < 0 ? text.length : open;
      if (end > i) {
        const literal = text.slice(i, end);
        for (const ch of literal)
          if (!CHARSET.includes(ch)) fail(`'${ch}' is not in the lab's character set`);
        out.push({ kind: 'text', text: literal });
      }
      if (open < 0) {
        i = text.length;
        break;
      }
      i = open;
      const shut = text.indexOf('}', open);
      if (shut < 0) fail("'{' without '}'");
      const inner = text.slice(open + 1, shut);
      const sigil = inner[0];
      if (sigil === '/') {
        if (inner.slice(1) !== closing)
          fail(closing ? `expected {/${closing}}` : `{${inner}} closes no section`);
        i = shut + 1;
        return out;
      }
      i = shut + 1;
      if (sigil === '#' || sigil === '^') {
        const name = inner.slice(1);
        if (!NAME.test(name)) fail(`'${name}' is not a name (lower-case letters, digits, _)`);
        out.push({ kind: 'section', name, inverted: sigil === '^', parts: parts(name) });
        continue;
      }
      const [name, ...filters] = inner.split('|');
      if (!NAME.test(name)) fail(`'${name}' is not a name (lower-case letters, digits, _)`);
      for (const f of filters)
        if (!Object.hasOwn(TEMPLATE_FILTERS, f))
          fail(`'${f}' is not a filter (${Object.keys(TEMPLATE_FILTERS).join(', ')})`);
      out.push({ kind: 'name', name, filters: filters as FilterName[] });
    }
    if (closing !== null) fail(`{#${closing}} is never closed with {/${closing}}`);
    return out;
  };
  const tree = parts(null);

  const names = new Set<string>();
  const guarded = new Set<string>();
  const collect = (ps: Part[], inside: ReadonlySet<string>) => {
    for (const p of ps) {
      if (p.kind === 'name') (inside.has(p.name) ? guarded : names).add(p.name);
      if (p.kind === 'section') {
        guarded.add(p.name);
        collect(p.parts, p.inverted ? inside : new Set([...inside, p.name]));
      }
    }
  };
  collect(tree, new Set());
  for (const n of names) guarded.delete(n);

  const render = (ps: Part[], valueOf: (name: string) => string | undefined): string =>
    ps
      .map((p) => {
        if (p.kind === 'text') return p.text;
        if (p.kind === 'section')
          return (valueOf(p.name) !== undefined) !== p.inverted ? render(p.parts, valueOf) : '';
        const value = valueOf(p.name);
        if (value === undefined) throw new TemplateError(`{${p.name}} has no value yet`);
        return p.filters.reduce((s, f) => TEMPLATE_FILTERS[f].apply(s), value);
      })
      .join('');
  const longest = (ps: Part[], lengthOf: (name: string) => number): number =>
    ps.reduce(
      (n, p) =>
        n +
        (p.kind === 'text'
          ? p.text.length
          : p.kind === 'name'
            ? lengthOf(p.name)
            : longest(p.parts, lengthOf)),
      0,
    );

  return {
    text,
    names: [...names],
    guarded: [...guarded],
    longest: (lengthOf) => longest(tree, lengthOf),
    render: (valueOf) => render(tree, valueOf),
  };
}
