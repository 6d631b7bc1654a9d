/**
 * Experiment ⇄ URL hash. The hash holds the config only (never weights or progress), versioned,
 * with only the fields that differ from the defaults, as readable `path=value` pairs:
 *   #v=1&task=math&optim.lr=0.001&runs.1.estimator=global-step
 * A list's indices patch the default list element by element, so `runs.1.estimator=global-step`
 * alone is the default runs with run 1's estimator changed (and its label with it, docs/links.md#run-labels). `runs=[]` first empties the list, so a
 * list shorter than the default is written `runs=[]&runs.0.label=…` (whole, after the reset); a
 * longer one is its diffs from the default elements plus the new elements whole. A run's live
 * changes are keyed by step, `runs.0.live.179.optim.lr=0.003` (docs/links.md#live-change-schedule). Values are typed by their text: numbers, `true`/`false`,
 * `[]`, `{}`, otherwise a string; a string that would read as one of those is JSON-quoted.
 * Nothing is evaluated: parsing is `Number`, `JSON.parse` of a quoted string, and the zod schema.
 * Pure functions; only src/ui touches window.location.
 */
import { CONFIG_VERSION, DEFAULT_EXPERIMENT, structuralKey } from './config';
import { validateExperiment } from './config-validate';
import type { Experiment } from './config';
import type { FieldError } from './config-validate';
import { ESTIMATOR_LABELS } from './run-labels';

/** Longer hashes are refused: a link is for sharing an experiment, not a payload. */
export const MAX_HASH_LENGTH = 2048;

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** Old versions are rewritten pair by pair into the current one. None yet: v1 is the first. */
const MIGRATIONS: Record<number, (pairs: [string, string][]) => [string, string][]> = {};

// ─── diff and flatten ────────────────────────────────────────────────────────

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isPlainObject(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Appends the pairs that turn `base` (the default at this path; undefined where there is none)
 * into `value`: only what differs. An empty object is written only where the default is not
 * empty: elsewhere the schema's own default (`{}`) restores it.
 */
function flatten(value: Json, base: Json | undefined, prefix: string, out: [string, string][]): void {
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

function encodeValue(v: string | number | boolean | null): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  const ambiguous =
    NUMBER_RE.test(v) || ['true', 'false', 'null', '[]', '{}'].includes(v) || v.startsWith('"');
  return ambiguous ? JSON.stringify(v) : v;
}

/** Lists given as `key=[]`: they replace the default list instead of patching it. */
const RESET = new WeakSet<Json[]>();

function decodeValue(text: string): Json {
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
function escape(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+').replace(/%2C/g, ',').replace(/%3A/g, ':');
}

// ─── public API ──────────────────────────────────────────────────────────────

/** The hash (without `#`) for an experiment: the version, then only non-default fields. */
export function encodeExperiment(config: Experiment): string {
  const pairs: [string, string][] = [['v', String(CONFIG_VERSION)]];
  flatten(config as unknown as Json, DEFAULT_EXPERIMENT as unknown as Json, '', pairs);
  return labelPairs(config, pairs)
    .map(([k, v]) => `${k}=${escape(v)}`)
    .join('&');
}

export type DecodeResult =
  /** `note`: the link was read with a rename (plan's old role names), said once to the reader. */
  | { ok: true; config: Experiment; note?: string }
  /** `config` is the defaults; `errors` name every bad field. */
  | { ok: false; config: Experiment; errors: FieldError[] };

/** Parses a hash (with or without `#`). Anything wrong opens the defaults with the reasons. */
export function decodeExperiment(hash: string): DecodeResult {
  const fail = (errors: FieldError[]): DecodeResult => ({ ok: false, config: DEFAULT_EXPERIMENT, errors });
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  if (text === '') return { ok: true, config: DEFAULT_EXPERIMENT };
  if (text.length > MAX_HASH_LENGTH) {
    return fail([{ path: '(hash)', message: `${text.length} characters; the limit is ${MAX_HASH_LENGTH}` }]);
  }

  // 1. split into pairs
  const errors: FieldError[] = [];
  let pairs: [string, string][] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) {
      errors.push({ path: part.slice(0, 40), message: 'expected key=value' });
      continue;
    }
    try {
      pairs.push([
        decodeURIComponent(part.slice(0, eq)),
        decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' ')),
      ]);
    } catch {
      errors.push({ path: part.slice(0, eq).slice(0, 40), message: 'bad percent-encoding' });
    }
  }
  if (errors.length) return fail(errors);

  // 2. version and migrations
  const versions = pairs.filter(([k]) => k === 'v').map(([, value]) => value);
  if (versions.length === 0) return fail([{ path: 'v', message: `missing; expected v=${CONFIG_VERSION}` }]);
  if (versions.length > 1)
    return fail([
      {
        path: 'v',
        message: `given ${versions.length} times (${versions.join(', ')}); a link has one version`,
      },
    ]);
  const version = versions[0];
  // Only the canonical spelling: `1.0`, `0x1` and `+1` are not versions.
  let v = /^[1-9][0-9]{0,8}$/.test(version) ? Number(version) : NaN;
  if (!Number.isInteger(v) || v < 1 || v > CONFIG_VERSION) {
    return fail([
      {
        path: 'v',
        message: `unknown version ${JSON.stringify(version)}; this lab reads 1–${CONFIG_VERSION}`,
      },
    ]);
  }
  pairs = pairs.filter(([k]) => k !== 'v');
  for (; v < CONFIG_VERSION; v++) pairs = MIGRATIONS[v](pairs);

  // 3. rebuild the diff object, then merge over the defaults and validate
  const patch: { [k: string]: Json } = {};
  const seen = new Set<string>();
  for (const [key, raw] of pairs) {
    if (seen.has(key)) {
      errors.push({ path: key, message: 'given twice' });
      continue;
    }
    seen.add(key);
    // A sweep is a link's, not an experiment's (the page reads it with splitSweep): say where it goes.
    if (key.startsWith(SWEEP_PREFIX)) {
      const dial = key.slice(SWEEP_PREFIX.length);
      const message = `is a sweep's dial, not a field of one experiment: lab sweep takes it as --grid ${dial}=…, the page trains it from the link`;
      errors.push({ path: key, message, got: raw });
      continue;
    }
    try {
      setPath(patch, key.split('.'), decodeValue(raw));
    } catch (e) {
      errors.push({ path: key, message: (e as Error).message, got: raw });
    }
  }
  if (errors.length) return fail(errors);
  const merged = merge(DEFAULT_EXPERIMENT as unknown as Json, patch);
  dropFollowedLabels(patch, merged);
  const checked = validateExperiment(merged);
  if (checked.ok) return checked;
  // Each refusal of a key the link gave quotes the link's text back: "got 'banana'".
  const raw = new Map(pairs);
  return fail(checked.errors.map((e) => (raw.has(e.path) ? { ...e, got: raw.get(e.path) } : e)));
}

/**
 * A run the link gives an estimator and no label is labelled by its estimator, not by the default
 * run it patches (docs/links.md#run-labels): its default label is dropped, and validation fills it.
 */
function dropFollowedLabels(patch: { [k: string]: Json }, merged: Json): void {
  if (!Array.isArray(patch.runs) || !isPlainObject(merged) || !Array.isArray(merged.runs)) return;
  const runs = merged.runs;
  patch.runs.forEach((p, i) => {
    const run = runs[i];
    // An unknown estimator keeps the default label: its error is the estimator's alone.
    const known =
      isPlainObject(p) && typeof p.estimator === 'string' && Object.hasOwn(ESTIMATOR_LABELS, p.estimator);
    if (known && !('label' in p) && isPlainObject(run)) delete run.label;
  });
}

/**
 * The pairs with each run's label written where the link reader would not infer it: a run whose
 * estimator is written takes its estimator's label unless a label is written too. So the label is
 * left out exactly where it is the estimator's own, and written (even if the default's) elsewhere.
 */
function labelPairs(config: Experiment, pairs: [string, string][]): [string, string][] {
  const keys = new Set(pairs.map(([k]) => k));
  return pairs.flatMap((pair): [string, string][] => {
    const m = /^runs\.(\d+)\.(label|estimator)$/.exec(pair[0]);
    if (!m || !keys.has(`runs.${m[1]}.estimator`)) return [pair];
    const run = config.runs[Number(m[1])];
    const own = run.label === ESTIMATOR_LABELS[run.estimator];
    if (m[2] === 'label') return own ? [] : [pair];
    return own || keys.has(`runs.${m[1]}.label`)
      ? [pair]
      : [[`runs.${m[1]}.label`, encodeValue(run.label)], pair];
  });
}

/**
 * The value at a dotted path of a config (`optim.lr`, `runs.1.estimator`), as the validated
 * experiment holds it; undefined where the path leads nowhere.
 */
export function valueAt(config: Experiment, path: string): unknown {
  return path.split('.').reduce<unknown>((node, k) => (node as Record<string, unknown>)?.[k], config);
}

/** Builds nested objects/arrays from a dotted path; numeric segments index arrays. */
function setPath(root: { [k: string]: Json }, path: string[], value: Json): void {
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
function merge(base: Json | undefined, patch: Json): Json {
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

// ─── a sweep in a link ───────────────────────────────────────────────────────

/**
 * The prefix of a link's sweep keys: `sweep.optim.lr=0.001,0.002` is a dial over `optim.lr`, and the
 * link's other pairs are the experiment every cell starts from (docs/links.md#a-sweep-in-a-link).
 */
export const SWEEP_PREFIX = 'sweep.';

/** One dial of a sweep (a link's `sweep.KEY=…`, `lab sweep --grid KEY=…`): a link field and its values, as written. */
export interface Dial {
  key: string;
  values: string[];
}

/**
 * `v1,v2,…` → a dial's values, as written. Values that hold a comma themselves are separated by
 * `;` instead (`a,b;c`: the values `a,b` and `c`), and a lone one ends with `;` (`a,b;`: the one
 * value `a,b`, where `a,b` alone is two). `name` is how a refusal names the dial (`optim.lr` after
 * `--grid`, `sweep.optim.lr` in a link).
 */
export function dialValues(name: string, list: string): { values: string[] } | { refused: string } {
  const bySemicolon = list.includes(';');
  const values = list.split(bySemicolon ? ';' : ',');
  if (bySemicolon && values.length > 1 && values.at(-1) === '') values.pop();
  if (values.some((v) => v === '')) return { refused: `an empty value; give ${name}=v1,v2,…` };
  const twice = values.find((v, i) => values.indexOf(v) !== i);
  if (twice !== undefined) return { refused: `${name}=${twice} is given twice` };
  return { values };
}

/** A dial's values as written after `KEY=`: dialValues reads them back (a lone value holding a comma ends with `;`). */
export function dialList(values: readonly string[]): string {
  if (!values.some((v) => v.includes(','))) return values.join(',');
  return values.length === 1 ? `${values[0]};` : values.join(';');
}

/**
 * A link's sweep split from its experiment: the `sweep.KEY=v1,v2,…` pairs read as dials in the
 * order given (the first varies slowest, as `lab sweep`'s `--grid`s), the other pairs left as they
 * are for decodeExperiment. Only the sweep's own form is checked here; its values are checked as
 * the fields they are where the cells are planned (planLinkSweep in src/rl/sweep.ts).
 */
export function splitSweep(hash: string): { experiment: string; sweep: Dial[]; errors: FieldError[] } {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  // The whole link is held to MAX_HASH_LENGTH: decodeExperiment refuses it, unread.
  if (text.length > MAX_HASH_LENGTH) return { experiment: text, sweep: [], errors: [] };
  const rest: string[] = [];
  const sweep: Dial[] = [];
  const errors: FieldError[] = [];
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    let key = '';
    let list = '';
    try {
      key = decodeURIComponent(part.slice(0, Math.max(eq, 0)));
      list = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      // bad percent-encoding: decodeExperiment names it
    }
    if (eq <= 0 || !key.startsWith(SWEEP_PREFIX)) {
      rest.push(part);
      continue;
    }
    const field = key.slice(SWEEP_PREFIX.length);
    const read = dialValues(key, list);
    if (field === '') errors.push({ path: key, message: 'names no field: give sweep.KEY=v1,v2,…' });
    else if (field === 'v') errors.push({ path: key, message: 'is not a dial: the link version' });
    else if (field === 'steps')
      errors.push({ path: key, message: "is not a dial: every cell trains the link's steps" });
    else if (sweep.some((d) => d.key === field)) errors.push({ path: key, message: 'given twice' });
    else if ('refused' in read) errors.push({ path: key, message: read.refused, got: list });
    else sweep.push({ key: field, values: read.values });
  }
  // A link without sweep keys goes on to decodeExperiment exactly as it came.
  if (sweep.length === 0 && errors.length === 0) return { experiment: text, sweep, errors };
  // The version belongs to the whole link: a sweep alone is no experiment.
  if (rest.every((part) => part === ''))
    errors.push({ path: 'v', message: `missing; expected v=${CONFIG_VERSION}` });
  return { experiment: rest.join('&'), sweep, errors };
}

/**
 * The hash for an experiment and a sweep over it: the experiment's (encodeExperiment), then one
 * `sweep.KEY=v1,v2,…` per dial in grid order, so splitSweep reads back the same dials. With no
 * dials it is encodeExperiment's, unchanged.
 */
export function encodeLink(config: Experiment, sweep: readonly Dial[]): string {
  const dials = sweep.map(({ key, values }) => `${escape(SWEEP_PREFIX + key)}=${escape(dialList(values))}`);
  return [encodeExperiment(config), ...dials].join('&');
}

/**
 * Whether a link's experiment is `config` up to its live hyper-parameters: a stored session of
 * it can be shown and resumed under `config` (a live change moves the link on mid-run).
 */
export function sameStructure(hash: string, config: Experiment): boolean {
  if (hash === encodeExperiment(config)) return true;
  const r = decodeExperiment(hash);
  return r.ok && structuralKey(r.config) === structuralKey(config);
}
