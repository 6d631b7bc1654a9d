/**
 * Small seeded PRNGs for the model layer: weight init and per-trajectory sampling.
 * mulberry32 (Tommy Ettinger's 32-bit generator) is tiny, fast and good enough for sampling;
 * it is an explicit object passed as an argument, never a patched global (style.md §7).
 * TODO: unify with a core PRNG once src/core has one. Pure: no tfjs.
 */

/** A stream of uniform floats in [0, 1). */
export interface Rng {
  next(): number;
}

/** mulberry32: a 32-bit state generator; the same seed gives the same stream everywhere. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return {
    next(): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/**
 * Mixes a base seed with stream indices (e.g. step, group, rollout) into a new 32-bit seed, so
 * per-trajectory generators are independent without sharing state. Uses the murmur3 finalizer.
 */
export function deriveSeed(base: number, ...parts: number[]): number {
  let h = base >>> 0;
  for (const p of [...parts, parts.length]) {
    h = Math.imul(h ^ (p >>> 0), 0x9e3779b1) >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** Fills `n` draws from N(0, std²) by Box–Muller (for deterministic weight init on the CPU). */
export function normals(rng: Rng, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - rng.next(); // (0, 1]: log(0) would be -Infinity
    const u2 = rng.next();
    const r = Math.sqrt(-2 * Math.log(u1)) * std;
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}
