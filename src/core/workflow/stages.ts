/**
 * The stages of a workflow's flow, and the registry of their kinds. A stage is one entry of
 * `flow`: which agent acts (or which agents, in parallel), on what prompt, and where the flow goes
 * next. ("Stage", not "step": a step is one batch and one update, docs/vocabulary.md.) A stage's
 * kind follows from the one key it carries beside `agent`:
 *
 *   call      (no key)    the agent answers; the flow goes on to `next` (default: the stage below)
 *   loop      loop:       the agent decides whether to go back to an earlier stage, at most `max` passes
 *   route     route:      the agent's answer picks the stage that acts next, from a named set
 *   parallel  parallel:   several agents answer the same prompt, none seeing another's answer
 *
 * The flow may go back only through a loop, which has a bound; `next` and a route go forward. So
 * no flow can cycle without a bound, by construction, and check.ts refuses any other edge back.
 * Pure.
 */
import { z } from 'zod';
import { workflowAgentName } from './schema-names';

/** The kinds of stage, each with its one-line doc and an example (docs/workflows.md reads both). */
export const STAGE_KINDS = {
  call: {
    doc: 'The agent answers; the flow goes on to `next`, or the stage below.',
    example: "- { agent: drafter, prompt: '{question}' }",
  },
  loop: {
    doc: 'The agent decides: while its answer is a `while` word (or until it is an `until` word) the flow goes back to stage `back`, for at most `max` passes; the deciding stage is skipped on the last pass, since its answer could no longer change the flow (as in Dr. MAS’s math orchestra).',
    example:
      "- { agent: verifier, prompt: '{question}={solver}', loop: { back: solver, while: no, max: 2 } }",
  },
  route: {
    doc: 'The agent’s answer picks the stage that acts next (`route: { word: stage }`); any other answer goes to `otherwise` (default: the end).',
    example: "- { agent: router, prompt: '{question}', route: { m: mathbot, w: wordbot }, otherwise: end }",
  },
  parallel: {
    doc: 'Several agents answer the same prompt independently; later stages see each one’s answer by its name.',
    example: "- { parallel: [ann, ben, cat], prompt: '{question}' }",
  },
} as const;
export type StageKind = keyof typeof STAGE_KINDS;

/** A stage's id, as `next`, `back` and routes name it; `end` ends the trajectory. */
export const stageId = z.string().regex(/^[a-z][a-z0-9_-]{0,23}$/, 'lower-case letters, digits, _ and -');
const target = stageId.describe('A stage id, or end');
const words = z.union([z.string().min(1).max(16), z.array(z.string().min(1).max(16)).min(1).max(8)]);

export const StageSchema = z
  .strictObject({
    id: stageId.optional().describe('The stage’s id (default: its agent’s name, where that is unique)'),
    agent: workflowAgentName.optional().describe('The agent that acts'),
    parallel: z
      .array(workflowAgentName)
      .min(2)
      .max(8)
      .optional()
      .describe('parallel: the agents that answer the same prompt independently'),
    prompt: z.string().max(400).describe('A template: {field}, {agent}, {#agent}…{/agent}'),
    next: target
      .optional()
      .describe('Where the flow goes after this stage (default: the stage below, or end)'),
    loop: z
      .strictObject({
        back: target.describe('The earlier stage the flow goes back to'),
        while: words.optional().describe('Go back while the answer is one of these words'),
        until: words.optional().describe('Go back until the answer is one of these words'),
        max: z.number().int().min(2).max(8).describe('The most passes through the loop'),
      })
      .optional()
      .describe(STAGE_KINDS.loop.doc),
    route: z.record(z.string().min(1).max(16), target).optional().describe(STAGE_KINDS.route.doc),
    otherwise: target.optional().describe('route: where any other answer goes (default: end)'),
  })
  .superRefine((s, ctx) => {
    const issue = (message: string, path: string[] = []) => ctx.addIssue({ code: 'custom', message, path });
    if ((s.agent === undefined) === (s.parallel === undefined))
      issue('give either `agent` (one agent) or `parallel` (several)');
    const keys = (['loop', 'route', 'parallel'] as const).filter((k) => s[k] !== undefined);
    if (keys.length > 1) issue(`a stage is one kind: it has ${keys.join(' and ')}`);
    if (s.loop && (s.loop.while === undefined) === (s.loop.until === undefined))
      issue('give either `while` or `until`', ['loop']);
    if (s.otherwise !== undefined && !s.route) issue('`otherwise` belongs to a route', ['otherwise']);
    if (s.route && s.next !== undefined)
      issue('a route goes where its answer says: use `otherwise`, not `next`', ['next']);
    if (s.parallel && new Set(s.parallel).size < s.parallel.length)
      issue('an agent is listed twice', ['parallel']);
  });
export type Stage = z.output<typeof StageSchema>;

/** A stage's kind, from the key it carries. */
export function stageKind(s: Stage): StageKind {
  if (s.parallel) return 'parallel';
  if (s.loop) return 'loop';
  if (s.route) return 'route';
  return 'call';
}

/** The words of a loop's `while` or `until`, as a list. */
export const wordList = (w: string | readonly string[] | undefined): readonly string[] =>
  w === undefined ? [] : typeof w === 'string' ? [w] : w;
