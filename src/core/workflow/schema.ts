/**
 * The workflow file: a user's own multi-agent system in one file (JSON or YAML), after MARTI's and
 * PettingLLMs' YAML workflows and Dr. MAS's orchestras, shrunk to the lab's character-level
 * agents (docs/workflows.md). One zod schema; the JSON Schema the docs and editors use is generated
 * from it (workflowJsonSchema), so the two cannot drift. What the schema cannot see, a flow that
 * cycles without a bound or a template that reads an output not yet produced, is check.ts's.
 *
 *   agents   1–8 agents, each a name of its own, its longest answer, and optionally its model size,
 *            a role prompt, its output format and a demonstration template
 *   data     inline `rows`, a dataset `file` (CSV or JSONL) named by its SHA-256, or a built-in
 *            task's `generator`
 *   flow     stages in order; each is one kind of STAGE_KINDS (stages.ts)
 *   rewards  per agent a rule of RULES (rules.ts) and its `mix` with the team's; `team` judges the
 *            final output
 * Pure.
 */
import { z } from 'zod';
import { MODEL_PRESETS } from '../model-sizes';
import { CHARSET } from '../vocab';
import { MAX_PATTERN_LENGTH } from './pattern';
import { RuleSchema } from './rules';
import { fieldName, workflowAgentName } from './schema-names';
import { StageSchema } from './stages';

/** The workflow format's version; a newer one is refused with a message, an older one migrated. */
export const WORKFLOW_VERSION = 1;

/** The limits every workflow's data must keep (docs/workflows.md#data). */
export const DATA_LIMITS = { rows: 50_000, bytes: 5 * 1024 * 1024, fieldChars: 120, fields: 16 } as const;

/** Built-in tasks whose instance stream a workflow may draw rows from (src/tasks/workflow-generators.ts). */
export const GENERATOR_NAMES = ['sync', 'math', 'parts'] as const;

const inCharset = (s: string) => [...s].every((ch) => CHARSET.includes(ch));
const charsetText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(
      inCharset,
      "uses a character outside the lab's set (a–z, 0–9, space and .,:;?!=+-*/%()[]<>_|#'\")",
    );

export const WorkflowAgentSchema = z.strictObject({
  name: workflowAgentName.describe('The agent’s name, as charts, metrics and links show it'),
  maxResponse: z.number().int().min(1).max(64).describe('Longest answer in characters'),
  model: z.enum(MODEL_PRESETS).optional().describe('Model size for this agent (nano, small, base)'),
  prompt: charsetText(16)
    .optional()
    .describe('Role prompt: a few characters placed before the agent’s role token in each prompt'),
  format: z
    .string()
    .max(MAX_PATTERN_LENGTH)
    .optional()
    .describe('Its output format, a pattern; an output that does not match is invalid (invalidPenalty)'),
  demo: z
    .string()
    .max(400)
    .optional()
    .describe('What its demonstrator answers, a template (default: from its reward rule)'),
});

/** One row: string fields (a number is refused, so 0012 never silently becomes 12). */
export const RowSchema = z.record(fieldName, charsetText(DATA_LIMITS.fieldChars));

export const DataSchema = z.union([
  z.strictObject({
    rows: z.array(RowSchema).min(1).max(DATA_LIMITS.rows).describe('Inline rows of string fields'),
  }),
  z.strictObject({
    file: z
      .string()
      .regex(
        /^[A-Za-z0-9._-]{1,80}\.(csv|jsonl)$/,
        'a file name ending .csv or .jsonl, beside the workflow file',
      )
      .describe('A dataset file beside the workflow file: CSV with a header row, or JSONL'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, '64 hex digits')
      .optional()
      .describe(
        'The file’s SHA-256; filled in when the workflow is read, and checked whenever it is read again',
      ),
  }),
  z.strictObject({
    generator: z.enum(GENERATOR_NAMES).describe('A built-in task’s instance stream'),
  }),
]);

const RewardSchema = z.intersection(
  RuleSchema,
  z.object({
    mix: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Row reward = mix·own + (1 − mix)·team (default: the workflow’s mix, else 1)'),
  }),
);

const TeamSchema = z.intersection(
  RuleSchema,
  z.object({
    agent: workflowAgentName
      .optional()
      .describe('The agent whose last output the team is judged on (default: the last to act)'),
  }),
);

export const WorkflowSchema = z.strictObject({
  version: z.literal(WORKFLOW_VERSION).default(WORKFLOW_VERSION).describe('The workflow format version'),
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,23}$/, 'lower-case letters, digits and -, at most 24')
    .describe('The workflow’s name'),
  doc: z.string().max(300).optional().describe('One line: what the agents do together'),
  agents: z.array(WorkflowAgentSchema).min(1).max(8).describe('1 to 8 agents'),
  data: DataSchema.describe('The rows the agents work on'),
  flow: z.array(StageSchema).min(1).max(32).describe('The stages, in order'),
  rewards: z
    .record(workflowAgentName, RewardSchema)
    .default({})
    .describe('Per agent, the rule its output is judged by, and its mix'),
  team: TeamSchema.optional().describe(
    'The team’s rule on the final output (default: every agent with a rule was right on its last turn)',
  ),
  mix: z.number().min(0).max(1).optional().describe('Every agent’s mix where it gives none (default 1)'),
  invalidPenalty: z
    .number()
    .min(0)
    .max(10)
    .default(0)
    .describe('Subtracted from the reward of each row whose output breaks its agent’s format'),
  valPercent: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(10)
    .describe('Percent of rows held out for validation, where rows carry no `split` field'),
  base: z
    .strictObject({
      success: z
        .number()
        .min(0)
        .max(1)
        .default(0.3)
        .describe(
          'Where ownSuccess is 0: pretraining stops once the team’s validation success reaches this…',
        ),
      ownSuccess: z
        .number()
        .min(0)
        .max(1)
        .default(0.15)
        .describe(
          '…else once every agent with a rule reaches this own validation success, whatever the team’s',
        ),
      maxSteps: z.number().int().min(1).max(5000).default(600).describe('…or after this many steps'),
    })
    .prefault({})
    .describe('How good its base models are made before RL (docs/workflows.md#base-models)'),
});

export type Workflow = z.output<typeof WorkflowSchema>;
export type WorkflowAgent = z.output<typeof WorkflowAgentSchema>;
export type WorkflowRow = z.output<typeof RowSchema>;

/** The JSON Schema of the workflow file, for editors and docs/workflow.schema.json. */
export function workflowJsonSchema(): object {
  return z.toJSONSchema(WorkflowSchema, { io: 'input', unrepresentable: 'any' });
}
