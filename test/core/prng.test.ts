import { describe, expect, it } from 'vitest';
import { hashString, mixSeed, Prng } from '../../src/core/prng';

describe('Prng', () => {
  it('repeats its stream for the same seed and differs for another', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const xs = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(xs);
  });

  it('draws uniforms in [0, 1) and integers in range, about uniformly', () => {
    const rng = new Prng(7);
    const counts = new Array(10).fill(0);
    let lo = 1;
    let hi = 0;
    for (let i = 0; i < 20000; i++) {
      const u = rng.next();
      lo = Math.min(lo, u);
      hi = Math.max(hi, u);
      counts[rng.int(10)]++;
    }
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(1);
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200); // ~4.7 sigma
    for (let i = 0; i < 1000; i++) {
      const r = rng.range(3, 5);
      expect(r >= 3 && r <= 5 && Number.isInteger(r)).toBe(true);
    }
    expect(() => rng.int(0)).toThrow(/n ≥ 1/);
  });

  it('splits by label, independent of how much the parent has drawn', () => {
    const a = new Prng(9);
    const before = a.split('x').next();
    a.next();
    a.next();
    expect(a.split('x').next()).toBe(before);
    expect(a.split('y').next()).not.toBe(before);
    expect(mixSeed(9, 'x')).not.toBe(mixSeed(10, 'x'));
  });

  it('shuffles and samples without losing or repeating items', () => {
    const rng = new Prng(3);
    const items = [1, 2, 3, 4, 5, 6];
    expect(rng.shuffle(items).sort()).toEqual(items);
    const s = rng.sample(items, 4);
    expect(new Set(s).size).toBe(4);
    expect(() => rng.sample(items, 7)).toThrow();
  });

  it('hashes strings to stable 32-bit values', () => {
    expect(hashString('abc')).toBe(hashString('abc'));
    expect(hashString('abc')).not.toBe(hashString('abd'));
    expect(hashString('') >>> 0).toBe(hashString(''));
  });
});
