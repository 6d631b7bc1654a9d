/**
 * A refused link repaired: what the bad-link alert's "Open it with …" opens. One bad field used to
 * throw the whole link away for the default experiment; here each refused key that has a
 * suggestion ("did you mean optim.lr?", "did you mean search?") takes it, with the link's own value
 * (`optim.lrr=0.1` becomes `optim.lr=0.1`, `task=serch` becomes `task=search`), and every other
 * refused key (and every key under it: `runs.1` takes `runs.1.optim.lr`) is dropped, so it falls
 * back to its default; the rest of the link is read again, as the page reads any link. Where a
 * refusal names no key of the link (too long, no version, bad escapes), there is nothing to mend
 * and no such link.
 */
import type { Experiment } from '../core/config';
import type { FieldError } from '../core/config-validate';
import { encodeValue, hashEscape } from '../core/url-pairs';
import { decodeSweepLink } from '../rl/sweep';
import { echoed, labelOf } from './field-labels';
import { listed } from '../core/config-words';

/**
 * Rounds of mending: a field dropped can leave another refused (a run's label without its run),
 * and a suggestion taken can be refused in turn (`G=banana` read as `rollout.groupSize=banana`).
 */
const ROUNDS = 3;

/** One `key=value` part of the link as the repair goes: its key now, and what the repair did to it. */
interface Part {
  text: string;
  key: string | null;
  /** The link's own key, where the repair gave its value to the field it most likely meant. */
  from?: string;
  /** The value the repair gave the key in place of the link's. */
  value?: string;
}

/** A refused link mended: the hash to open, and what changed, in the link's order. */
export interface LinkRepair {
  hash: string;
  /** The experiment it opens (its runs name the keys under them: "Dr. MAS run: Learning rate"). */
  config: Experiment;
  /** Keys that are no field, their value given to the field each most likely meant. */
  renamed: { from: string; to: string }[];
  /** Keys whose value the field does not take, given the value each most likely meant. */
  revalued: { key: string; value: string }[];
  /** Keys left out: their fields at their defaults. */
  dropped: string[];
  /**
   * Each refused run's label as the refused link gave it, by run index: the alert's list names a
   * run's fields so ("Dr. MAS run: Estimator"), and the button names them the same way, not by the
   * label the mended run takes ("GRPO 2" once its estimator is grpo).
   */
  runLabels: Record<number, string>;
}

/** The key of one `key=value` part of a hash, decoded; null where it does not decode. */
function keyOf(part: string): string | null {
  const eq = part.indexOf('=');
  try {
    return eq > 0 ? decodeURIComponent(part.slice(0, eq)) : null;
  } catch {
    return null;
  }
}

/** Whether refusal `e` is about the link's key `key` (or a key under the one it names). The version never is. */
const names = (e: FieldError, key: string | null) =>
  key !== null && key !== 'v' && (key === e.path || key.startsWith(`${e.path}.`));

/**
 * `part`, refused for `blamed`, with the suggestion taken where there is exactly one refusal, of
 * this very key, the part is as the link gave it, and a suggested key is not in the link already
 * (it would be given twice); otherwise null: the part is dropped.
 */
function mended(part: Part, blamed: readonly FieldError[], keys: Set<string | null>): Part | null {
  const [e] = blamed;
  const meant =
    blamed.length === 1 && e.path === part.key && !part.from && part.value === undefined
      ? e.meant
      : undefined;
  if (!meant) return null;
  const eq = part.text.indexOf('=');
  if ('value' in meant)
    return {
      ...part,
      text: `${part.text.slice(0, eq + 1)}${hashEscape(encodeValue(meant.value))}`,
      value: meant.value,
    };
  if (keys.has(meant.key)) return null;
  keys.add(meant.key);
  return { text: `${meant.key}${part.text.slice(eq)}`, key: meant.key, from: part.key! };
}

/**
 * `hash` (with its `#`) with each refused key mended or left out, and what changed; null when a
 * refusal names no key of the link, or the rest is still refused.
 */
export function repairLink(hash: string, errors: readonly FieldError[]): LinkRepair | null {
  let parts: Part[] = hash
    .replace(/^#/, '')
    .split('&')
    .map((text) => ({ text, key: keyOf(text) }));
  const dropped: string[] = [];
  const runLabels: Record<number, string> = {};
  for (const e of errors) {
    const run = /^runs\.(\d+)\./.exec(e.path);
    if (run && e.run !== undefined) runLabels[Number(run[1])] ??= e.run;
  }
  let refused = errors;
  for (let round = 0; round < ROUNDS; round++) {
    // Every refusal must name a key of the link: otherwise mending keys does not answer it.
    if (!refused.every((e) => parts.some((p) => names(e, p.key)))) return null;
    const keys = new Set(parts.map((p) => p.key));
    parts = parts.flatMap((p) => {
      const blamed = refused.filter((e) => names(e, p.key));
      if (blamed.length === 0) return [p];
      const fixed = mended(p, blamed, keys);
      if (fixed) return [fixed];
      dropped.push(p.from ?? p.key!);
      return [];
    });
    const next = `#${parts.map((p) => p.text).join('&')}`;
    const read = decodeSweepLink(next);
    if (read.ok)
      return {
        hash: next,
        config: read.config,
        renamed: parts.flatMap((p) => (p.from ? [{ from: p.from, to: p.key! }] : [])),
        revalued: parts.flatMap((p) => (p.value !== undefined ? [{ key: p.key!, value: p.value }] : [])),
        dropped,
        runLabels,
      };
    refused = read.errors;
  }
  return null;
}

/**
 * A link's key by its field's label, the key in brackets ("Learning rate (optim.lr)"); the key alone
 * where it has none. A run's field is named by the run as the alert's list names it.
 */
const named = (key: string, r: LinkRepair) => {
  const runs = r.config.runs.map((run, i) => (i in r.runLabels ? { ...run, label: r.runLabels[i] } : run));
  const label = labelOf(key, { ...r.config, runs });
  return label ? `${label} (${key})` : echoed(key);
};

/**
 * The repair in words, for its button: "Open it with optim.lrr as Learning rate (optim.lr) and
 * Task (task) as search; colour at its default".
 */
export function repairWords(r: LinkRepair): string {
  const taken = [
    ...r.renamed.map((x) => `${echoed(x.from)} as ${named(x.to, r)}`),
    ...r.revalued.map((x) => `${named(x.key, r)} as ${echoed(x.value)}`),
  ];
  const defaults = r.dropped.map((k) => named(k, r));
  const atDefaults = defaults.length
    ? `${listed(defaults)} at ${defaults.length === 1 ? 'its default' : 'their defaults'}`
    : '';
  return `Open it with ${[listed(taken), atDefaults].filter(Boolean).join('; ')}`;
}
