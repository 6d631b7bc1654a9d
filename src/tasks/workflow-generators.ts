/**
 * Built-in tasks' instance streams as workflow data (`data: { generator: <name> }`): each draws
 * the task's own instances, with the task's own keys and split, and gives them to the workflow as
 * rows of text fields. So the built-in tasks are instances of the workflow format: the workflows
 * under examples/workflows/ that rebuild `sync-own` and `math` draw exactly the task's questions
 * (test/tasks/workflow-builtins.test.ts). Pure.
 */
import type { GENERATOR_NAMES, Workflow } from '../core/workflow/schema';
import { mathTask, problemText, solution, type MathInstance } from './math';
import { syncTask, type SyncInstance } from './sync';
import type { AnyTask } from './types';

export interface WorkflowGenerator {
  /** The task whose stream, keys, split and shipped base models the workflow shares. */
  task: AnyTask;
  /** One instance as the workflow's row. */
  fields(instance: unknown): Record<string, string>;
  /** Each field's longest value (the context check reads it). */
  longest: Readonly<Record<string, number>>;
  doc: string;
}

export const WORKFLOW_GENERATORS: Record<(typeof GENERATOR_NAMES)[number], WorkflowGenerator> = {
  sync: {
    task: syncTask,
    fields: (i) => ({ word: (i as SyncInstance).word }),
    longest: { word: 5 },
    doc: 'word: a pronounceable 3–5 letter word (the sync task’s)',
  },
  math: {
    task: mathTask,
    fields: (i) => ({
      question: problemText(i as MathInstance),
      answer: String(solution(i as MathInstance)),
    }),
    longest: { question: 5, answer: 3 },
    doc: 'question: 2-digit addition or subtraction (37+48); answer: its result (85), the math task’s',
  },
};

/**
 * Whether a workflow starts from a built-in task's shipped base models: it draws that task's rows
 * and every agent of it is one of that task's (sync-own.yaml's alice and bob). Any other workflow
 * prepares its own (docs/workflows.md#base-models).
 */
export function usesShippedBase(wf: Workflow): boolean {
  if (!('generator' in wf.data)) return false;
  const roles = WORKFLOW_GENERATORS[wf.data.generator].task.agents.map((a) => a.role);
  return wf.agents.every((a) => roles.includes(a.name));
}
