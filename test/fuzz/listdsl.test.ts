/**
 * Fuzzed list-DSL programs (docs/fuzz.md#list-dsl): source text from the grammar's own tokens and
 * from random characters, run on lists of any integers. Parsing and running never throw; a refusal
 * says why; an accepted program reads back from its canonical text to itself and stays within the
 * step and value limits.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { DSL_LIMITS, formatProgram, parseProgram, runProgram } from '../../src/tasks/listdsl';
import { fuzz, RUNS } from './harness';

const token = fc.constantFrom(
  ...['map', 'filter', 'rev', 'sort', 'rep', 'constructor', '__proto__', 'mapp', 'Map'],
  ...['+', '-', '*', '/', '%', '>', '<', '=', '!', '|', '(', ')', ' ', '  '],
  ...['0', '1', '-1', '3', '9', '10', '99', '100', '-100', '999999999999', '1e3', '0x1', '\u0000', '١'],
);
/** Programs from the grammar, with constants and counts on both sides of the limits. */
const { pipe } = fc.letrec<{ stage: string; pipe: string }>((tie) => ({
  stage: fc.oneof(
    { maxDepth: 3 },
    fc
      .tuple(fc.constantFrom('+', '-', '*', '/', '%'), fc.integer({ min: -105, max: 105 }))
      .map(([op, k]) => `map ${op}${k}`),
    fc
      .tuple(fc.constantFrom('>', '<', '=', '!', '*'), fc.integer({ min: -105, max: 105 }))
      .map(([op, k]) => `filter ${op}${k}`),
    fc.constantFrom('rev', 'sort'),
    fc.tuple(fc.integer({ min: -1, max: 11 }), tie('pipe')).map(([t, body]) => `rep ${t}(${body})`),
  ),
  pipe: fc.array(tie('stage'), { minLength: 1, maxLength: 2 }).map((xs) => xs.join('|')),
}));
const source = fc.oneof(
  pipe,
  fc
    .tuple(pipe, fc.nat(64), fc.string({ maxLength: 2 }), fc.nat(2))
    .map(([p, at, ins, cut]) => p.slice(0, at) + ins + p.slice(at + cut)),
  fc.array(token, { maxLength: 24 }).map((ts) => ts.join('')),
  fc.array(token, { maxLength: 24 }).map((ts) => ts.join(' ')),
  fc.string({ maxLength: 70 }),
);
const value = fc.oneof(
  { arbitrary: fc.integer({ min: -100, max: 100 }), weight: 20 },
  fc.integer(),
  fc.constantFrom(
    DSL_LIMITS.maxValue,
    -DSL_LIMITS.maxValue,
    DSL_LIMITS.maxValue + 1,
    2 ** 53,
    NaN,
    Infinity,
    -0,
    0.5,
  ),
);
const input = fc.array(value, { maxLength: DSL_LIMITS.maxList + 2 });

describe('fuzzed list-DSL programs', () => {
  it(`parses and runs each of ${RUNS} programs or refuses it with a reason, never throwing`, () => {
    fuzz('list-DSL', fc.tuple(source, input), ([src, xs]) => {
      const parsed = parseProgram(src);
      if (!parsed.ok) return parsed.error ? 'refused' : `a parse refusal without a reason: ${src}`;
      const text = formatProgram(parsed.program);
      const again = parseProgram(text);
      if (!again.ok || formatProgram(again.program) !== text)
        return `${src} formats to ${text}, which does not read back`;
      const run = runProgram(parsed.program, xs);
      if (run.steps > DSL_LIMITS.maxSteps && run.ok) return `ran ${run.steps} steps, over the limit`;
      if (!run.ok) return run.error ? 'refused' : `a run refusal without a reason: ${src}`;
      if (run.output.length > xs.length) return `${src} grew the list`;
      if (run.output.some((v) => !Number.isSafeInteger(v) || Math.abs(v) > DSL_LIMITS.maxValue))
        return `${src} produced a value out of range: ${run.output}`;
      return 'accepted';
    });
  });
});
