/**
 * The fuzz suites' shared harness (see docs/fuzz.md): seeded fast-check properties over what a
 * reader of user files or links does with hostile input. Every case must end in one of:
 * - accepted (the reader returned),
 * - refused: a thrown Error whose class is the lab's (Error or a subclass the lab defines) with a
 *   message. An engine error (TypeError, RangeError, SyntaxError, …) escaping a reader is a crash:
 *   its message speaks of the code ("Cannot read properties of null"), not of the input;
 * and no case may pollute Object.prototype or take 100 ms or more.
 *
 * FUZZ_SEED sets the seed (default 29, so `npm test` is repeatable; `FUZZ_SEED=random` draws one
 * and prints it); FUZZ_RUNS the cases per suite (default 10,000).
 */
import fc from 'fast-check';

const seedEnv = process.env.FUZZ_SEED;
export const SEED = seedEnv === 'random' ? (Math.random() * 2 ** 31) | 0 : seedEnv ? Number(seedEnv) : 29;
if (!Number.isInteger(SEED)) throw new Error(`FUZZ_SEED must be an integer or "random", got ${seedEnv}`);
export const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
/** Slower than this is a failure, if the input is that slow again when re-timed alone (not a GC pause). */
export const LIMIT_MS = 100;

const ENGINE_ERRORS = [TypeError, RangeError, SyntaxError, ReferenceError, URIError, EvalError];

/** Why a thrown value is a crash, or null if it is a refusal. */
export function crashOf(e: unknown): string | null {
  if (!(e instanceof Error)) return `threw a non-Error: ${String(e)}`;
  if (ENGINE_ERRORS.some((k) => e instanceof k)) {
    const where = e.stack?.split('\n').find((l) => l.includes('/src/'));
    return `${e.name} escaped: ${e.message}${where ? ` (${where.trim()})` : ''}`;
  }
  if (!e.message.trim()) return `${e.name} with no message`;
  return null;
}

/** What a case may end in; any other string `check` returns is a failure, in its words. */
const OUTCOMES = new Set(['accepted', 'refused', 'unchanged', 'accepted (forged)']);

export interface FuzzReport {
  cases: number;
  counts: Record<string, number>;
  slowestMs: number;
  slowest: string;
}

/**
 * Runs `check` on RUNS inputs from `arb`; `check` returns one of OUTCOMES or a failure message.
 * Every outcome in `mustReach` must occur: a generator that stopped reaching the accepting path (or
 * the refusing one) would leave that path's properties tested by nothing.
 */
export function fuzz<T>(
  suite: string,
  arb: fc.Arbitrary<T>,
  check: (input: T) => string,
  describeInput: (input: T) => string = (x) => fc.stringify(x),
  mustReach: readonly string[] = ['accepted', 'refused'],
): FuzzReport {
  const report: FuzzReport = { cases: 0, counts: {}, slowestMs: 0, slowest: '' };
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).join();
  const timed = (input: T): { outcome: string; ms: number } => {
    const t0 = performance.now();
    const outcome = check(input);
    return { outcome, ms: performance.now() - t0 };
  };
  const property = fc.property(arb, (input) => {
    const first = timed(input);
    const outcome = first.outcome;
    let ms = first.ms;
    if (ms >= LIMIT_MS) ms = Math.min(ms, ...[0, 1, 2].map(() => timed(input).ms));
    if ((Object.prototype as Record<string, unknown>).polluted !== undefined)
      return failWith(`Object.prototype.polluted was set`);
    if (Object.getOwnPropertyNames(Object.prototype).join() !== prototypeKeys)
      return failWith('Object.prototype gained a property');
    if (!OUTCOMES.has(outcome)) return failWith(outcome);
    if (ms >= LIMIT_MS) return failWith(`took ${ms.toFixed(1)} ms (limit ${LIMIT_MS} ms)`);
    report.cases++;
    report.counts[outcome] = (report.counts[outcome] ?? 0) + 1;
    if (ms > report.slowestMs) {
      report.slowestMs = ms;
      report.slowest = describeInput(input).slice(0, 160);
    }
    return true;
  });
  try {
    fc.assert(property, { seed: SEED, numRuns: RUNS });
  } catch (e) {
    console.error(
      `fuzz ${suite}: FAILED with seed ${SEED}; reproduce: FUZZ_SEED=${SEED} npx vitest run --project unit test/fuzz/`,
    );
    throw e;
  }
  const counts = Object.entries(report.counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  console.log(
    `fuzz ${suite}: ${report.cases} cases (seed ${SEED}): ${counts}, 0 crashes; slowest ${report.slowestMs.toFixed(2)} ms: ${report.slowest}`,
  );
  const missed = mustReach.filter((o) => !report.counts[o]);
  if (missed.length > 0) failWith(`fuzz ${suite}: no case was ${missed.join(' or ')} (seed ${SEED})`);
  return report;
}

function failWith(message: string): never {
  throw new Error(message);
}

/** Runs a reader: 'accepted' if it returns, 'refused' for a clean refusal, else what crashed. */
export function outcomeOf(read: () => unknown): string {
  try {
    read();
    return 'accepted';
  } catch (e) {
    return crashOf(e) ?? 'refused';
  }
}

/** Byte-level mutations of a file: flips, overwrites, cuts, insertions, duplications, truncation. */
export function mutatedBytes(original: Uint8Array): fc.Arbitrary<Uint8Array> {
  const n = original.length;
  const at = fc.integer({ min: 0, max: n - 1 });
  // Most of a file is its payload; aim half the edits at the header, where the parsing happens.
  const headerAt = fc.integer({ min: 0, max: Math.min(n - 1, 4096) });
  const pos = fc.oneof(at, headerAt);
  // Positions are taken modulo the current length: an earlier edit may have shortened the file.
  const put = (b: Uint8Array, i: number, f: (old: number) => number) => {
    const c = b.slice();
    if (c.length > 0) c[i % c.length] = f(c[i % c.length]);
    return c;
  };
  const cat = (...parts: Uint8Array[]) => {
    const c = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    parts.reduce((at, p) => (c.set(p, at), at + p.length), 0);
    return c;
  };
  const one = fc.oneof(
    fc.tuple(pos, fc.integer({ min: 0, max: 7 })).map(
      ([i, bit]) =>
        (b: Uint8Array) =>
          put(b, i, (x) => x ^ (1 << bit)),
    ),
    fc.tuple(pos, fc.integer({ min: 0, max: 255 })).map(
      ([i, v]) =>
        (b: Uint8Array) =>
          put(b, i, () => v),
    ),
    fc.tuple(pos, fc.integer({ min: 1, max: 64 })).map(
      ([i, len]) =>
        (b: Uint8Array) =>
          cat(b.subarray(0, i), b.subarray(i + len)),
    ),
    fc.tuple(pos, fc.uint8Array({ minLength: 1, maxLength: 16 })).map(
      ([i, ins]) =>
        (b: Uint8Array) =>
          cat(b.subarray(0, i), ins, b.subarray(i)),
    ),
    fc.integer({ min: 0, max: n }).map((len) => (b: Uint8Array) => b.slice(0, len)),
  );
  return fc
    .array(one, { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce((b, edit) => edit(b), original));
}

/** Strings meant to hurt a parser: prototype keys, escapes, huge and odd numbers, control characters. */
export const NASTY_STRINGS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '',
  ' ',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '%',
  '%zz',
  '%E0%A4%A',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-0',
  '0x10',
  '9007199254740993',
  '1e-400',
  '"',
  '\\',
  '\n',
  '\r\n',
  ',',
  '{}',
  '[]',
  'null',
] as const;

/** A value to put where a reader expects something else: JSON of every kind, and the nasty cases. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 2, 2 ** 32, 3e7, null, true, [], {}),
  fc.constant('{"polluted":"yes"}').map((j) => JSON.parse(j)),
  // An object whose own toString/valueOf are not functions: `${x}` on it throws a TypeError.
  fc.constant('{"toString":1,"valueOf":1}').map((j) => JSON.parse(j)),
);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path into a JSON value (containers included), e.g. ['notes', 'validation', 'avg']. */
export function jsonPaths(v: unknown, at: string[] = []): string[][] {
  const out = [at];
  if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) out.push(...jsonPaths(x, [...at, k]));
  return out;
}

/**
 * Edits of a JSON document as JSON.parse gives them: a value replaced by a hostile one, a key
 * deleted, or a key added (`__proto__` and `constructor` among them, as own keys, as JSON.parse
 * makes them). The edit is applied to a deep copy and returned as JSON text.
 */
export function jsonEdit(doc: unknown): fc.Arbitrary<string> {
  const paths = jsonPaths(doc);
  const text = JSON.stringify(doc);
  const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted'), fc.string());
  return fc
    .tuple(fc.constantFrom(...paths), fc.integer({ min: 0, max: 2 }), key, hostileValue)
    .map(([path, op, k, value]) => {
      const HOLE = '@@hole@@';
      const copy = JSON.parse(text) as Json;
      const last = path.at(-1);
      if (last === undefined) return JSON.stringify(value) ?? 'null';
      const into = path.slice(0, -1).reduce<Json>((n, p) => (n as Record<string, Json>)[p], copy) as Record<
        string,
        Json
      >;
      const target = into[last];
      if (op === 1) delete into[last];
      else if (op === 2 && target && typeof target === 'object' && !Array.isArray(target))
        target[k === '__proto__' ? '@@proto@@' : k] = HOLE;
      else into[last] = HOLE;
      // The value goes in as text, so a `__proto__` key is an own key, as JSON.parse makes it.
      return JSON.stringify(copy)
        .replace('"@@proto@@"', '"__proto__"')
        .replace(`"${HOLE}"`, () => JSON.stringify(value) ?? 'null');
    });
}
