/**
 * `search`: Verifier → Search / Answer over a seeded synthetic knowledge base, after the Dr. MAS
 * search orchestra (docs/tasks.md#search, `orchestra/search/search_orchestra.py`) and the key-value toy (docs/tasks.md#search).
 * Each step the verifier routes `yes` (answer) or `no` (search); the search agent writes
 * `q:<words>`, the environment appends the top BM25 facts; the answer agent writes `a:<value>`.
 * Pure: no tfjs, no DOM.
 */
import { SPECIAL, type Role } from '../core/vocab';
import { Bm25 } from './bm25';
import type { Prng } from '../core/prng';
import {
  agentSpec,
  expectTurn,
  finish,
  inCharset,
  logged,
  MALFORMED_SHARE,
  promptFor,
  type AgentSpec,
  type BaseState,
  type NextCall,
  type StepResult,
  type Task,
} from './types';

/** Env steps per trajectory (`env.max_steps` = 4 in run_search.sh). */
export const SEARCH_MAX_STEPS = 4;
/**
 * `search-routing`'s tighter cap, the low end of toy task 1's 3–4: a 2-hop question needs both
 * searches and a "yes" at the last step, so a cautious router times out where `search` leaves it
 * a spare step.
 */
export const SEARCH_ROUTING_MAX_STEPS = 3;
/** Facts appended per search (the reference appends top-3 passages; 2 keeps prompts short). */
export const SEARCH_TOP_K = 2;

// Disjoint pools, so a name never matches a relation or a value of another kind.
const PEOPLE = 'ana bo kai liv max nia ole pia raj sam tom uma vic zoe eli ivy'.split(' ');
const CITIES = 'oslo lima rome kyiv doha baku bern riga lyon pune fes nuuk'.split(' ');
const LANDS = 'peru chad fiji iran laos mali oman cuba togo niue'.split(' ');
const JOBS = 'chef cook poet monk spy vet maid dean sage'.split(' ');
const NOISE = 'sky sun moon star tree wind'.split(' ');
const PEOPLE_PER_KB = 5;
const CITIES_PER_KB = 3;

/** One retrieval hop: the fact `subject relation value` the answer depends on. */
export interface Hop {
  subject: string;
  relation: string;
  /** Index of the fact in `facts`. */
  fact: number;
}

export interface SearchInstance {
  /** The hidden knowledge base, `subject relation value` per fact. */
  facts: string[];
  /** E.g. `land of kai` (two hops: kai's city, then its land). */
  question: string;
  answer: string;
  /** Facts needed, in order (1 or 2). */
  hops: Hop[];
}

export interface SearchState extends BaseState {
  instance: SearchInstance;
  /** Question plus every ENV block appended so far; every prompt starts with it. */
  context: string;
  /** Env step, 0 … the task's step cap − 1. */
  step: number;
  phase: 'route' | 'search' | 'answer';
  /** Indices of facts retrieved so far (lets the demonstrator know what the agents can know). */
  retrieved: number[];
  /**
   * search-roles only: whether every routing verdict so far was right ("no" exactly while a
   * needed fact is missing); absent until the verifier speaks.
   */
  verdictsRight?: boolean;
}

const AGENTS: readonly AgentSpec[] = [
  { role: 'verifier', rolePrompt: ' ok?', maxResponse: 4 },
  { role: 'search', rolePrompt: ' q?', maxResponse: 12 },
  { role: 'answer', rolePrompt: ' a?', maxResponse: 8 },
];

/** SQuAD-style normalization for exact match: lower case, alphanumerics, no articles, one space. */
export function normalizeAnswer(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `q:<query>` → the query, or null if malformed. */
export function parseQuery(response: string): string | null {
  const m = /^q:(.*)$/.exec(response);
  return m && m[1].trim() !== '' && inCharset(m[1]) ? m[1].trim() : null;
}

/** `a:<value>` → the value, or null if malformed. */
export function parseAnswer(response: string): string | null {
  const m = /^a:(.*)$/.exec(response);
  return m && m[1].trim() !== '' && inCharset(m[1]) ? m[1] : null;
}

/** Builds a knowledge base and one question on it. */
function generate(rng: Prng): SearchInstance {
  const people = rng.sample(PEOPLE, PEOPLE_PER_KB);
  const cities = rng.sample(CITIES, CITIES_PER_KB);
  const lands = rng.sample(LANDS, CITIES_PER_KB);
  const rows: [string, string, string][] = [];
  for (const p of people) {
    rows.push([p, 'city', rng.pick(cities)], [p, 'job', rng.pick(JOBS)]);
  }
  cities.forEach((c, i) => rows.push([c, 'land', lands[i]]));
  const order = rng.shuffle(rows); // fact position must carry no information
  const facts = order.map((r) => r.join(' '));
  const find = (s: string, rel: string) => order.findIndex((r) => r[0] === s && r[1] === rel);

  const who = rng.pick(people);
  const kind = rng.chance(0.5) ? 'land' : rng.pick(['city', 'job']);
  const first: Hop = { subject: who, relation: kind === 'job' ? 'job' : 'city', fact: -1 };
  first.fact = find(first.subject, first.relation);
  const hops = [first];
  if (kind === 'land') {
    const city = order[first.fact][2];
    hops.push({ subject: city, relation: 'land', fact: find(city, 'land') });
  }
  const answer = order[hops[hops.length - 1].fact][2];
  return { facts, question: `${kind} of ${who}`, answer, hops };
}

function init(instance: SearchInstance): SearchState {
  return {
    instance,
    context: instance.question,
    step: 0,
    phase: 'route',
    retrieved: [],
    log: [],
    done: false,
    outcome: null,
  };
}

function next(state: SearchState): NextCall | null {
  if (state.done) return null;
  const role: Role = state.phase === 'route' ? 'verifier' : state.phase;
  return { agent: role, prompt: promptFor(state.context, agentSpec(AGENTS, role)) };
}

function validate(agent: Role, response: string): string | null {
  switch (agent) {
    case 'verifier':
      return response === 'yes' || response === 'no' ? null : 'verdict must be yes or no';
    case 'search':
      return parseQuery(response) !== null ? null : 'query must be q:<words>';
    case 'answer':
      return parseAnswer(response) !== null ? null : 'answer must be a:<value>';
    default:
      return `'${agent}' is not a search agent`;
  }
}

/** The environment transition, with at most `maxSteps` env steps (a route and its action each). */
function cappedStep(
  maxSteps: number,
  state: SearchState,
  agent: Role,
  response: string,
): StepResult<SearchState> {
  expectTurn(next(state), agent);
  const valid = validate(agent, response) === null;
  const log = logged(state, agent, valid);
  const last = state.step === maxSteps - 1;

  if (agent === 'verifier') {
    // Invalid verdict = yes, as in the reference; "no" at the last step ends with reward 0.
    if (response !== 'no') return { state: { ...state, log, phase: 'answer' }, valid };
    if (last) return { state: finish({ ...state, log }, { success: false, reward: 0 }), valid };
    return { state: { ...state, log, phase: 'search' }, valid };
  }

  if (agent === 'search') {
    const query = parseQuery(response);
    const hits = query === null ? [] : new Bm25(state.instance.facts).search(query, SEARCH_TOP_K);
    const text = hits.map((h) => state.instance.facts[h.index]).join(';');
    const retrieved = [
      ...state.retrieved,
      ...hits.map((h) => h.index).filter((i) => !state.retrieved.includes(i)),
    ];
    const context = state.context + SPECIAL.ENV + text + SPECIAL.ENV_END;
    return { state: { ...state, log, context, retrieved, step: state.step + 1, phase: 'route' }, valid };
  }

  // Answer agent. A malformed answer is an empty action (the reference ends only when the tags
  // are present): the step passes and, at the last step, the episode ends with reward 0.
  const answer = parseAnswer(response);
  if (answer === null) {
    if (last) return { state: finish({ ...state, log }, { success: false, reward: 0 }), valid };
    return { state: { ...state, log, step: state.step + 1, phase: 'route' }, valid };
  }
  const success = normalizeAnswer(answer) === normalizeAnswer(state.instance.answer);
  return { state: finish({ ...state, log }, { success, reward: success ? 1 : 0 }), valid };
}

const step = (state: SearchState, agent: Role, response: string) =>
  cappedStep(SEARCH_MAX_STEPS, state, agent, response);

/** Every fact the answer needs has been retrieved. */
export function answerable(state: SearchState): boolean {
  return state.instance.hops.every((h) => state.retrieved.includes(h.fact));
}

/**
 * The router's errors in one finished trajectory, found by replaying its calls on `task`: a
 * cautious "no" (every needed fact already retrieved), an eager "yes" (or an invalid verdict, which
 * counts as yes) before every needed fact is in, and whether it timed out ("no" at the last step).
 */
export interface RouteErrors {
  cautious: number;
  eager: number;
  timeout: boolean;
}

export function routeErrors(
  task: Task<SearchInstance, SearchState>,
  instance: SearchInstance,
  calls: readonly { agent: Role; response: string }[],
): RouteErrors {
  const errors: RouteErrors = { cautious: 0, eager: 0, timeout: false };
  let state = task.init(instance);
  for (const { agent, response } of calls) {
    if (agent === 'verifier') {
      if (response === 'no' && answerable(state)) errors.cautious++;
      if (response !== 'no' && !answerable(state)) errors.eager++;
    }
    state = task.step(state, agent, response).state;
    errors.timeout = state.done && agent === 'verifier';
  }
  return errors;
}

/** A value of the answer's kind that is not the answer (a guess that is certainly wrong). */
function wrongValue(state: SearchState, rng: Prng): string {
  const { answer, hops } = state.instance;
  const rel = hops[hops.length - 1].relation;
  const pool = rel === 'land' ? LANDS : rel === 'city' ? CITIES : JOBS;
  return rng.pick(pool.filter((v) => v !== answer));
}

function demonstrate(state: SearchState, agent: Role, rng: Prng, errorRate: number): string {
  const mistake = rng.chance(errorRate);
  const malformed = mistake && rng.chance(MALFORMED_SHARE);
  const ready = answerable(state);
  if (agent === 'verifier') {
    if (malformed) return rng.pick(['ye', 'ok', 'yes!', 'n']); // counts as yes
    return ready !== mistake ? 'yes' : 'no';
  }
  if (agent === 'search') {
    const hop = state.instance.hops.find((h) => !state.retrieved.includes(h.fact)) ?? state.instance.hops[0];
    if (malformed) return `${hop.subject} ${hop.relation}`;
    if (mistake) return `q:${rng.pick(NOISE)}`; // retrieves nothing
    return `q:${hop.subject} ${hop.relation}`;
  }
  // Answer: without the facts the best an agent can do is guess, and the guess is wrong here.
  if (malformed) return state.instance.answer;
  if (mistake || !ready) return `a:${wrongValue(state, rng)}`;
  return `a:${state.instance.answer}`;
}

/**
 * The neutral default: the empty output, what an agent that emits EOS at once gives. Each agent's
 * empty output is the reference's "no action" (search_orchestra.py): an empty verdict is invalid
 * and counts as yes, so a no-op router passes the question straight to the answer agent; an empty
 * query retrieves nothing; an empty answer is the empty action, the step passes without ending the
 * episode. None of them adds information, and none ends the episode by itself.
 */
function neutral(): string {
  return '';
}

export const searchTask: Task<SearchInstance, SearchState> = {
  name: 'search',
  doc: 'Verifier routes to Search or Answer (≤ 4 steps) over a synthetic KB with BM25 retrieval',
  // Follows Dr. MAS search orchestra (arXiv 2602.08847; orchestra/search/search_orchestra.py).
  agents: AGENTS,
  invalidPenalty: 0.01,
  maxCalls: 2 * SEARCH_MAX_STEPS,
  generate,
  key: (i) => `${i.question}|${i.facts.join(';')}`,
  init,
  next,
  validate,
  step,
  demonstrate,
  neutral,
};

/**
 * Per-agent rewards on different scales, after AT-GRPO's role rewards (PettingLLMs
 * `calculate_reward`, docs/tasks.md#search-roles: reasoner 2·1[correct]; tool agent (−1 error, +1
 * correct, else 0) + 1[reasoning correct]), with the verifier on the shared outcome:
 *   answer   2 · 1[answer right]                                   ∈ {0, 2}
 *   search   (−1 if any query was malformed, else +1 if every fact the answer needs was
 *            retrieved, else 0) + 1[answer right]                    ∈ {−1, 0, 1, 2}
 *   verifier 1[answer right]                                         ∈ {0, 1}
 * Each row then scores its agent's reward minus its own invalid penalty. GRPO averages a
 * trajectory's row scores into one value per trajectory and normalizes those; Dr. MAS normalizes
 * each agent's row scores among themselves; global-step pools every row of the prompt group.
 */
export function roleRewards(state: SearchState, success: boolean): Partial<Record<Role, number>> {
  const right = success ? 1 : 0;
  const malformed = state.log.some((l) => l.agent === 'search' && !l.valid);
  const tool = malformed ? -1 : answerable(state) ? 1 : 0;
  return { answer: 2 * right, search: tool + right, verifier: right };
}

/**
 * Each agent's own part on search-roles: the answer agent answered right; the search agent
 * retrieved every fact the answer needs with no malformed query (its role reward's +1); the
 * verifier routed right at every verdict (routeErrors' cautious and eager errors, none).
 */
function ownParts(state: SearchState, success: boolean): Partial<Record<Role, boolean>> {
  const malformed = state.log.some((l) => l.agent === 'search' && !l.valid);
  return {
    answer: success,
    search: !malformed && answerable(state),
    ...(state.verdictsRight === undefined ? {} : { verifier: state.verdictsRight }),
  };
}

function stepWithRoles(state: SearchState, agent: Role, response: string): StepResult<SearchState> {
  const r = step(state, agent, response);
  const verdictsRight =
    agent === 'verifier'
      ? (state.verdictsRight ?? true) && (response === 'no') !== answerable(state)
      : state.verdictsRight;
  const next = verdictsRight === undefined ? r.state : { ...r.state, verdictsRight };
  const outcome = next.outcome;
  if (!outcome) return { ...r, state: next };
  const agentRewards = roleRewards(next, outcome.success);
  const agentSuccess = ownParts(next, outcome.success);
  return { ...r, state: { ...next, outcome: { ...outcome, agentRewards, agentSuccess } } };
}

export const searchRolesTask: Task<SearchInstance, SearchState> = {
  ...searchTask,
  name: 'search-roles',
  variantOf: 'search',
  doc: 'search with per-agent rewards on different scales (AT-GRPO role rewards): answer 2·EM, search retrieval ±1 + EM, verifier EM',
  // Follows Dr. MAS search orchestra + PettingLLMs role rewards (arXiv 2510.11062; multi_agent_env/**/calculate_reward).
  step: stepWithRoles,
  ownSuccess: true,
};

/**
 * `search-routing`'s demonstrator: search's, except that the router errs one way only, cautiously:
 * with probability `errorRate` it says "no" although every needed fact is in (it wants more
 * evidence). Its base router learns from this (models/search-routing/manifest.json). The other
 * error, an eager "yes" before the facts are in, is not demonstrated: the router makes it on its own
 * after a search that missed, which demonstrations (a searcher that never misses) never show it.
 */
function demonstrateCautious(state: SearchState, agent: Role, rng: Prng, errorRate: number): string {
  if (agent !== 'verifier') return demonstrate(state, agent, rng, errorRate);
  return answerable(state) && rng.chance(errorRate) ? 'no' : demonstrate(state, agent, rng, 0);
}

/**
 * The search workflow with its turn cap at 3 env steps instead of 4 (the key-value toy, docs/tasks.md#search-routing),
 * same questions, rewards and −0.01 invalid-row penalty. A 2-hop question now needs both searches
 * and a "yes" at the last step: a cautious router that says "no" once too often times out (reward
 * 0), an eager one that says "yes" before the facts are in sends the answer agent to guess (wrong).
 * So routing errors decide the outcome, and search rows (more of them in timeouts) gather in
 * failures while answer rows (none in a timeout) gather in successes.
 */
export const searchRoutingTask: Task<SearchInstance, SearchState> = {
  ...searchTask,
  name: 'search-routing',
  variantOf: 'search',
  doc: `search with a ${SEARCH_ROUTING_MAX_STEPS}-step cap: a cautious router times out, an eager one answers before the facts are in`,
  // Follows Dr. MAS search orchestra (env.max_steps) + the key-value toy (docs/tasks.md#search-routing: max_steps 3–4, "no" at the last step fails).
  maxCalls: 2 * SEARCH_ROUTING_MAX_STEPS,
  step: (state, agent, response) => cappedStep(SEARCH_ROUTING_MAX_STEPS, state, agent, response),
  demonstrate: demonstrateCautious,
};
