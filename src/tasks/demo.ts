/**
 * Demonstrators as policies: a task's scripted agent behind the orchestrator's Policy interface,
 * for warm-starting base models (supervised targets) and for tests. Each call draws from its own
 * seed, so the same rollout seed gives the same turns however calls are batched. Pure.
 */
import type { Role } from '../core/vocab';
import type { Policy } from './orchestrator';
import { Prng } from '../core/prng';
import { getTask, type TaskRef } from './registry';

/** Probability of a mistake per call: one rate for all agents, or one per agent (default 0). */
export type ErrorRates = number | Partial<Record<Role, number>>;

export function demonstratorPolicy(task: TaskRef, errorRate: ErrorRates = 0): Policy {
  const t = getTask(task);
  const rateOf = (agent: Role): number =>
    typeof errorRate === 'number' ? errorRate : (errorRate[agent] ?? 0);
  return async (calls) =>
    calls.map((c) => ({ text: t.demonstrate(c.state, c.agent, new Prng(c.seed), rateOf(c.agent)) }));
}
