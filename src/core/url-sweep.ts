/**
 * A sweep in a link: `sweep.KEY=v1,v2,…` pairs beside an experiment's, each a dial over one link
 * field (docs/links.md#a-sweep-in-a-link). Here its form is read and written: the dials split from
 * the experiment's pairs, a dial's values from its list. The values are checked as the fields they
 * are where the cells are planned (planLinkSweep in src/rl/sweep.ts); url.ts encodes a link with
 * its sweep (encodeLink). Pure: no DOM.
 */
import { CONFIG_VERSION } from './config';
import type { FieldError } from './config-validate';
import { maxLinkLength } from './url-pairs';

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
  // The whole link is held to its limit (maxLinkLength): decodeExperiment refuses it, unread.
  if (text.length > maxLinkLength(text)) return { experiment: text, sweep: [], errors: [] };
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
