/**
 * The form of a link's hash, below any meaning: `path=value` pairs. One way, a JSON value is
 * diffed against its default into pairs (only what differs; list indices patch the default list
 * element by element, `key=[]` first empties it); values are typed by their text (numbers,
 * `true`/`false`, `null`, `[]`, `{}`, otherwise a string, JSON-quoted where it would read as one
 * of those); keys and values are percent-encoded except for a few readable characters. The other
 * way, pairs are set into a patch and merged over the default. Nothing is evaluated: parsing is
 * `Number` and `JSON.parse` of a quoted string. url.ts reads an experiment with these; url-sweep.ts
 * a sweep. Pure: no DOM.
 */

/** Longer hashes are refused: a link is for sharing an experiment, not a payload. */
export const MAX_HASH_LENGTH = 2048;
/** A link that carries its workflow packed (`wf=`, src/core/workflow/pack.ts) may be this long: 8 KB. */
export const MAX_WORKFLOW_LINK_LENGTH = 8192;

/** The longest a link may be: MAX_WORKFLOW_LINK_LENGTH where it carries a packed workflow. */
export const maxLinkLength = (text: string): number =>
  /(^|&)wf=/.test(text) ? MAX_WORKFLOW_LINK_LENGTH : MAX_HASH_LENGTH;

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A JSON object: not null, not a list. */
export function isPlainObject(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Appends the pairs that turn `base` (the default at this path; undefined where there is none)
 * into `value`: only what differs. An empty object is written only where the default is not
 * empty: elsewhere the schema's own default (`{}`) restores it.
 */
export function flatten(value: Json, base: Json | undefined, prefix: string, out: [string, string][]): void {
  if (deepEqual(value, base)) return;
  if (Array.isArray(value)) {
    // A list shorter than its default cannot be a patch of it: reset it, then write it whole.
    const patchable = Array.isArray(base) && value.length >= base.length;
    if (!patchable && (value.length === 0 || Array.isArray(base))) out.push([prefix, '[]']);
    value.forEach((v, i) => flatten(v, patchable ? base[i] : undefined, `${prefix}.${i}`, out));
  } else if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0 && isPlainObject(base) && Object.keys(base).length > 0) out.push([prefix, '{}']);
    for (const [k, v] of entries) {
      flatten(v, isPlainObject(base) ? base[k] : undefined, prefix ? `${prefix}.${k}` : k, out);
    }
  } else {
    out.push([prefix, encodeValue(value)]);
  }
}

const NUMBER_RE = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
export function encodeValue(v: string | number | boolean | null): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  const ambiguous =
    NUMBER_RE.test(v) || ['true', 'false', 'null', '[]', '{}'].includes(v) || v.startsWith('"');
  return ambiguous ? JSON.stringify(v) : v;
}

/** Lists given as `key=[]`: they replace the default list instead of patching it. */
const RESET = new WeakSet<Json[]>();
export function decodeValue(text: string): Json {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (text === '[]') {
    const list: Json[] = [];
    RESET.add(list);
    return list;
  }
  if (text === '{}') return {};
  if (NUMBER_RE.test(text)) return Number(text);
  if (text.startsWith('"')) {
    const s: unknown = JSON.parse(text); // a JSON string literal, never code
    if (typeof s !== 'string') throw new Error('quoted value is not a string');
    return s;
  }
  return text;
}
/** Characters left readable in the hash; everything else is percent-encoded. */
export function hashEscape(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+').replace(/%2C/g, ',').replace(/%3A/g, ':');
}

/** Builds nested objects/arrays from a dotted path; numeric segments index arrays. */
export function setPath(root: { [k: string]: Json }, path: string[], value: Json): void {
  if (path.some((p) => p === '' || p === '__proto__' || p === 'constructor' || p === 'prototype')) {
    throw new Error('not a field name');
  }
  let node: Json = root;
  // Numeric segments index lists, except a run's live-change schedule, whose keys are steps.
  const isIndex = (i: number) => /^\d+$/.test(path[i]) && !isStepKey(path, i);
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const last = i === path.length - 1;
    const container = node as { [k: string]: Json } | Json[];
    if (Array.isArray(container) !== isIndex(i)) throw new Error('conflicts with another field');
    if (isIndex(i) && Number(key) > 64) throw new Error('index too large');
    const slot = (container as Record<string, Json>)[key];
    if (last) {
      if (slot !== undefined) throw new Error('conflicts with another field');
      (container as Record<string, Json>)[key] = value;
    } else {
      if (slot === undefined) (container as Record<string, Json>)[key] = isIndex(i + 1) ? [] : {};
      else if (typeof slot !== 'object' || slot === null) throw new Error('conflicts with another field');
      node = (container as Record<string, Json>)[key];
    }
  }
}

/** `runs.N.live.STEP`: the step keys of a run's live-change schedule (docs/links.md#live-change-schedule). */
const isStepKey = (path: string[], i: number) => i === 3 && path[0] === 'runs' && path[2] === 'live';
/**
 * Objects merge key-wise; lists merge index-wise over the base list (over none after `key=[]`);
 * primitives from the patch replace the base.
 */
export function merge(base: Json | undefined, patch: Json): Json {
  if (isPlainObject(base) && isPlainObject(patch)) {
    const out: { [k: string]: Json } = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = merge(base[k], v);
    return out;
  }
  if (Array.isArray(patch)) {
    const under = Array.isArray(base) && !RESET.has(patch) ? base : [];
    const n = Math.max(under.length, patch.length);
    // An index given with none before it (and no default there) is a hole: null fails validation.
    return Array.from({ length: n }, (_, i) => (i in patch ? merge(under[i], patch[i]) : (under[i] ?? null)));
  }
  return patch;
}
