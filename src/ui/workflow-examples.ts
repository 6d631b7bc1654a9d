/**
 * The example workflows of examples/workflows/, bundled into the page as text (Vite's `?raw`,
 * eager), so picking one or opening a link to one fetches nothing at run time. A link names an
 * example's dataset by its SHA-256, like any other: the page finds it here before it asks for it.
 */
import { sha256Hex } from '../core/sha256';
import { FAMILIES } from '../core/workflow/families';

/** A family's file has no `doc:` line: its family's doc says what it is. */
const familyDoc = (name: string | undefined) =>
  name && Object.hasOwn(FAMILIES, name) ? FAMILIES[name as keyof typeof FAMILIES].doc : '';

const TEXTS = import.meta.glob('/examples/workflows/*.{yaml,csv,jsonl}', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

const named = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** A bundled example: its workflow file and, where it reads one, its dataset file. */
export interface Example {
  name: string;
  /** Its `doc:` line (what the agents do together). */
  doc: string;
  workflow: { name: string; text: string };
  data: { name: string; text: string } | null;
}

/** The order the picker lists them in: examples with agents of their own first. */
const ORDER = ['relay', 'router', 'judge', 'chain', 'parts', 'sync-own', 'math'];

export const EXAMPLES: readonly Example[] = Object.entries(TEXTS)
  .filter(([path]) => path.endsWith('.yaml'))
  .map(([path, text]) => {
    const file = /^ {2}file: (\S+)$/m.exec(text)?.[1];
    const data = file ? Object.entries(TEXTS).find(([p]) => named(p) === file) : undefined;
    return {
      name: named(path).replace(/\.yaml$/, ''),
      doc: /^doc: (.*)$/m.exec(text)?.[1] ?? familyDoc(/^family: (\w+)/m.exec(text)?.[1]),
      workflow: { name: named(path), text },
      data: data ? { name: file!, text: data[1] } : null,
    };
  })
  .sort((a, b) => rank(a.name) - rank(b.name));

function rank(name: string): number {
  const i = ORDER.indexOf(name);
  return i < 0 ? ORDER.length : i;
}

let bySha: Map<string, { name: string; text: string }> | null = null;

/** The bundled dataset file whose bytes have this SHA-256, if one has. */
export function bundledData(sha256: string): { name: string; text: string } | undefined {
  bySha ??= new Map(EXAMPLES.flatMap((e) => (e.data ? [[sha256Hex(e.data.text), e.data] as const] : [])));
  return bySha.get(sha256);
}
