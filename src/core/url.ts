/**
 * Experiment ⇄ URL hash. The hash holds the config only (never weights or progress), versioned,
 * with only the fields that differ from the defaults, as readable `path=value` pairs:
 *   #v=1&task=math&optim.lr=0.001&runs.1.estimator=global-step
 * A list's indices patch the default list element by element, so `runs.1.estimator=global-step`
 * alone is the default runs with run 1's estimator changed (and its label with it, docs/links.md#run-labels). `runs=[]` first empties the list, so a
 * list shorter than the default is written `runs=[]&runs.0.label=…` (whole, after the reset); a
 * longer one is its diffs from the default elements plus the new elements whole. A run's live
 * changes are keyed by step, `runs.0.live.179.optim.lr=0.003` (docs/links.md#live-change-schedule). Values are typed by their text: numbers, `true`/`false`,
 * `[]`, `{}`, otherwise a string; a string that would read as one of those is JSON-quoted. A
 * workflow experiment's workflow is one pair, packed or named by its hash (WORKFLOW_KEY below).
 * Nothing is evaluated: parsing is `Number`, `JSON.parse` of a quoted string, and the zod schema.
 * The pairs' own form is url-pairs.ts's; a sweep in a link, url-sweep.ts's. Pure functions; only
 * src/ui touches window.location.
 */
import { CONFIG_VERSION, DEFAULT_EXPERIMENT, structuralKey } from './config';
import { validateExperiment } from './config-validate';
import type { Experiment } from './config';
import type { FieldError } from './config-validate';
import { ownLabel } from './estimators';
import {
  decodeValue,
  encodeValue,
  hashEscape,
  flatten,
  isPlainObject,
  maxLinkLength,
  merge,
  setPath,
  type Json,
} from './url-pairs';
import { dialList, SWEEP_PREFIX, type Dial } from './url-sweep';
import { knownWorkflow, MAX_PACKED, packWorkflow, unpackWorkflow, workflowHash } from './workflow/pack';
import type { WorkflowSpec } from './workflow/families';

/**
 * A workflow experiment's workflow travels whole in one pair: packed (`wf=`) where it fits
 * MAX_PACKED, otherwise named by its hash (`wfhash=`), whose file the page then asks for
 * (docs/links.md#a-workflow-in-a-link). `workflow.…` pairs patch the workflow as any field's do.
 */
export const WORKFLOW_KEY = 'wf';
export const WORKFLOW_HASH_KEY = 'wfhash';

/** Old versions are rewritten pair by pair into the current one. None yet: v1 is the first. */
const MIGRATIONS: Record<number, (pairs: [string, string][]) => [string, string][]> = {};

/** The hash (without `#`) for an experiment: the version, then only non-default fields. */
export function encodeExperiment(config: Experiment): string {
  const { workflow, ...rest } = config;
  const pairs: [string, string][] = [['v', String(CONFIG_VERSION)]];
  flatten(rest as unknown as Json, DEFAULT_EXPERIMENT as unknown as Json, '', pairs);
  const text = labelPairs(config, pairs)
    .map(([k, v]) => `${k}=${hashEscape(v)}`)
    .join('&');
  return workflow ? `${text}&${workflowPair(workflow)}` : text;
}

/**
 * The pair that carries a workflow: packed where it fits, else its hash. Once per workflow object
 * (the address bar follows every change of the experiment; a live change keeps its workflow).
 */
function workflowPair(wf: WorkflowSpec): string {
  let pair = PAIRS.get(wf);
  if (pair === undefined) {
    // Many inline rows cannot pack into a link: they are not deflated only to learn so.
    const packed = JSON.stringify(wf).length <= MAX_PACKED * 64 ? packWorkflow(wf) : null;
    pair =
      packed !== null && packed.length <= MAX_PACKED
        ? `${WORKFLOW_KEY}=${packed}`
        : `${WORKFLOW_HASH_KEY}=${workflowHash(wf)}`;
    PAIRS.set(wf, pair);
  }
  return pair;
}
const PAIRS = new WeakMap<WorkflowSpec, string>();

/** The hash a link names its workflow by (`wfhash=`), or null: the page asks for that file. */
export function linkWorkflowHash(hash: string): string | null {
  const m = /(?:^#?|&)wfhash=([0-9a-f]{64})(?:&|$)/.exec(hash);
  return m ? m[1] : null;
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
  const limit = maxLinkLength(text);
  if (text.length > limit) {
    const which = limit > 2048 ? ' for a link that carries its workflow' : '';
    return fail([{ path: '(hash)', message: `${text.length} characters; the limit is ${limit}${which}` }]);
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
        message: `unknown version ${JSON.stringify(version)}; this lab reads ${CONFIG_VERSION === 1 ? 'version 1' : `versions 1–${CONFIG_VERSION}`}`,
      },
    ]);
  }
  pairs = pairs.filter(([k]) => k !== 'v');
  for (; v < CONFIG_VERSION; v++) pairs = MIGRATIONS[v](pairs);

  // 3. rebuild the diff object, then merge over the defaults and validate
  const patch: { [k: string]: Json } = {};
  const seen = new Set<string>();
  let workflow: WorkflowSpec | undefined;
  for (const [key, raw] of pairs) {
    if (seen.has(key)) {
      errors.push({ path: key, message: 'given twice' });
      continue;
    }
    seen.add(key);
    if (key === WORKFLOW_KEY || key === WORKFLOW_HASH_KEY) {
      if (seen.has(key === WORKFLOW_KEY ? WORKFLOW_HASH_KEY : WORKFLOW_KEY)) {
        errors.push({ path: key, message: 'a link carries its workflow once: wf= or wfhash=, not both' });
        continue;
      }
      const read = linkedWorkflow(key, raw);
      if ('error' in read) errors.push(read.error);
      else workflow = read.workflow;
      continue;
    }
    // A sweep is a link's, not an experiment's (the page reads it with splitSweep): say where it goes.
    if (key.startsWith(SWEEP_PREFIX)) {
      const dial = key.slice(SWEEP_PREFIX.length);
      const message = `is a sweep's dial, not a field of one experiment: lab sweep takes it as --grid ${dial}=… or with the whole link as its --config, the page trains it from the link`;
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
  // The workflow's own pairs (a sweep's `workflow.mix`, say) patch the one the link carries.
  if (workflow) patch.workflow = merge(workflow as unknown as Json, patch.workflow ?? {});
  const merged = merge(DEFAULT_EXPERIMENT as unknown as Json, patch);
  dropFollowedLabels(patch, merged);
  const checked = validateExperiment(merged);
  if (checked.ok) return checked;
  // Each refusal of a key the link gave quotes the link's text back: "got 'banana'".
  const raw = new Map(pairs);
  return fail(checked.errors.map((e) => (raw.has(e.path) ? { ...e, got: raw.get(e.path) } : e)));
}

/** The workflow a link's `wf=` packs or its `wfhash=` names (known here: rememberWorkflow), or the refusal. */
function linkedWorkflow(key: string, raw: string): { workflow: WorkflowSpec } | { error: FieldError } {
  if (key === WORKFLOW_KEY) {
    const read = unpackWorkflow(raw);
    if (read.ok) return { workflow: read.value };
    const said = read.issues.slice(0, 3).map((i) => `${i.where}: ${i.message}`);
    return { error: { path: key, message: `is not a workflow this lab reads (${said.join('; ')})` } };
  }
  if (!/^[0-9a-f]{64}$/.test(raw))
    return { error: { path: key, message: "a workflow's SHA-256: 64 hex digits", got: raw.slice(0, 80) } };
  const known = knownWorkflow(raw);
  if (known) return { workflow: known };
  return {
    error: {
      path: key,
      message: `names its workflow by its SHA-256 (${raw.slice(0, 12)}…), too large to carry in a link: open the workflow file it names`,
    },
  };
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
    const known = isPlainObject(p) && ownLabel(p.estimator) !== undefined;
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
    const own = run.label === ownLabel(run.estimator);
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

/**
 * The hash for an experiment and a sweep over it: the experiment's (encodeExperiment), then one
 * `sweep.KEY=v1,v2,…` per dial in grid order, so splitSweep reads back the same dials. With no
 * dials it is encodeExperiment's, unchanged.
 */
export function encodeLink(config: Experiment, sweep: readonly Dial[]): string {
  const dials = sweep.map(
    ({ key, values }) => `${hashEscape(SWEEP_PREFIX + key)}=${hashEscape(dialList(values))}`,
  );
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
