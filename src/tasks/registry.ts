/**
 * The task registry (one entry per task, typed against TASK_NAMES in src/core/config-names.ts so the
 * schema, the UI dropdown and dispatch cannot drift) and seeded instance streams with disjoint
 * training and validation splits, decided by hashing each instance's key. Pure: no tfjs, no DOM.
 */
import type { TaskName } from '../core/config-names';
import { coderTesterTask } from './coder-tester';
import { mathTask } from './math';
import { planTask } from './plan';
import { hashString, type Prng } from '../core/prng';
import { lookup } from '../core/registry';
import { searchTask } from './search';
import { searchRolesTask } from './search-roles';
import { searchRoutingTask } from './search-routing';
import { syncOwnTask, syncTask } from './sync';
import type { AnyTask, Split } from './types';

export type { TaskName };

/** Every task by name. Adding a task = one entry here plus its name in TASK_NAMES. */
export const TASKS = {
  search: searchTask,
  math: mathTask,
  sync: syncTask,
  'coder-tester': coderTesterTask,
  'search-roles': searchRolesTask,
  plan: planTask,
  'search-routing': searchRoutingTask,
  'sync-own': syncOwnTask,
} as const satisfies Record<TaskName, AnyTask>;

/** The task called `name`, or an error listing the valid names. */
export function getTask(name: string): AnyTask {
  return lookup(TASKS, 'task', name);
}

/** Percent of instance keys held out for validation. */
export const VAL_PERCENT = 10;

/** The split an instance belongs to: a pure function of task name and key, stable across runs. */
export function splitOf(task: AnyTask, key: string): Split {
  return hashString(`${task.variantOf ?? task.name}/${key}`) % 100 < VAL_PERCENT ? 'val' : 'train';
}

/**
 * `n` instances of one split from the stream `rng`, rejecting the other split's instances.
 * `distinct` also drops repeated keys (validation sets should not weigh a question twice).
 */
export function sampleInstances(
  task: AnyTask,
  rng: Prng,
  split: Split,
  n: number,
  distinct = false,
): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  // Rejection sampling: ~10 draws per validation instance. The cap only guards against a
  // task whose instance space is too small for the request.
  for (let tries = 0; out.length < n; tries++) {
    if (tries > 1000 * (n + 10))
      throw new Error(`${task.name}: cannot find ${n} ${distinct ? 'distinct ' : ''}${split} instances.`);
    const instance = task.generate(rng);
    const key = task.key(instance);
    if (splitOf(task, key) !== split || (distinct && seen.has(key))) continue;
    seen.add(key);
    out.push(instance);
  }
  return out;
}

/** The fixed validation set of a run: `n` distinct held-out instances from its own seed stream. */
export function validationSet(task: AnyTask, rng: Prng, n: number): unknown[] {
  return sampleInstances(task, rng.split('validation'), 'val', n, true);
}
