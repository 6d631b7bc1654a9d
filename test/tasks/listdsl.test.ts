import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHARSET } from '../../src/core/vocab';
import { DSL_LIMITS, formatProgram, parseProgram, runSource } from '../../src/tasks/listdsl';

const out = (src: string, input: number[]) => {
  const r = runSource(src, input);
  if (!r.ok) throw new Error(r.error);
  return r.output;
};

describe('list DSL interpreter', () => {
  it('runs map, filter, rev, sort and rep', () => {
    expect(out('map +3', [1, 2, 3, 4])).toEqual([4, 5, 6, 7]);
    expect(out('filter >2', [1, 2, 3, 4])).toEqual([3, 4]);
    expect(out('map *2|filter <5', [0, 1, 2, 3])).toEqual([0, 2, 4]);
    expect(out('map -5', [1])).toEqual([-4]);
    expect(out('map /2', [-3, 3])).toEqual([-2, 1]); // floor division
    expect(out('map %3', [-1, 4])).toEqual([2, 1]); // non-negative remainder
    expect(out('filter =2|rev', [2, 1, 2])).toEqual([2, 2]);
    expect(out('filter !2', [2, 1, 2])).toEqual([1]);
    expect(out('rev|sort', [3, 1, 2])).toEqual([1, 2, 3]);
    expect(out('rep 3(map +1)', [0])).toEqual([3]);
    expect(out(' map  + 3 | rev ', [1, 2])).toEqual([5, 4]); // spaces between tokens are fine
  });

  it('formats programs so they parse back to themselves', () => {
    for (const src of ['map +3', 'filter >2|map *2', 'rep 2(rev|map -1)|sort', 'map %7']) {
      const p = parseProgram(src);
      expect(p.ok).toBe(true);
      if (p.ok) expect(formatProgram(p.program)).toBe(src);
    }
  });

  it('refuses malformed programs with a message saying what and where', () => {
    const cases: [string, RegExp][] = [
      ['', /expected map, filter/],
      ['map', /expected \+ - \* \/ % after map/],
      ['map +', /expected an integer constant/],
      ['map 3', /after map/],
      ['filter >x', /expected an integer/],
      ['shell rm', /unknown stage 'shell'/],
      ['map +1|', /expected map/],
      ['map +1 rev', /unexpected 'r'/],
      ['map /0', /division by zero/],
      ['map %0', /division by zero/],
      ['map +100', /out of range ±99/],
      ['rep 0(rev)', /≥ 1/],
      ['rep 10(rev)', /repeat count 10 out of range/],
      ['rep 2 rev', /expected \( after rep 2/],
      ['rep 2(rev', /expected \)/],
      ['rep 2(rep 2(rep 2(rep 2(rev))))', /nested deeper than 3/],
      ['map +1|'.repeat(20) + 'rev', /too long/],
    ];
    for (const [src, msg] of cases) {
      const r = parseProgram(src);
      expect(r.ok, src).toBe(false);
      if (!r.ok) expect(r.error, src).toMatch(msg);
    }
    const r = parseProgram('map +1 rev');
    if (!r.ok) expect(r.error).toMatch(/^at 7:/);
  });

  it('stops runaway programs at the step limit', () => {
    const hostile = 'rep 9(rep 9(rep 9(map +1|map -1)))'; // 9³ × 2 × 4 = 5832 element ops
    const r = runSource(hostile, [1, 2, 3, 4]);
    expect(r).toMatchObject({ ok: false, error: `step limit ${DSL_LIMITS.maxSteps} exceeded` });
    if (!r.ok) expect(r.steps).toBeLessThanOrEqual(DSL_LIMITS.maxSteps + 4);
    expect(
      runSource(
        'rep 9(rep 9(sort))',
        Array.from({ length: 16 }, (_, i) => i),
      ),
    ).toMatchObject({ ok: false });
    expect(runSource('map +1', [1, 2, 3, 4], 3)).toMatchObject({ ok: false, error: 'step limit 3 exceeded' });
    expect(runSource('map +1', [1, 2, 3, 4], 4)).toMatchObject({ ok: true, steps: 4 });
  });

  it('refuses values and inputs out of range', () => {
    expect(runSource('rep 9(map *99)', [5])).toMatchObject({ ok: false, error: /value out of range/ });
    expect(runSource('rev', new Array(17).fill(1))).toMatchObject({ ok: false, error: /input longer/ });
    expect(runSource('rev', [Number.NaN])).toMatchObject({ ok: false });
  });

  it('never throws and never exceeds its step budget on arbitrary text', () => {
    const chars = [...CHARSET];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...chars), { maxLength: 70 }).map((cs) => cs.join('')),
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 8 }),
        (src, input) => {
          const r = runSource(src, input);
          expect(r.steps).toBeLessThanOrEqual(DSL_LIMITS.maxSteps + 16 * 16);
        },
      ),
      { numRuns: 2000 },
    );
    // Grammar-shaped fuzz reaches the interpreter far more often than random characters.
    const stage = fc.oneof(
      fc.constantFrom('rev', 'sort'),
      fc
        .tuple(
          fc.constantFrom('map ', 'filter '),
          fc.constantFrom('+', '-', '*', '/', '%', '>', '<', '=', '!'),
          fc.integer({ min: -120, max: 120 }),
        )
        .map((t) => t.join('')),
      fc
        .tuple(
          fc.integer({ min: 0, max: 10 }),
          fc.constantFrom('rev', 'map *9', 'rep 9(map +1)', 'rep 9(rep 9(sort))'),
        )
        .map(([n, b]) => `rep ${n}(${b})`),
    );
    fc.assert(
      fc.property(
        fc.array(stage, { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: -9, max: 9 }), { maxLength: 16 }),
        (stages, input) => {
          const r = runSource(stages.join('|'), input);
          if (r.ok) expect(r.output.every(Number.isSafeInteger)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
