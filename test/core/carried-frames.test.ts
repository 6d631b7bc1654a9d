import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { carry, FramesInFlight, MAX_CARRIED, uncarry, type StepFrame } from '../../src/core/carried-frames';

const frame = (step: number, ...values: number[]): StepFrame => ({ step, values: Float64Array.from(values) });
const bytesOf = (fs: StepFrame[]) => fs.map((f) => [f.step, Buffer.from(f.values.buffer).toString('hex')]);

describe('the frames a saved state carries', () => {
  it('reads back bit for bit, NaN, −0 and ±Infinity included', () => {
    const value = fc.double(); // every double: NaN, -0 and ±Infinity among them
    fc.assert(
      fc.property(
        fc.nat(1000),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(value, { minLength: 108, maxLength: 108 }),
        (from, width, count, pool) => {
          const frames = Array.from({ length: count }, (_, i) =>
            frame(from + i, ...Array.from({ length: width }, (_, k) => pool[(i * width + k) % pool.length])),
          );
          const back = uncarry(JSON.parse(JSON.stringify(carry(frames))), from + count);
          expect(back && bytesOf(back)).toEqual(bytesOf(frames));
        },
      ),
    );
    expect(carry([])).toBeUndefined();
  });

  it('refuses what carry does not write for a state after that many steps', () => {
    const c = carry([frame(3, 1, NaN), frame(4, 2, -0)])!; // steps 3 and 4 of a state after 5 steps
    expect(uncarry(c, 5)).toHaveLength(2);
    expect(uncarry(c, 6)).toBeNull(); // a step short
    expect(uncarry(c, 4)).toBeNull();
    for (const bad of [
      null,
      'frames',
      { ...c, from: -1 },
      { ...c, from: 6 },
      { ...c, from: 3.5 },
      { ...c, width: 0 },
      { ...c, width: 1 },
      { ...c, width: 2 ** 20 },
      { ...c, values: c.values + '!' },
      { ...c, values: c.values.slice(0, -1) },
      { from: 3, width: 2 },
    ])
      expect(uncarry(bad, 5)).toBeNull();
    expect(() => carry([frame(3, 1), frame(5, 2)])).toThrow(/consecutive/);
    expect(() => carry([frame(3, 1), frame(4, 2, 3)])).toThrow(/one width/);
  });

  it('keeps in flight what the page has not stored, and a state carries those before its step', () => {
    const f = new FramesInFlight();
    for (let s = 0; s < 6; s++) f.add(frame(s, s));
    f.storedBefore(2);
    expect(f.size).toBe(4);
    expect(uncarry(f.before(5), 5)!.map((x) => x.step)).toEqual([2, 3, 4]);
    f.add(frame(4, 40)); // step 4 done again (a lost device's fallback): 4 and 5 replaced
    expect(uncarry(f.before(5), 5)!.map((x) => [x.step, x.values[0]])).toEqual([
      [2, 2],
      [3, 3],
      [4, 40],
    ]);
    f.storedBefore(5);
    expect(f.before(5)).toBeUndefined();
    expect(f.size).toBe(0);
  });

  it('keeps at most twice MAX_CARRIED in flight while the page stores none (a full disk), the oldest dropped', () => {
    const f = new FramesInFlight();
    const n = 3 * MAX_CARRIED;
    for (let s = 0; s < n; s++) f.add(frame(s, s));
    expect(f.size).toBe(2 * MAX_CARRIED);
    // The page stores up to step n − 10: what a state after n steps carries starts there, gapless.
    f.storedBefore(n - 10);
    expect(uncarry(f.before(n), n)!.map((x) => x.step)).toEqual(
      Array.from({ length: 10 }, (_, i) => n - 10 + i),
    );
  });
});
