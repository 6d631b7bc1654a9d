/**
 * Instance streams a workflow may draw its rows from (`data: { generator: <name> }`), one registry.
 * Two are built-in tasks' own streams, with the task's keys and split: the workflows under
 * examples/workflows/ that rebuild `sync-own` and `math` draw exactly the task's questions
 * (test/tasks/workflow-builtins.test.ts), so the built-in tasks are instances of the workflow
 * format. `parts` is the stream of the `parts` family (src/core/workflow/families.ts): eight words
 * per row, one for each agent that answers its own part. Pure.
 */
import type { Prng } from '../core/prng';
import type { GENERATOR_NAMES, Workflow } from '../core/workflow/schema';
import { mathTask, problemText, solution, type MathInstance } from './math';
import { syncTask, type SyncInstance } from './sync';
import type { AgentSpec } from './types';

export interface WorkflowGenerator {
  /** One instance of the stream (either split: `family`'s split decides which). */
  generate(rng: Prng): unknown;
  /** Identity of an instance (drives the split and distinct validation questions). */
  key(instance: unknown): string;
  /** One instance as the workflow's row. */
  fields(instance: unknown): Record<string, string>;
  /** Each field's longest value (the context check reads it). */
  longest: Readonly<Record<string, number>>;
  /**
   * Whose split the rows follow, and whose shipped base models the workflow may start from: a
   * built-in task's name (its agents) where the stream is that task's.
   */
  family: string;
  shipped: readonly AgentSpec[];
  doc: string;
}

const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';
/** The `parts` stream's words: 4–6 letters, consonant–vowel, about 1.4 million of them. */
function word(rng: Prng): string {
  let w = '';
  for (let i = 0, n = rng.range(4, 6); i < n; i++) w += rng.pick([...(i % 2 === 0 ? CONSONANTS : VOWELS)]);
  return w;
}
/** Parts per row of the `parts` stream: as many as a workflow has agents at most. */
export const PARTS = 8;

export const WORKFLOW_GENERATORS: Record<(typeof GENERATOR_NAMES)[number], WorkflowGenerator> = {
  sync: {
    generate: (rng) => syncTask.generate(rng),
    key: (i) => syncTask.key(i as SyncInstance),
    fields: (i) => ({ word: (i as SyncInstance).word }),
    longest: { word: 5 },
    family: 'sync',
    shipped: syncTask.agents,
    doc: 'word: a pronounceable 3–5 letter word (the sync task’s)',
  },
  math: {
    generate: (rng) => mathTask.generate(rng),
    key: (i) => mathTask.key(i as MathInstance),
    fields: (i) => ({
      question: problemText(i as MathInstance),
      answer: String(solution(i as MathInstance)),
    }),
    longest: { question: 5, answer: 3 },
    family: 'math',
    shipped: mathTask.agents,
    doc: 'question: 2-digit addition or subtraction (37+48); answer: its result (85), the math task’s',
  },
  parts: {
    generate: (rng) => Array.from({ length: PARTS }, () => word(rng)),
    key: (i) => (i as string[]).join(' '),
    fields: (i) => Object.fromEntries((i as string[]).map((w, k) => [`p${k + 1}`, w])),
    longest: Object.fromEntries(Array.from({ length: PARTS }, (_, k) => [`p${k + 1}`, 6])),
    family: 'parts',
    shipped: [],
    doc: `p1 … p${PARTS}: ${PARTS} pronounceable 4–6 letter words, one per agent`,
  },
};

/**
 * Whether a workflow starts from a built-in task's shipped base models: it draws that task's rows
 * and every agent of it is one of that task's (sync-own.yaml's alice and bob). Any other workflow
 * prepares its own (docs/workflows.md#base-models).
 */
export function usesShippedBase(wf: Workflow): boolean {
  if (!('generator' in wf.data)) return false;
  const roles = WORKFLOW_GENERATORS[wf.data.generator].shipped.map((a) => a.role);
  return roles.length > 0 && wf.agents.every((a) => roles.includes(a.name));
}
