/**
 * "Did you mean …?" for a key an experiment does not have, or a value a field does not take: a
 * link written from memory or from the paper (`G=16`, `groupSize=16`, `optim.lrr=1`,
 * `task=serch`) is refused with the field or value it most likely meant.
 * The fields and their docs come from the schema itself (zod's JSON Schema of ExperimentSchema),
 * so a new field is suggested with no entry here. Pure: no tfjs, no DOM.
 */
import { z } from 'zod';
import { ExperimentSchema } from './config';

/** A settable field: its path (`runs.N.` for any run, `*` for an agent's or a step's key) and its description. */
interface Field {
  path: string;
  doc: string;
}

type Node = {
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
  anyOf?: Node[];
  description?: string;
};

let known: Field[] | null = null;

/** Every leaf field of the schema, read once and only when a key is refused (about 50 ms). */
function fields(): Field[] {
  if (known) return known;
  const out: Field[] = [];
  const walk = (s: Node, at: string[]): void => {
    if (s.properties) for (const [k, v] of Object.entries(s.properties)) walk(v, [...at, k]);
    else if (s.items) walk(s.items, [...at, 'N']);
    else if (s.anyOf) s.anyOf.forEach((x) => walk(x, at));
    else if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, [...at, '*']);
    else out.push({ path: at.join('.'), doc: s.description ?? '' });
  };
  walk(z.toJSONSchema(ExperimentSchema, { io: 'input', unrepresentable: 'any' }) as Node, []);
  return (known = out);
}

/**
 * Edit distance (insertions, deletions, substitutions, and two neighbours swapped counting as
 * one: `snyc` is one typo from `sync`), case-insensitive.
 */
function distance(a: string, b: string): number {
  [a, b] = [a.toLowerCase(), b.toLowerCase()];
  let before: number[] = [];
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        next[j] = Math.min(next[j], before[j - 2] + 1);
    }
    [before, row] = [row, next];
  }
  return row[b.length];
}

const last = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/**
 * The field `path` most likely meant, by the first rule that finds one: the same last name
 * (`groupSize` → `rollout.groupSize`), the paper's symbol its description starts with (`G` →
 * `rollout.groupSize`), a field it begins (`rollout.group`), or the nearest within a couple of
 * typos (`optim.lrr` → `optim.lr`). Within `runs.N.` only a run's own fields are offered, and
 * within `….perAgent.<agent>.` only the per-agent settings.
 */
export function suggestField(path: string): string | undefined {
  // Where the key stands: under an agent's per-agent settings, a run's fields, or the experiment's.
  const scoped = /^(.*\.perAgent\.[^.]+)\.([^.]+)$/.exec(path) ?? /^(runs\.\d+)\.(.*)$/.exec(path);
  const [scope, key] = scoped ? [scoped[1], scoped[2]] : ['', path];
  const template = scope.replace(/^runs\.\d+/, 'runs.N').replace(/perAgent\.[^.]+$/, 'perAgent.*');
  const pool = fields()
    .filter((f) => (template ? f.path.startsWith(`${template}.`) : !f.path.startsWith('runs.')))
    .filter((f) => path.startsWith('workflow.') || !f.path.startsWith('workflow.'))
    .map((f) => ({ ...f, key: template ? f.path.slice(template.length + 1) : f.path }))
    .filter((f) => !f.key.includes('*'));
  const lower = key.toLowerCase();
  const hit =
    pool.find((f) => last(f.key).toLowerCase() === last(lower)) ??
    pool.find((f) => f.doc.startsWith(`${key}: `)) ??
    (key.length >= 4 ? pool.find((f) => f.key.toLowerCase().startsWith(lower)) : undefined) ??
    pool
      .map((f) => ({ f, d: distance(key, f.key) }))
      .filter(({ d }) => d <= Math.max(2, Math.floor(key.length / 5)))
      .sort((a, b) => a.d - b.d)[0]?.f;
  return hit && (scope ? `${scope}.${hit.key}` : hit.key);
}

/** Of `options`, the one `key` most likely meant: the same up to case, or within a couple of typos. */
export function nearest(key: string, options: readonly string[]): string | undefined {
  return (
    options.find((o) => o.toLowerCase() === key.toLowerCase()) ??
    options
      .map((o) => ({ o, d: distance(key, o) }))
      .filter(({ d }) => d <= Math.max(2, Math.floor(key.length / 5)))
      .sort((a, b) => a.d - b.d)[0]?.o
  );
}

/**
 * The allowed value `value` most likely meant (`serch` → `search`, `DrMAS` → `drmas`): the same
 * up to case and punctuation, one it begins, or the nearest within a couple of typos.
 */
export function suggestValue(value: string, allowed: readonly string[]): string | undefined {
  const bare = (v: string) => v.toLowerCase().replace(/[^a-z0-9]/g, '');
  return (
    allowed.find((a) => bare(a) === bare(value)) ??
    (value.length >= 3 ? allowed.find((a) => a.toLowerCase().startsWith(value.toLowerCase())) : undefined) ??
    allowed
      .map((a) => ({ a, d: distance(value, a) }))
      .filter(({ d }) => d <= Math.max(1, Math.floor(value.length / 4)))
      .sort((x, y) => x.d - y.d)[0]?.a
  );
}
