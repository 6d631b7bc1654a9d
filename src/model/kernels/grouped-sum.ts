/**
 * The order in which grad-norm.ts's sumAll joins many tensors: groups of at most ADDN_MAX, each one
 * AddN, then the groups' sums the same way, a last lone tensor passed through. The wasm global-norm
 * kernel (grad-norm-wasm.ts) joins its numbers in the same order, so both give the same bits.
 */

/**
 * At most this many tensors per AddN: webgpu binds each input as a storage buffer, and a device
 * allows 8 per shader stage by default (one is the output); 4.22's AddN does not split, so a larger
 * AddN fails pipeline validation and every later dispatch of it.
 */
export const ADDN_MAX = 7;

/** Σ xs (at least one) in groups of at most ADDN_MAX, each group summed by `sum`. */
export function groupedSum<T>(xs: readonly T[], sum: (group: T[]) => T): T {
  while (xs.length > 1) {
    const next: T[] = [];
    for (let i = 0; i < xs.length; i += ADDN_MAX)
      next.push(xs.length - i === 1 ? xs[i] : sum(xs.slice(i, i + ADDN_MAX)));
    xs = next;
  }
  return xs[0];
}
