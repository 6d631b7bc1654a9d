/**
 * `math`: Solver → Verifier loop on 2-digit addition/subtraction, after the Dr. MAS math
 * orchestra (docs/tasks.md#math, `orchestra/math/math_orchestra.py`) and the solver / verifier toy (docs/tasks.md#math): at most
 * 2 loops; the verifier answers yes (approve) or no (reject, back to the solver); an invalid
 * verdict counts as approve; reward 1 if the last answer is right, −0.1 per invalid row. Pure.
 */
import type { Role } from '../core/vocab';
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

/** Solver attempts per trajectory (`max_loop_num` = 2). */
export const MATH_MAX_LOOPS = 2;

export interface MathInstance {
  a: number;
  b: number;
  op: '+' | '-';
}

export interface MathState extends BaseState {
  instance: MathInstance;
  /** E.g. `37+48=85 no=` … : problem, answers and rejections so far. */
  context: string;
  /** Solver attempt index, 0 … MATH_MAX_LOOPS − 1. */
  loop: number;
  phase: 'solve' | 'verify';
  /** The latest solver answer, parsed (null if it was malformed). */
  answer: number | null;
  /** Whether every verdict so far was right (yes on a right answer, no on a wrong one); null: none yet. */
  verdictsRight: boolean | null;
}

const AGENTS: readonly AgentSpec[] = [
  { role: 'solver', rolePrompt: '=', maxResponse: 4 },
  { role: 'verifier', rolePrompt: ' ok?', maxResponse: 4 },
];

export const problemText = (i: MathInstance): string => `${i.a}${i.op}${i.b}`;
export const solution = (i: MathInstance): number => (i.op === '+' ? i.a + i.b : i.a - i.b);

/** A solver answer is an integer written plainly (the `\boxed{}` of the reference). */
export function parseNumber(response: string): number | null {
  return /^-?[0-9]{1,4}$/.test(response) ? Number(response) : null;
}

function generate(rng: Prng): MathInstance {
  const op = rng.chance(0.5) ? '+' : '-';
  const a = rng.range(10, 99);
  const b = op === '+' ? rng.range(10, 99) : rng.range(10, a); // keep differences ≥ 0
  return { a, b, op };
}

function init(instance: MathInstance): MathState {
  return {
    instance,
    context: problemText(instance),
    loop: 0,
    phase: 'solve',
    answer: null,
    verdictsRight: null,
    log: [],
    done: false,
    outcome: null,
  };
}

function next(state: MathState): NextCall | null {
  if (state.done) return null;
  const role: Role = state.phase === 'solve' ? 'solver' : 'verifier';
  return { agent: role, prompt: promptFor(state.context, agentSpec(AGENTS, role)) };
}

function validate(agent: Role, response: string): string | null {
  if (agent === 'solver') return parseNumber(response) !== null ? null : 'answer must be an integer';
  if (agent === 'verifier')
    return response === 'yes' || response === 'no' ? null : 'verdict must be yes or no';
  return `'${agent}' is not a math agent`;
}

const answerRight = (state: MathState): boolean =>
  state.answer !== null && state.answer === solution(state.instance);

/**
 * The outcome, with each agent's own part: the solver's last answer is right; the verifier's
 * verdicts were all right. A trajectory whose verifier never spoke (its first answer on the last
 * loop) says nothing of it.
 */
function scored(state: MathState): MathState {
  const success = answerRight(state);
  const agentSuccess = {
    solver: success,
    ...(state.verdictsRight === null ? {} : { verifier: state.verdictsRight }),
  };
  return finish(state, { success, reward: success ? 1 : 0, agentSuccess });
}

function step(state: MathState, agent: Role, response: string): StepResult<MathState> {
  expectTurn(next(state), agent);
  const valid = validate(agent, response) === null;
  const log = logged(state, agent, valid);
  if (agent === 'solver') {
    // The verifier sees the raw answer (sanitized), so it can reject a malformed one.
    const context = state.context + '=' + sanitize(response, agentSpec(AGENTS, 'solver').maxResponse);
    const solved: MathState = { ...state, log, context, answer: parseNumber(response), phase: 'verify' };
    // No verification after the last attempt (the reference skips the verifier on the last loop).
    return { state: state.loop === MATH_MAX_LOOPS - 1 ? scored(solved) : solved, valid };
  }
  // Verifier: only an explicit "no" rejects; anything invalid approves. A verdict is right when it
  // rejects exactly a wrong answer.
  const rejects = response === 'no';
  const verdictsRight = (state.verdictsRight ?? true) && rejects !== answerRight(state);
  if (!rejects) return { state: scored({ ...state, log, verdictsRight }), valid };
  return {
    state: {
      ...state,
      log,
      verdictsRight,
      context: state.context + ' no',
      loop: state.loop + 1,
      phase: 'solve',
    },
    valid,
  };
}

function demonstrate(state: MathState, agent: Role, rng: Prng, errorRate: number): string {
  const mistake = rng.chance(errorRate);
  const malformed = mistake && rng.chance(MALFORMED_SHARE);
  const truth = solution(state.instance);
  if (agent === 'solver') {
    if (malformed) return `${truth}?`;
    if (mistake) return String(truth + (rng.chance(0.5) ? 1 : -1) * rng.range(1, 9));
    return String(truth);
  }
  if (malformed) return rng.pick(['ye', 'ok', 'n']); // counts as approve
  const right = state.answer === truth;
  return right !== mistake ? 'yes' : 'no';
}

/**
 * The neutral default: the empty output, what an agent that emits EOS at once gives. A no-op
 * solver gives no answer (no `\boxed{}`: never right); a no-op verifier's empty verdict is invalid
 * and approves (the reference's rule), so it passes every answer through unchecked, as if the
 * workflow had no verifier.
 */
function neutral(): string {
  return '';
}

export const mathTask: Task<MathInstance, MathState> = {
  name: 'math',
  doc: 'Solver → Verifier loop (≤ 2 attempts) on 2-digit addition and subtraction',
  // Follows Dr. MAS math orchestra (arXiv 2602.08847; orchestra/math/math_orchestra.py).
  agents: AGENTS,
  invalidPenalty: 0.1,
  maxCalls: 2 * MATH_MAX_LOOPS - 1,
  generate,
  key: problemText,
  init,
  next,
  validate,
  step,
  demonstrate,
  neutral,
  ownSuccess: true,
};
