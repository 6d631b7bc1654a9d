// Shared fixtures for the task tests: demonstrator rollouts and a garbage-emitting fuzz policy.
import { CHARSET, SPECIAL, roleToken, ROLES } from '../../src/core/vocab';
import { demonstratorPolicy, type ErrorRates } from '../../src/tasks/demo';
import { rollout, type Policy, type RolloutResult } from '../../src/tasks/orchestrator';
import { Prng } from '../../src/core/prng';
import { sampleInstances, TASKS, type TaskName } from '../../src/tasks/registry';
import type { SyncInstance, SyncState } from '../../src/tasks/sync';
import type { Task } from '../../src/tasks/types';

export const TASK_LIST = Object.keys(TASKS) as TaskName[];

/** Every agent of `task` mapped to the same policy. */
export function allAgents(task: TaskName, policy: Policy): Record<string, Policy> {
  return Object.fromEntries(TASKS[task].agents.map((a) => [a.role, policy]));
}

/** B training instances × G demonstrator rollouts. */
export async function demoRollout(
  task: TaskName,
  errorRate: ErrorRates,
  B: number,
  G: number,
  seed = 1,
): Promise<RolloutResult> {
  const instances = sampleInstances(TASKS[task], new Prng(seed), 'train', B);
  return rollout({
    task,
    instances,
    groupSize: G,
    policies: allAgents(task, demonstratorPolicy(task, errorRate)),
    seed,
  });
}

/** One episode of a sync-family `task` on `word`: Alice says `alice`, then Bob says `bob`; the final state. */
export function playSync(
  task: Task<SyncInstance, SyncState>,
  word: string,
  alice: string,
  bob: string,
): SyncState {
  let s = task.init({ word });
  s = task.step(s, 'alice', alice).state;
  return task.step(s, 'bob', bob).state;
}

/**
 * Emits random strings of maximal length: half from CHARSET, half with specials and role
 * tokens mixed in (a badly trained sampler can produce those), to stress parsers and budgets.
 */
export function fuzzPolicy(seed: number): Policy {
  const nasty = [...CHARSET, ...Object.values(SPECIAL), ...ROLES.map(roleToken)];
  return async (calls) =>
    calls.map((c) => {
      const rng = new Prng(seed ^ c.seed);
      const pool = rng.chance(0.5) ? [...CHARSET] : nasty;
      const len = rng.chance(0.5) ? c.maxResponse : rng.range(0, c.maxResponse);
      let text = '';
      for (let i = 0; i < len; i++) text += rng.pick(pool);
      return { text };
    });
}

/** Characters a prompt may contain: CHARSET, specials, role tokens. */
export const PROMPT_CHARS = new Set([...CHARSET, ...Object.values(SPECIAL), ...ROLES.map(roleToken)]);
