/**
 * `search`: Verifier → Search / Answer over a seeded synthetic knowledge base, after the Dr. MAS
 * search orchestra (docs/tasks.md#search, `orchestra/search/search_orchestra.py`) and the key-value toy (docs/tasks.md#search).
 * Each step the verifier routes `yes` (answer) or `no` (search); the search agent writes
 * `q:<words>`, the environment appends the top BM25 facts; the answer agent writes `a:<value>`.
 * Its variants build on this file: search-roles.ts (per-agent role rewards) and search-routing.ts
 * (a tighter step cap, a cautious demonstrator, the router's errors). Pure: no tfjs, no DOM.
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
/** Facts appended per search (the reference appends top-3 passages; 2 keeps prompts short). */
const SEARCH_TOP_K = 2;

// Disjoint pools, so a name never matches a relation or a value of another kind.
const PEOPLE = 'ana bo kai liv max nia ole pia raj sam tom uma vic zoe eli ivy'.split(' ');
const CITIES = 'oslo lima rome kyiv doha baku bern riga lyon pune fes nuuk'.split(' ');
const LANDS = 'peru chad fiji iran laos mali oman cuba togo niue'.split(' ');
const JOBS = 'chef cook poet monk spy vet maid dean sage'.split(' ');
const NOISE = 'sky sun moon star tree wind'.split(' ');
const PEOPLE_PER_KB = 5;
const CITIES_PER_KB = 3;

/** One retrieval hop: the fact `subject relation value` the answer depends on. */
interface Hop {
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
function parseQuery(response: string): string | null {
  const m = /^q:(.*)$/.exec(response);
  return m && m[1].trim() !== '' && inCharset(m[1]) ? m[1].trim() : null;
}

/** `a:<value>` → the value, or null if malformed. */
function parseAnswer(response: string): string | null {
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
/** The environment transition, with at most `maxSteps` env steps (a route and its action each; search-routing.ts caps it lower). */
export function cappedStep(
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

/** A value of the answer's kind that is not the answer (a guess that is certainly wrong). */
function wrongValue(state: SearchState, rng: Prng): string {
  const { answer, hops } = state.instance;
  const rel = hops[hops.length - 1].relation;
  const pool = rel === 'land' ? LANDS : rel === 'city' ? CITIES : JOBS;
  return rng.pick(pool.filter((v) => v !== answer));
}
/** The demonstrator: each agent's right move, or with probability `errorRate` a mistake (a malformed output in MALFORMED_SHARE of them). */
export function demonstrate(state: SearchState, agent: Role, rng: Prng, errorRate: number): string {
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
