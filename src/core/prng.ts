/**
 * The lab's one seeded PRNG: a mulberry32 stream with labelled splitting (`split`, `mixSeed`) and
 * a string hash for train/validation splits. Every consumer — task generators, weight init, the
 * sampler's per-trajectory streams, mini-batch shuffles — gets an explicit object passed as an
 * argument, never a patched global (docs/architecture.md#seeded-randomness). Pure: no tfjs, no DOM, no Node APIs.
 */

/** murmur3's 32-bit finalizer: spreads every input bit over the output. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, finalized with fmix32 (FNV alone has weak low bits). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h >>> 0);
}

/** Combines a seed with a label into a new 32-bit seed. */
export function mixSeed(seed: number, label: string | number): number {
  return fmix32((seed >>> 0) ^ Math.imul(hashString(String(label)), 0x9e3779b1));
}

/** A deterministic stream of uniforms; `split(label)` derives independent child streams. */
export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1) throw new Error(`Prng.int: need an integer n ≥ 1, got ${n}.`);
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi], both ends included. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Prng.pick: empty list.');
    return items[this.int(items.length)];
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** `n` distinct items, in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    if (n > items.length) throw new Error(`Prng.sample: want ${n} of ${items.length} items.`);
    return this.shuffle(items).slice(0, n);
  }

  /**
   * A child stream for `label`, derived from this stream's seed only: it does not depend on how
   * many numbers were drawn, so adding a draw somewhere never shifts an unrelated stream.
   */
  split(label: string | number): Prng {
    return new Prng(mixSeed(this.seed, label));
  }
}
