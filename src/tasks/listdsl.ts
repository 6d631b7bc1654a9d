/**
 * A tiny list language for `coder-tester` (docs/tasks.md#coder-tester) and its interpreter, written
 * here so no agent output ever reaches `eval` or `Function`. Programs are pipes of stages,
 * e.g. `map +3|filter >2`, `rev`, `sort`, `rep 2(map *2)`. Hostile input is refused with a clear
 * message: limits on source length, nesting, constants, list size and values, and a step limit.
 * Pure: no tfjs, no DOM.
 */

type MapOp = '+' | '-' | '*' | '/' | '%';
type CmpOp = '>' | '<' | '=' | '!';

export type Stage =
  | { kind: 'map'; op: MapOp; k: number }
  | { kind: 'filter'; op: CmpOp; k: number }
  | { kind: 'rev' }
  | { kind: 'sort' }
  | { kind: 'rep'; times: number; body: Stage[] };

/** A program is a pipe: each stage transforms the list the previous one produced. */
export type Program = Stage[];

export const DSL_LIMITS = {
  maxSource: 64,
  /** `rep` nesting. */
  maxDepth: 3,
  /** |k| for map and filter constants. */
  maxConst: 99,
  maxTimes: 9,
  maxList: 16,
  /** |value| anywhere during a run. */
  maxValue: 1_000_000,
  /** Element operations per run (default). */
  maxSteps: 1000,
} as const;

type ParseResult = { ok: true; program: Program } | { ok: false; error: string };
type RunResult = { ok: true; output: number[]; steps: number } | { ok: false; error: string; steps: number };

class DslError extends Error {}

// ---- parser: recursive descent over characters, spaces allowed between tokens ----

class Parser {
  pos = 0;
  constructor(private readonly src: string) {}

  fail(msg: string): never {
    throw new DslError(`at ${this.pos}: ${msg}`);
  }
  skip(): void {
    while (this.src[this.pos] === ' ') this.pos++;
  }
  peek(): string {
    this.skip();
    return this.src[this.pos] ?? '';
  }
  word(): string {
    this.skip();
    const m = /^[a-z]+/.exec(this.src.slice(this.pos));
    if (!m) this.fail(`expected map, filter, rev, sort or rep`);
    this.pos += m[0].length;
    return m[0];
  }
  int(max: number, what: string): number {
    this.skip();
    const m = /^-?[0-9]+/.exec(this.src.slice(this.pos));
    if (!m) this.fail(`expected an integer ${what}`);
    const n = Number(m[0]);
    if (Math.abs(n) > max) this.fail(`${what} ${m[0]} out of range ±${max}`);
    this.pos += m[0].length;
    return n;
  }
  oneOf<T extends string>(ops: readonly T[], after: string): T {
    const ch = this.peek();
    if (!(ops as readonly string[]).includes(ch)) this.fail(`expected ${ops.join(' ')} after ${after}`);
    this.pos++;
    return ch as T;
  }

  pipe(depth: number): Program {
    const stages = [this.stage(depth)];
    while (this.peek() === '|') {
      this.pos++;
      stages.push(this.stage(depth));
    }
    return stages;
  }

  stage(depth: number): Stage {
    const name = this.word();
    switch (name) {
      case 'map': {
        const op = this.oneOf(['+', '-', '*', '/', '%'] as const, 'map');
        const k = this.int(DSL_LIMITS.maxConst, 'constant');
        if ((op === '/' || op === '%') && k === 0) this.fail('division by zero');
        return { kind: 'map', op, k };
      }
      case 'filter':
        return {
          kind: 'filter',
          op: this.oneOf(['>', '<', '=', '!'] as const, 'filter'),
          k: this.int(DSL_LIMITS.maxConst, 'constant'),
        };
      case 'rev':
      case 'sort':
        return { kind: name };
      case 'rep': {
        if (depth >= DSL_LIMITS.maxDepth) this.fail(`rep nested deeper than ${DSL_LIMITS.maxDepth}`);
        const times = this.int(DSL_LIMITS.maxTimes, 'repeat count');
        if (times < 1) this.fail('repeat count must be ≥ 1');
        if (this.peek() !== '(') this.fail(`expected ( after rep ${times}`);
        this.pos++;
        const body = this.pipe(depth + 1);
        if (this.peek() !== ')') this.fail('expected )');
        this.pos++;
        return { kind: 'rep', times, body };
      }
      default:
        this.pos -= name.length;
        return this.fail(`unknown stage '${name}'`);
    }
  }
}

/** Parses a program, or says what is wrong and where. */
export function parseProgram(src: string): ParseResult {
  if (src.length > DSL_LIMITS.maxSource) {
    return { ok: false, error: `program too long (${src.length} > ${DSL_LIMITS.maxSource} chars)` };
  }
  const p = new Parser(src);
  try {
    const program = p.pipe(0);
    if (p.peek() !== '') p.fail(`unexpected '${p.peek()}'`);
    return { ok: true, program };
  } catch (e) {
    if (e instanceof DslError) return { ok: false, error: e.message };
    throw e;
  }
}

/** Canonical text of a program (what `parseProgram` reads back to the same program). */
export function formatProgram(program: Program): string {
  return program
    .map((s) => {
      if (s.kind === 'map' || s.kind === 'filter') return `${s.kind} ${s.op}${s.k}`;
      if (s.kind === 'rep') return `rep ${s.times}(${formatProgram(s.body)})`;
      return s.kind;
    })
    .join('|');
}

// ---- interpreter ----

function applyMap(op: MapOp, v: number, k: number): number {
  switch (op) {
    case '+':
      return v + k;
    case '-':
      return v - k;
    case '*':
      return v * k;
    case '/':
      return Math.floor(v / k); // floor division, so results stay integers
    case '%':
      return ((v % k) + k) % k; // non-negative remainder
  }
}

function test(op: CmpOp, v: number, k: number): boolean {
  return op === '>' ? v > k : op === '<' ? v < k : op === '=' ? v === k : v !== k;
}

/** Runs `program` on `input` within `maxSteps` element operations. */
export function runProgram(
  program: Program,
  input: readonly number[],
  maxSteps: number = DSL_LIMITS.maxSteps,
): RunResult {
  let steps = 0;
  const tick = (n: number): void => {
    steps += n;
    if (steps > maxSteps) throw new DslError(`step limit ${maxSteps} exceeded`);
  };
  const check = (v: number): number => {
    if (!Number.isSafeInteger(v) || Math.abs(v) > DSL_LIMITS.maxValue)
      throw new DslError(`value out of range ±${DSL_LIMITS.maxValue}`);
    return v;
  };
  const run = (stages: Program, xs: number[]): number[] => {
    for (const s of stages) {
      if (s.kind === 'rep') {
        for (let i = 0; i < s.times; i++) xs = run(s.body, xs);
        continue;
      }
      // Charge before the work, so a runaway program stops before it allocates.
      tick(s.kind === 'sort' ? xs.length * xs.length : xs.length);
      if (s.kind === 'map') xs = xs.map((v) => check(applyMap(s.op, v, s.k)));
      else if (s.kind === 'filter') xs = xs.filter((v) => test(s.op, v, s.k));
      else if (s.kind === 'rev') xs = xs.slice().reverse();
      else xs = xs.slice().sort((a, b) => a - b);
    }
    return xs;
  };
  try {
    if (input.length > DSL_LIMITS.maxList) throw new DslError(`input longer than ${DSL_LIMITS.maxList}`);
    input.forEach(check);
    return { ok: true, output: run(program, input.slice()), steps };
  } catch (e) {
    if (e instanceof DslError) return { ok: false, error: e.message, steps };
    throw e;
  }
}

/** Parses and runs source text in one go. */
export function runSource(src: string, input: readonly number[], maxSteps?: number): RunResult {
  const parsed = parseProgram(src);
  return parsed.ok
    ? runProgram(parsed.program, input, maxSteps)
    : { ok: false, error: parsed.error, steps: 0 };
}
