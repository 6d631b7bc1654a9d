/**
 * Workflow families: workflows the lab builds from a few arguments, as MARTI's named workflows take
 * `workflow_args` (a debate's number of agents). A workflow file may be a family and its arguments
 * instead of a whole workflow:
 *
 *   family: parts
 *   args: { agents: 4, mix: 1 }
 *
 * so a sweep can dial an argument (`--grid workflow.args.agents=2,3,4,6,8`). One registry: each
 * family's doc, the schema of its arguments, and `build`, which gives the whole workflow as a
 * file would hold it. expandWorkflow turns a file's workflow, a family's or a whole one, into the
 * whole one everything else reads. Pure.
 */
import { z } from 'zod';
import { WorkflowSchema, type Workflow } from './schema';

/** The `parts` family's agents, in order: short names, none a role of the lab's own tasks. */
const PART_AGENTS = ['ann', 'ben', 'cal', 'dee', 'eve', 'fay', 'gus', 'hal'] as const;

export const FAMILIES = {
  parts: {
    doc: 'N agents, each answering its own part of a row: agent k reverses the k-th word. Own rewards at equal scales; the team’s reward is 1 only when every agent is right',
    args: {
      agents: z.number().int().min(2).max(PART_AGENTS.length).default(2).describe('N, the number of agents'),
      mix: z.number().min(0).max(1).default(1).describe('Every agent’s mix of own and team reward'),
    },
    build: (a: { agents: number; mix: number }): unknown => {
      const agents = PART_AGENTS.slice(0, a.agents);
      return {
        version: 1,
        name: `parts-${a.agents}`,
        doc: `${a.agents} agents, each reversing its own word of the row`,
        agents: agents.map((name) => ({ name, maxResponse: 8, format: 'letter{1,8}' })),
        data: { generator: 'parts' },
        flow: agents.map((name, k) => ({ agent: name, prompt: `{p${k + 1}}<` })),
        rewards: Object.fromEntries(
          agents.map((name, k) => [name, { rule: 'exact', expect: `{p${k + 1}|reverse}` }]),
        ),
        mix: a.mix,
        // Every N starts from agents about equally able to do their own part (two words in five),
        // not from a team equally able: the team's success falls with N by construction.
        base: { success: 0, ownSuccess: 0.4, maxSteps: 800 },
      };
    },
  },
} as const;
export type FamilyName = keyof typeof FAMILIES;
const FAMILY_NAMES = Object.keys(FAMILIES) as [FamilyName, ...FamilyName[]];

/** A workflow file that names a family and its arguments. */
export const FamilyRefSchema = z.discriminatedUnion(
  'family',
  FAMILY_NAMES.map((name) =>
    z.strictObject({
      version: z.literal(1).optional(),
      family: z.literal(name).describe(FAMILIES[name].doc),
      args: z.strictObject(FAMILIES[name].args).prefault({}),
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
export type FamilyRef = { version?: 1; family: FamilyName; args: { agents: number; mix: number } };

/** What a workflow file holds: a family and its arguments, or a whole workflow. */
export const WorkflowSpecSchema = z.union([
  FamilyRefSchema as unknown as z.ZodType<FamilyRef>,
  WorkflowSchema,
]);
export type WorkflowSpec = FamilyRef | Workflow;

const EXPANDED = new WeakMap<object, Workflow>();

/** The whole workflow of a file's (a family's built from its arguments; a whole one as it is). */
export function expandWorkflow(spec: WorkflowSpec): Workflow {
  if (!('family' in spec)) return spec;
  let wf = EXPANDED.get(spec);
  if (!wf) {
    wf = WorkflowSchema.parse(FAMILIES[spec.family].build(spec.args));
    EXPANDED.set(spec, wf);
  }
  return wf;
}
