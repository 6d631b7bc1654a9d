/**
 * `sync`: the control task. Two agents act exactly once each on one shared reward with no per-row
 * penalties (an invalid output just fails the trajectory), so every agent has one row per
 * trajectory and Dr. MAS must equal GRPO exactly (docs/estimators.md#synchronous-degeneration). Alice echoes a word,
 * Bob mirrors Alice: success iff together they spell the word and its reverse. Pure.
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

export interface SyncInstance {
  word: string;
}

export interface SyncState extends BaseState {
  instance: SyncInstance;
  /** The word, then Alice's output once she has spoken. */
  context: string;
  /** Alice's raw output (null before she acts). */
  alice: string | null;
}

const AGENTS: readonly AgentSpec[] = [
  { role: 'alice', rolePrompt: '', maxResponse: 8 },
  { role: 'bob', rolePrompt: '', maxResponse: 8 },
];

const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

const reverse = (s: string): string => [...s].reverse().join('');
const isWord = (s: string): boolean => /^[a-z]{1,8}$/.test(s);

/** A pronounceable 3–5 letter word (consonant-vowel pattern), about 80k possibilities. */
function generate(rng: Prng): SyncInstance {
  const len = rng.range(3, 5);
  let word = '';
  for (let i = 0; i < len; i++) word += rng.pick([...(i % 2 === 0 ? CONSONANTS : VOWELS)]);
  return { word };
}

function init(instance: SyncInstance): SyncState {
  return { instance, context: instance.word, alice: null, log: [], done: false, outcome: null };
}

function next(state: SyncState): NextCall | null {
  if (state.done) return null;
  const role: Role = state.alice === null ? 'alice' : 'bob';
  return { agent: role, prompt: promptFor(state.context, agentSpec(AGENTS, role)) };
}

function validate(agent: Role, response: string): string | null {
  if (agent !== 'alice' && agent !== 'bob') return `'${agent}' is not a sync agent`;
  return isWord(response) ? null : 'must be 1–8 letters a–z';
}

function step(state: SyncState, agent: Role, response: string): StepResult<SyncState> {
  expectTurn(next(state), agent);
  const valid = validate(agent, response) === null;
  const log = logged(state, agent, valid);
  if (agent === 'alice') {
    const context = `${state.context} ${sanitize(response, agentSpec(AGENTS, 'alice').maxResponse)}`;
    return { state: { ...state, log, context, alice: response }, valid };
  }
  // Any invalid row fails the whole trajectory: the reward stays shared, rows stay equal.
  const alice = state.alice ?? '';
  const success = log.every((l) => l.valid) && alice === state.instance.word && response === reverse(alice);
  return { state: finish({ ...state, log }, { success, reward: success ? 1 : 0 }), valid };
}

/** `s` with one letter changed, so it certainly differs. */
function garble(s: string, rng: Prng): string {
  const i = rng.int(s.length);
  const ch = rng.pick([...LETTERS].filter((c) => c !== s[i]));
  return s.slice(0, i) + ch + s.slice(i + 1);
}

function demonstrate(state: SyncState, agent: Role, rng: Prng, errorRate: number): string {
  const mistake = rng.chance(errorRate);
  const malformed = mistake && rng.chance(MALFORMED_SHARE);
  // Alice echoes the word; Bob mirrors what Alice actually said (as shown to him).
  const target = agent === 'alice' ? state.instance.word : reverse(state.context.split(' ')[1] || 'x');
  if (malformed) return `${target}1`;
  return mistake ? garble(target, rng) : target;
}

/**
 * The neutral default: the empty output, what an agent that emits EOS at once gives: no word. The
 * task needs both agents (an invalid row fails the trajectory), so removing either one fails it.
 */
function neutral(): string {
  return '';
}

/**
 * `sync-own`: sync with each agent rewarded for its own part, so the agents' rows carry their own,
 * independent rewards (the setting where normalizing per agent can differ from per trajectory,
 * docs/estimator-algebra.md#reward-dials). Alice earns 1 for echoing the word, Bob 1 for mirroring
 * what Alice actually said (as shown to him), whatever she said; the team succeeds when both do.
 */
function stepOwn(state: SyncState, agent: Role, response: string): StepResult<SyncState> {
  const r = step(state, agent, response);
  if (!r.state.done || !r.state.outcome) return r;
  const shown = state.context.split(' ')[1] ?? '';
  const alice = state.alice === state.instance.word;
  const bob = isWord(response) && response === reverse(shown);
  const outcome = {
    ...r.state.outcome,
    agentRewards: { alice: alice ? 1 : 0, bob: bob ? 1 : 0 },
    agentSuccess: { alice, bob },
  };
  return { ...r, state: { ...r.state, outcome } };
}

export const syncTask: Task<SyncInstance, SyncState> = {
  name: 'sync',
  doc: 'Control: Alice and Bob act once each on one shared reward (Dr. MAS = GRPO here)',
  // Follows docs/estimators.md#synchronous-degeneration; MAGRPO two-writer toy (arXiv 2508.04652).
  agents: AGENTS,
  invalidPenalty: 0,
  maxCalls: 2,
  generate,
  key: (i) => i.word,
  init,
  next,
  validate,
  step,
  demonstrate,
  neutral,
};

export const syncOwnTask: Task<SyncInstance, SyncState> = {
  ...syncTask,
  name: 'sync-own',
  doc: "Alice and Bob act once each, each rewarded for its own part: echo the word, mirror Alice's output",
  // Follows sync with per-agent rewards (AT-GRPO role rewards on the control task).
  variantOf: 'sync',
  ownSuccess: true,
  step: stepOwn,
};
