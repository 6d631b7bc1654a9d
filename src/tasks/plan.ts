/**
 * `plan`: a long-horizon grid path, after PettingLLMs' Plan-Path (AT-GRPO, arXiv 2510.11062;
 * `multi_agent_env/stateful/env_state.py` PlanPathGridEnvState, `agents/plan_agent.py`,
 * `agents/tool_agent.py`), shrunk from 10×10 to 5×5 and 6×6 so nano policies can learn it.
 *
 * Each turn the planner proposes up to PLAN_MOVES moves `u d l r`; the executor (the reference's
 * tool agent) issues moves, and the environment walks them and
 * shows the new position. At most PLAN_TURNS turns. Reward, per issued move as in the reference's
 * `step_single`: −0.01 per move, −0.1 instead for an invalid one (off the grid or into a wall,
 * the position stays), +1 on reaching the goal, +0.5 more if the walk was a shortest path, −1 if
 * the last turn ends elsewhere; plus potential shaping on the BFS distance (PLAN_SHAPING). The
 * trajectory reward is the sum; success is reaching the goal. Pure: no tfjs, no DOM.
 *
 * The roles `planner` and `executor` sit in the vocabulary's reserved role block. Earlier builds
 * ran them as `solver` and `coder` (then a new role moved every token id); links, session folders and
 * checkpoints that say so are read with RENAMED_ROLES (src/core/vocab.ts).
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

/** Planner/executor turns per trajectory. */
export const PLAN_TURNS = 5;
/** Moves per response: shortest paths are PLAN_MIN_DIST–PLAN_MAX_DIST long, so every instance takes ≥ 2 turns and a perfect pair needs ≤ 4. */
export const PLAN_MOVES = 3;
export const PLAN_MIN_DIST = 4;
export const PLAN_MAX_DIST = 12;
/** Share of blocked cells (the reference's `block_ratio`). */
const PLAN_BLOCK_RATIO = 0.22;

/** Shaped reward terms (the reference's DEFAULT_R_*). */
const PLAN_REWARD = { step: -0.01, invalid: -0.1, goal: 1, shortest: 0.5, fail: -1 } as const;
/**
 * Potential shaping λ·(Φ(s′) − Φ(s)) per move, Φ = −(BFS distance to the goal). The reference
 * shapes with λ = 1, γ = 0.99 and Φ = −(Manhattan distance); here γ = 1, so the shaping of a
 * trajectory telescopes to λ·(d_start − d_end) and cannot change which trajectory is best (Ng et
 * al. 1999); BFS distance counts walls, so a walk into a dead end earns nothing; λ = 0.1 keeps the
 * goal the largest term. Without it a turn that moves towards the goal would score below one that
 * stands still, and per-turn rewards (tree sampling) could rank only by fewer moves.
 */
const PLAN_SHAPING = 0.1;

/** Move letters in the reference's action order, with their (row, column) steps. */
const MOVES: Readonly<Record<string, readonly [number, number]>> = {
  u: [-1, 0],
  d: [1, 0],
  l: [0, -1],
  r: [0, 1],
};
const MOVE_ORDER = Object.keys(MOVES);

export interface PlanInstance {
  /** Side of the square grid, 5 or 6. */
  n: number;
  /** n·n cells row by row, '.' free and '#' blocked. */
  cells: string;
  /** Cell indices (row·n + column). */
  start: number;
  goal: number;
  /** BFS length of a shortest path from start to goal. */
  shortest: number;
}

export interface PlanState extends BaseState {
  instance: PlanInstance;
  /** The walker's cell. */
  pos: number;
  /** Turn index, 0 … PLAN_TURNS − 1. */
  turn: number;
  /** The planner's raw output this turn; null until it has spoken. */
  plan: string | null;
  /** Moves issued so far, invalid ones included (the reference's `steps`). */
  moves: number;
  /** Shaped reward earned so far. */
  earned: number;
}

const AGENTS: readonly AgentSpec[] = [
  { role: 'planner', rolePrompt: '?', maxResponse: PLAN_MOVES },
  { role: 'executor', rolePrompt: '!', maxResponse: PLAN_MOVES },
];

/** 1–PLAN_MOVES move letters, or null. */
function parseMoves(response: string): string | null {
  return new RegExp(`^[udlr]{1,${PLAN_MOVES}}$`).test(response) ? response : null;
}

/** The cell one `move` away from `cell`, or null off the grid or on a wall. */
function neighbour(i: Pick<PlanInstance, 'n' | 'cells'>, cell: number, move: string): number | null {
  const [dr, dc] = MOVES[move];
  const r = Math.floor(cell / i.n) + dr;
  const c = (cell % i.n) + dc;
  if (r < 0 || r >= i.n || c < 0 || c >= i.n || i.cells[r * i.n + c] === '#') return null;
  return r * i.n + c;
}

/** BFS distance of every cell to `goal` (Infinity where it cannot be reached). */
export function distancesTo(i: Pick<PlanInstance, 'n' | 'cells'>, goal: number): number[] {
  const dist = new Array<number>(i.n * i.n).fill(Infinity);
  dist[goal] = 0;
  const queue = [goal];
  for (let q = 0; q < queue.length; q++) {
    for (const m of MOVE_ORDER) {
      const next = neighbour(i, queue[q], m);
      if (next !== null && dist[next] === Infinity) {
        dist[next] = dist[queue[q]] + 1;
        queue.push(next);
      }
    }
  }
  return dist;
}

/** A shortest path from `from` to the goal as move letters, first move in MOVE_ORDER at each cell (BFS). */
export function shortestMoves(i: PlanInstance, from: number): string {
  const dist = distancesTo(i, i.goal);
  let path = '';
  for (let cell = from; cell !== i.goal;) {
    const m = MOVE_ORDER.find((mv) => {
      const next = neighbour(i, cell, mv);
      return next !== null && dist[next] === dist[cell] - 1;
    });
    if (m === undefined) throw new Error(`plan: no path from cell ${from} to the goal.`);
    path += m;
    cell = neighbour(i, cell, m)!;
  }
  return path;
}

/**
 * The state as the agents see it: the walker's and the goal's (row, column) as digits, as the
 * reference's prompt gives `Start: (r, c), Goal: (r, c)`, then the grid, one character per cell,
 * rows joined by '|', 's' the walker (the reference marks it S), 'g' the goal:
 * `s00 g04 s.#.g|..#..|.....|.#...|.....`. One character per cell keeps "one row up" a fixed
 * offset (n + 1 characters back), which attention can learn; a list of wall coordinates would be
 * about as short but would ask a character-level policy for coordinate arithmetic to find a wall.
 * The coordinates make the direction to the goal a comparison of two digits (without them, nano
 * planners stalled at 0.08 validation success in 170 warm-start steps). A 6×6 view takes 49
 * characters and the prompt shows only the current state (no history), so the longest prompt —
 * the executor's: view, space, plan, '!', role token — is 55 of MAX_CONTEXT = 128 and does not
 * grow over the turns.
 */
export function renderView(i: PlanInstance, pos: number): string {
  const at = (cell: number) => `${Math.floor(cell / i.n)}${cell % i.n}`;
  const cells = [...i.cells].map((ch, k) => (k === pos ? 's' : k === i.goal ? 'g' : ch));
  const rows = Array.from({ length: i.n }, (_, r) => cells.slice(r * i.n, (r + 1) * i.n).join(''));
  return `s${at(pos)} g${at(i.goal)} ${rows.join('|')}`;
}

/** A grid with about PLAN_BLOCK_RATIO walls, and start and goal PLAN_MIN_DIST–PLAN_MAX_DIST apart by BFS. */
function generate(rng: Prng): PlanInstance {
  for (let tries = 0; tries < 1000; tries++) {
    const n = rng.chance(0.5) ? 5 : 6;
    let cells = '';
    for (let k = 0; k < n * n; k++) cells += rng.chance(PLAN_BLOCK_RATIO) ? '#' : '.';
    const free = [...cells].flatMap((ch, k) => (ch === '.' ? [k] : []));
    if (free.length < 2) continue;
    const [start, goal] = rng.sample(free, 2);
    const shortest = distancesTo({ n, cells }, goal)[start];
    if (shortest >= PLAN_MIN_DIST && shortest <= PLAN_MAX_DIST) return { n, cells, start, goal, shortest };
  }
  throw new Error('plan: no solvable grid in 1000 draws (check PLAN_MIN_DIST and PLAN_MAX_DIST).');
}

function init(instance: PlanInstance): PlanState {
  return {
    instance,
    pos: instance.start,
    turn: 0,
    plan: null,
    moves: 0,
    earned: 0,
    log: [],
    done: false,
    outcome: null,
  };
}

function next(state: PlanState): NextCall | null {
  if (state.done) return null;
  const view = renderView(state.instance, state.pos);
  if (state.plan === null) return { agent: 'planner', prompt: promptFor(view, agentSpec(AGENTS, 'planner')) };
  const plan = sanitize(state.plan, PLAN_MOVES);
  return { agent: 'executor', prompt: promptFor(`${view} ${plan}`, agentSpec(AGENTS, 'executor')) };
}

function validate(agent: Role, response: string): string | null {
  if (agent !== 'planner' && agent !== 'executor') return `'${agent}' is not a plan agent`;
  return parseMoves(response) !== null ? null : `must be 1–${PLAN_MOVES} moves of u, d, l, r`;
}

/** What issuing `moves` from `state` earns: the walk, its shaped reward, and whether it ends the trajectory. */
function walk(
  state: PlanState,
  moves: string,
): { pos: number; moves: number; reward: number; reached: boolean; failed: boolean } {
  const i = state.instance;
  const dist = distancesTo(i, i.goal);
  let { pos, moves: count } = state;
  let reward = 0;
  for (const m of moves) {
    const next = neighbour(i, pos, m);
    reward += next === null ? PLAN_REWARD.invalid : PLAN_REWARD.step;
    if (next !== null) {
      reward += PLAN_SHAPING * (dist[pos] - dist[next]);
      pos = next;
    }
    count++;
    if (pos === i.goal) {
      reward += PLAN_REWARD.goal + (count === i.shortest ? PLAN_REWARD.shortest : 0);
      return { pos, moves: count, reward, reached: true, failed: false };
    }
  }
  const failed = state.turn === PLAN_TURNS - 1;
  return { pos, moves: count, reward: reward + (failed ? PLAN_REWARD.fail : 0), reached: false, failed };
}

function step(state: PlanState, agent: Role, response: string): StepResult<PlanState> {
  expectTurn(next(state), agent);
  const valid = validate(agent, response) === null;
  const log = logged(state, agent, valid);
  if (agent === 'planner') return { state: { ...state, log, plan: response }, valid };
  // Executor: a malformed response issues no move (the turn passes).
  const w = walk(state, parseMoves(response) ?? '');
  const walked: PlanState = { ...state, log, pos: w.pos, moves: w.moves, earned: state.earned + w.reward };
  if (w.reached || w.failed)
    return { state: finish(walked, { success: w.reached, reward: walked.earned }), valid };
  return { state: { ...walked, turn: state.turn + 1, plan: null }, valid };
}

/**
 * The acting agent's reward for its transition (AT-GRPO's per-turn reward), the row's invalid
 * penalty included: the executor's is what its moves earned; the planner's is what its plan would
 * earn if issued as it stands — as the reference scores its tool agent, by stepping a copy of the
 * state with the proposed actions. A malformed plan or command issues nothing.
 */
function turnReward(before: PlanState, agent: Role, after: PlanState): number {
  const penalty = after.log[after.log.length - 1]?.valid === false ? planTask.invalidPenalty : 0;
  const earned =
    agent === 'executor'
      ? after.earned - before.earned
      : walk(before, parseMoves(after.plan ?? '') ?? '').reward;
  return earned - penalty;
}

/** `moves` with one letter changed to another move, so it certainly differs. */
function garble(moves: string, rng: Prng): string {
  const k = rng.int(moves.length);
  return moves.slice(0, k) + rng.pick(MOVE_ORDER.filter((m) => m !== moves[k])) + moves.slice(k + 1);
}

/**
 * Planner: the next PLAN_MOVES moves of the BFS shortest path. Executor: the plan's moves up to
 * the first that would leave the grid, hit a wall or pass the goal (it sees the grid); when none
 * is left (a malformed plan, a first move into a wall), the first move of its own BFS path.
 */
function demonstrate(state: PlanState, agent: Role, rng: Prng, errorRate: number): string {
  const mistake = rng.chance(errorRate);
  const malformed = mistake && rng.chance(MALFORMED_SHARE);
  const i = state.instance;
  let target: string;
  if (agent === 'planner') target = shortestMoves(i, state.pos).slice(0, PLAN_MOVES);
  else {
    target = '';
    let pos = state.pos;
    for (const m of [...(state.plan ?? '')].slice(0, PLAN_MOVES)) {
      const next = pos === i.goal || !(m in MOVES) ? null : neighbour(i, pos, m);
      if (next === null) break;
      target += m;
      pos = next;
    }
    if (target === '') target = shortestMoves(i, state.pos)[0];
  }
  if (malformed) return `${target.slice(0, -1)}.`;
  return mistake ? garble(target, rng) : target;
}

/**
 * The neutral default (per-agent credit, src/tasks/replay.ts): the empty output, what an agent
 * that emits EOS at once gives. A no-op planner proposes nothing; a no-op executor issues no move
 * (a malformed command passes the turn), so the position stays and only the turn limit advances.
 */
function neutral(): string {
  return '';
}

export const planTask: Task<PlanInstance, PlanState> = {
  name: 'plan',
  doc: 'Planner proposes ≤ 3 moves, executor issues them on a 5×5/6×6 grid with walls (≤ 5 turns, shaped reward)',
  // Follows PettingLLMs Plan-Path (AT-GRPO, arXiv 2510.11062; multi_agent_env/stateful/env_state.py PlanPathGridEnvState).
  agents: AGENTS,
  invalidPenalty: 0.1,
  maxCalls: 2 * PLAN_TURNS,
  generate,
  key: (i) => `${i.n}:${i.cells}:${i.start}:${i.goal}`,
  init,
  next,
  validate,
  step,
  demonstrate,
  turnReward,
  neutral,
};
