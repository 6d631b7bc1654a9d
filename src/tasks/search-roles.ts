/**
 * `search-roles`: the search task with per-agent rewards on different scales, after AT-GRPO's
 * role rewards (docs/tasks.md#search-roles), and each agent's own part of the outcome. Same
 * questions, agents and transition as `search` (search.ts). Pure: no tfjs, no DOM.
 */
import type { Role } from '../core/vocab';
import { answerable, searchTask, type SearchInstance, type SearchState } from './search';
import type { StepResult, Task } from './types';

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
function roleRewards(state: SearchState, success: boolean): Partial<Record<Role, number>> {
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
  const r = searchTask.step(state, agent, response);
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
