/**
 * `coder-tester`: from a visible example `0312>3645`, the tester writes test cases and the coder
 * writes a list-DSL program (src/tasks/listdsl.ts). Per-agent rewards on different scales, the
 * global-baseline mismatch case (docs/tasks.md#coder-tester; PettingLLMs coder/tester): coder =
 * 2 × share of hidden tests passed; tester = consistency of its tests with the reference
 * program + the coder's pass share. Lists are 4 digits 0–4, outputs digits 0–9. Pure.
 */
import type { Role } from '../core/vocab';
import { formatProgram, parseProgram, runProgram, runSource, type Program, type Stage } from './listdsl';
import type { Prng } from '../core/prng';
import {
  agentSpec,
  expectTurn,
  finish,
  logged,
  MALFORMED_SHARE,
  promptFor,
  sanitize,
  type AgentSpec,
  type BaseState,
  type NextCall,
  type StepResult,
  type Task,
} from './types';

const HIDDEN_TESTS = 4;
const LIST_LEN = 4;
const MAX_INPUT = 4;
/** The coder's response limit; reference programs are drawn to fit it. */
const MAX_PROGRAM = 16;

export interface IOPair {
  input: number[];
  output: number[];
}

export interface CoderTesterInstance {
  /** Reference program, canonical text. */
  program: string;
  /** Shown to both agents. */
  example: IOPair;
  /** Scored only: the coder's program must reproduce these. */
  hidden: IOPair[];
}

interface CoderTesterState extends BaseState {
  instance: CoderTesterInstance;
  /** The example, then the tester's tests once written. */
  context: string;
  /** The tester's raw output (null before it acts). */
  tests: string | null;
}

const AGENTS: readonly AgentSpec[] = [
  { role: 'tester', rolePrompt: ' ', maxResponse: 16 },
  { role: 'coder', rolePrompt: ' ', maxResponse: MAX_PROGRAM },
];

/** Lists are written as digit strings: every value here is 0–9. */
export const formatList = (xs: readonly number[]): string => xs.join('');
export const formatPair = (p: IOPair): string => `${formatList(p.input)}>${formatList(p.output)}`;

/** `dddd>d*` test cases separated by `;`, or null if any is malformed. */
export function parseTests(response: string): IOPair[] | null {
  const parts = response.split(';');
  const pairs: IOPair[] = [];
  for (const part of parts) {
    const m = /^([0-9]{4})>([0-9]{0,4})$/.exec(part);
    if (!m) return null;
    pairs.push({ input: [...m[1]].map(Number), output: [...m[2]].map(Number) });
  }
  return pairs;
}

/** Element by element: a coder's program may give values over 9, which formatList would run together. */
export const sameList = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** Runs a program known to be valid (reference programs, canonical text). */
function reference(program: string, input: readonly number[]): number[] {
  const r = runSource(program, input);
  if (!r.ok) throw new Error(`reference program '${program}' failed: ${r.error}`);
  return r.output;
}

function randomStage(rng: Prng): Stage {
  switch (rng.int(5)) {
    case 0:
      return { kind: 'map', op: '+', k: rng.range(1, 5) };
    case 1:
      return { kind: 'map', op: '-', k: rng.range(1, 4) };
    case 2:
      return { kind: 'map', op: '*', k: rng.range(2, 3) };
    case 3:
      return { kind: 'filter', op: '>', k: rng.range(0, 3) };
    default:
      return { kind: 'filter', op: '<', k: rng.range(1, 4) };
  }
}

/** A 1–2 stage program whose outputs on 0–4 stay digits, and which is neither identity nor empty. */
function randomProgram(rng: Prng): string {
  const domain = [0, 1, 2, 3, 4];
  for (;;) {
    const program: Program = rng.chance(0.5) ? [randomStage(rng)] : [randomStage(rng), randomStage(rng)];
    const r = runProgram(program, domain); // map/filter act per element: the domain covers all inputs
    const text = formatProgram(program);
    if (text.length > MAX_PROGRAM) continue; // the coder must be able to write it
    if (r.ok && r.output.length > 0 && !sameList(r.output, domain) && r.output.every((v) => v >= 0 && v <= 9))
      return text;
  }
}

const randomInput = (rng: Prng): number[] => Array.from({ length: LIST_LEN }, () => rng.range(0, MAX_INPUT));

function generate(rng: Prng): CoderTesterInstance {
  const program = randomProgram(rng);
  const pair = (): IOPair => {
    const input = randomInput(rng);
    return { input, output: reference(program, input) };
  };
  let example = pair();
  while (example.output.length === 0) example = pair(); // an empty example shows the coder nothing
  return { program, example, hidden: Array.from({ length: HIDDEN_TESTS }, pair) };
}

function init(instance: CoderTesterInstance): CoderTesterState {
  return {
    instance,
    context: formatPair(instance.example),
    tests: null,
    log: [],
    done: false,
    outcome: null,
  };
}

function next(state: CoderTesterState): NextCall | null {
  if (state.done) return null;
  const role: Role = state.tests === null ? 'tester' : 'coder';
  return { agent: role, prompt: promptFor(state.context, agentSpec(AGENTS, role)) };
}

function validate(agent: Role, response: string): string | null {
  if (agent === 'tester') return parseTests(response) ? null : 'tests must be dddd>d* separated by ;';
  if (agent === 'coder') {
    const parsed = parseProgram(response);
    return parsed.ok ? null : parsed.error;
  }
  return `'${agent}' is not a coder-tester agent`;
}

/** Share of hidden tests the program passes (0 if it does not parse or a run fails). */
export function passShare(instance: CoderTesterInstance, source: string): number {
  const parsed = parseProgram(source);
  if (!parsed.ok) return 0;
  const passed = instance.hidden.filter((t) => {
    const r = runProgram(parsed.program, t.input);
    return r.ok && sameList(r.output, t.output);
  });
  return passed.length / instance.hidden.length;
}

/** Share of the tester's cases that the reference program agrees with (0 if malformed). */
export function consistency(instance: CoderTesterInstance, tests: string): number {
  const pairs = parseTests(tests);
  if (!pairs) return 0;
  return pairs.filter((p) => sameList(reference(instance.program, p.input), p.output)).length / pairs.length;
}

function step(state: CoderTesterState, agent: Role, response: string): StepResult<CoderTesterState> {
  expectTurn(next(state), agent);
  const valid = validate(agent, response) === null;
  const log = logged(state, agent, valid);
  if (agent === 'tester') {
    const context = state.context + ' ' + sanitize(response, agentSpec(AGENTS, 'tester').maxResponse);
    return { state: { ...state, log, context, tests: response }, valid };
  }
  const pass = passShare(state.instance, response);
  const consistent = consistency(state.instance, state.tests ?? '');
  const agentRewards = { coder: 2 * pass, tester: consistent + pass };
  // Each agent's own part: the coder's program passes the hidden tests, the tester's tests are all right.
  const agentSuccess = { coder: pass === 1, tester: consistent === 1 };
  return {
    state: finish({ ...state, log }, { success: pass === 1, reward: pass, agentRewards, agentSuccess }),
    valid,
  };
}

/** A program that differs from the reference on some hidden test, or a malformed one. */
function wrongProgram(instance: CoderTesterInstance, rng: Prng): string {
  const parsed = parseProgram(instance.program);
  if (!parsed.ok) throw new Error(`reference program '${instance.program}' does not parse`);
  for (let tries = 0; tries < 20; tries++) {
    const program = parsed.program.map((s) => ({ ...s }));
    const i = rng.int(program.length);
    const s = program[i];
    if ((s.kind === 'map' || s.kind === 'filter') && rng.chance(0.5)) s.k += rng.chance(0.5) ? 1 : -1;
    else program[i] = randomStage(rng);
    const text = formatProgram(program);
    if (text.length <= MAX_PROGRAM && passShare(instance, text) < 1) return text;
  }
  return 'map'; // malformed: certainly fails
}

function demonstrate(state: CoderTesterState, agent: Role, rng: Prng, errorRate: number): string {
  const mistake = rng.chance(errorRate);
  const malformed = mistake && rng.chance(MALFORMED_SHARE);
  const { instance } = state;
  if (agent === 'coder') {
    if (malformed) return instance.program.replace(/[+\-*><]/, ''); // operator dropped
    return mistake ? wrongProgram(instance, rng) : instance.program;
  }
  const input = randomInput(rng);
  const out = reference(instance.program, input);
  if (malformed) return `${formatList(input)}=${formatList(out)}`;
  if (!mistake) return `${formatList(input)}>${formatList(out)}`;
  const wrong =
    out.length === 0 ? [rng.range(0, 9)] : out.map((v, j) => (j === 0 ? (v + rng.range(1, 9)) % 10 : v));
  return `${formatList(input)}>${formatList(wrong)}`;
}

/**
 * The neutral default: the empty output, what an agent that emits EOS at once gives. A no-op
 * tester writes no tests (consistency 0), a no-op coder no program (passes nothing). The shared
 * outcome (`reward`, the coder's pass share) reads only the coder's program, so with the coder's
 * recorded program held fixed the tester's credit is 0 by construction: its effect on the coder
 * runs through the coder's policy, which a replay does not sample again.
 */
function neutral(): string {
  return '';
}

export const coderTesterTask: Task<CoderTesterInstance, CoderTesterState> = {
  name: 'coder-tester',
  doc: 'Tester writes test cases, coder writes a list-DSL program; rewards on different scales',
  // Follows docs/tasks.md#coder-tester; PettingLLMs code env (arXiv 2510.11062, multi_agent_env/code).
  agents: AGENTS,
  // Malformed output already earns 0 (no passes, no consistency); no extra per-row penalty.
  invalidPenalty: 0,
  ownSuccess: true,
  maxCalls: 2,
  generate,
  key: (i) => `${i.program}|${formatPair(i.example)}`,
  init,
  next,
  validate,
  step,
  demonstrate,
  neutral,
};
