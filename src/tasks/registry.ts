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
import { readDataset, type Dataset, type ReadResult } from '../core/workflow/file';
import { expandWorkflow, type WorkflowSpec } from '../core/workflow/families';
import { sha256Hex } from '../core/sha256';
import type { Workflow } from '../core/workflow/schema';
import { workflowHash } from '../core/workflow/pack';
import { workflowTask, WorkflowRefused } from './workflow';

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

/**
 * What names a task where one is run: a built-in task's name, or `workflow:<sha256 prefix>` for
 * a workflow registered with defineWorkflow (the prefix is of the workflow as read, data included,
 * so one ref is one workflow wherever it runs: the trainer, an env worker, the CLI).
 */
export type TaskRef = TaskName | `workflow:${string}`;

/**
 * The workflows defined in this thread, by ref. A cache of content-addressed, immutable tasks:
 * defining one twice returns the same ref, so the state it holds cannot differ between callers.
 */
const WORKFLOWS = new Map<string, AnyTask>();
const REFS = new WeakMap<Workflow, TaskRef>();

/** The ref of a workflow: a hash of it as read (defaults filled, rows inline or named by SHA-256). */
export function workflowRef(wf: Workflow): TaskRef {
  let ref = REFS.get(wf);
  if (!ref) {
    ref = `workflow:${workflowHash(wf).slice(0, 16)}`;
    REFS.set(wf, ref);
  }
  return ref;
}

/**
 * What an env worker needs to step a workflow's trajectories: the workflow without its inline
 * rows, and its data's shape (each field's longest value, for the checks). Plain data, posted once
 * to each worker that steps it (src/workers/env-pool.ts).
 */
export interface WorkflowDefinition {
  ref: string;
  workflow: Workflow;
  longest: [string, number][];
}
const DEFINITIONS = new Map<string, WorkflowDefinition>();

/** The definition an env worker needs for `ref`, or null for a built-in task. */
export function workflowDefinition(ref: string): WorkflowDefinition | null {
  return DEFINITIONS.get(ref) ?? null;
}

/** Defines a workflow's transitions from its definition (in an env worker); idempotent. */
export function defineTransitions(def: WorkflowDefinition): void {
  if (!WORKFLOWS.has(def.ref))
    WORKFLOWS.set(
      def.ref,
      workflowTask(def.workflow, def.ref, null, { longest: new Map(def.longest) }) as AnyTask,
    );
}

/** Datasets read by this thread's host, by SHA-256 of the file (registerDataset). */
const DATASETS = new Map<string, Dataset>();

/**
 * Makes a dataset file's rows known here, by the SHA-256 of the file's bytes: the host read the
 * file and hashed it (the CLI beside the workflow file, the page from the file the user gave, a
 * run worker from its start message). A workflow whose data names that hash then finds its rows.
 */
export function registerDataset(sha256: string, dataset: Dataset): void {
  DATASETS.set(sha256, dataset);
}

/**
 * A dataset file's bytes read (readDataset: CSV or JSONL, by the name's ending) and registered by
 * their SHA-256, which it returns; or the refusals, each naming its line. A worker given the file
 * by the page calls it before it builds anything that reads the workflow's rows.
 */
export function registerDataFile(file: string, bytes: Uint8Array): ReadResult<string> {
  const read = readDataset(new TextDecoder().decode(bytes), file);
  if (!read.ok) return read;
  const sha256 = sha256Hex(bytes);
  registerDataset(sha256, read.value);
  return { ok: true, value: sha256 };
}

/**
 * Defines a workflow's task (compiling and checking it, WorkflowRefused if it cannot train) and
 * returns its ref. A workflow over a data file needs the file's rows registered first.
 */
export function defineWorkflow(wf: Workflow): TaskRef {
  const ref = workflowRef(wf);
  if (WORKFLOWS.has(ref)) return ref;
  let dataset: Dataset | null = null;
  if ('file' in wf.data) {
    const { file, sha256 } = wf.data;
    dataset = sha256 === undefined ? null : (DATASETS.get(sha256) ?? null);
    if (!dataset)
      throw new WorkflowRefused(
        [
          {
            where: 'data.file',
            message: `${file}${sha256 ? ` (SHA-256 ${sha256.slice(0, 12)}…)` : ''} has not been read: give the dataset file with the workflow`,
          },
        ],
        wf.name,
      );
  }
  const task = workflowTask(wf, ref, dataset);
  WORKFLOWS.set(ref, task as AnyTask);
  DEFINITIONS.set(ref, {
    ref,
    workflow: 'rows' in wf.data ? { ...wf, data: { rows: [] } } : wf,
    longest: [...task.shape.longest],
  });
  return ref;
}

/** The task `ref` names (a built-in task, or a workflow defined here), or an error saying why not. */
export function getTask(ref: string): AnyTask {
  if (ref.startsWith('workflow:')) {
    const task = WORKFLOWS.get(ref);
    if (!task) throw new Error(`workflow ${ref} is not defined in this thread (defineWorkflow first).`);
    return task;
  }
  return lookup(TASKS, 'task', ref);
}

/** The task an experiment trains: its built-in task, or its workflow (defined on first use). */
export function taskRefOf(exp: { task: string; workflow?: WorkflowSpec }): TaskRef {
  if (exp.task !== 'workflow') return exp.task as TaskName;
  if (!exp.workflow)
    throw new Error("task 'workflow' needs the workflow itself (the experiment's workflow field).");
  return defineWorkflow(expandWorkflow(exp.workflow));
}

/** The task an experiment trains, as an object. */
export const taskOf = (exp: { task: string; workflow?: WorkflowSpec }): AnyTask => getTask(taskRefOf(exp));

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
  if (task.pool) return samplePool(task.pool[split], task.key.bind(task), rng, n, distinct);
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

/**
 * `n` instances drawn from a finite pool (a workflow's rows of one split), with replacement; with
 * `distinct`, up to `n` different keys (a pool may hold fewer: a validation set of 5 rows is 5).
 */
function samplePool(
  pool: readonly unknown[],
  key: (i: unknown) => string,
  rng: Prng,
  n: number,
  distinct: boolean,
): unknown[] {
  if (!distinct) return Array.from({ length: n }, () => pool[rng.int(pool.length)]);
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const i of rng.shuffle(pool)) {
    if (out.length === n) break;
    if (seen.has(key(i))) continue;
    seen.add(key(i));
    out.push(i);
  }
  return out;
}
