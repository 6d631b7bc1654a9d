/**
 * `search-routing`: the search task under a tighter step cap, where routing errors decide the
 * outcome (docs/tasks.md#search-routing), with its cautious demonstrator, and the router's errors
 * in a finished trajectory of any search task (the amplification script and the base-model tests
 * read them). Pure: no tfjs, no DOM.
 */
import type { Prng } from '../core/prng';
import type { Role } from '../core/vocab';
import {
  answerable,
  cappedStep,
  demonstrate,
  searchTask,
  type SearchInstance,
  type SearchState,
} from './search';
import type { Task } from './types';

/**
 * `search-routing`'s tighter cap, the low end of toy task 1's 3–4: a 2-hop question needs both
 * searches and a "yes" at the last step, so a cautious router times out where `search` leaves it
 * a spare step.
 */
export const SEARCH_ROUTING_MAX_STEPS = 3;

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
 * The search task with its turn cap at 3 env steps instead of 4 (the key-value toy, docs/tasks.md#search-routing),
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

/**
 * The router's errors in one finished trajectory, found by replaying its calls on `task`: a
 * cautious "no" (every needed fact already retrieved), an eager "yes" (or an invalid verdict, which
 * counts as yes) before every needed fact is in, and whether it timed out ("no" at the last step).
 */
interface RouteErrors {
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
