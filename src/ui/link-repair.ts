/**
 * A refused link with its bad fields left out: what "Open it with these fields at their defaults"
 * opens. One bad field used to throw the whole link away for the default experiment; here each
 * refused key (and every key under it: `runs.1` takes `runs.1.optim.lr`) is dropped, so it falls
 * back to its default, and the rest of the link is read again, as the page reads any link. Where
 * a refusal names no key of the link (too long, no version, bad escapes), there is nothing to
 * drop and no such link.
 */
import type { FieldError } from '../core/config-validate';
import { decodeSweepLink } from '../rl/sweep';

/** Rounds of dropping: a field dropped can leave another refused (a run's label without its run). */
const ROUNDS = 3;

/** The key of one `key=value` part of a hash, decoded; null where it does not decode. */
function keyOf(part: string): string | null {
  const eq = part.indexOf('=');
  try {
    return eq > 0 ? decodeURIComponent(part.slice(0, eq)) : null;
  } catch {
    return null;
  }
}

/**
 * `hash` (with its `#`) without the fields `errors` refused, and the keys dropped, in the link's
 * order; null when a refusal names no key of the link, or the rest is still refused.
 */
export function withoutBadFields(
  hash: string,
  errors: readonly FieldError[],
): { hash: string; dropped: string[] } | null {
  let parts = hash.replace(/^#/, '').split('&');
  const dropped: string[] = [];
  let refused = errors;
  for (let round = 0; round < ROUNDS; round++) {
    const keys = parts.map(keyOf);
    // The version is never dropped: a link without one is no link.
    const names = (e: FieldError, key: string | null) =>
      key !== null && key !== 'v' && (key === e.path || key.startsWith(`${e.path}.`));
    // Every refusal must name a key of the link: otherwise dropping keys does not answer it.
    if (!refused.every((e) => keys.some((k) => names(e, k)))) return null;
    const bad = keys.map((k) => refused.some((e) => names(e, k)));
    dropped.push(...keys.filter((k, i): k is string => bad[i]));
    parts = parts.filter((_, i) => !bad[i]);
    const next = `#${parts.join('&')}`;
    const r = decodeSweepLink(next);
    if (r.ok) return { hash: next, dropped };
    refused = r.errors;
  }
  return null;
}
