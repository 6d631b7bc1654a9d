/**
 * The reward rules of workflow files, one registry: how an agent's output is judged right or wrong.
 * Each entry is its schema (the fields besides `rule`), its one-line doc and example (docs and the
 * page), and `compile`, which turns the written rule into a judge and a demonstrator's answer.
 * Adding a rule is one entry here; the schema, the JSON Schema, the docs table and the
 * demonstrators follow. Rules are data: the only things a rule runs are the pattern and template
 * languages (pattern.ts, template.ts). Pure.
 */
import { z } from 'zod';
import type { Prng } from '../prng';
import { compilePattern, MAX_PATTERN_LENGTH } from './pattern';
import { workflowAgentName } from './schema-names';
import { parseTemplate, type Template } from './template';

/** What a judge sees: the output it judges, and the trajectory so far. */
export interface JudgeContext {
  /** The output judged, as the agent wrote it. */
  output: string;
  /** A row field, or an agent's latest output as shown to others; undefined if it has none yet. */
  valueOf(name: string): string | undefined;
  /** Whether `agent`'s latest output was right by its own rule (undefined: it has not answered). */
  rightOf(agent: string): boolean | undefined;
}

/** A rule ready to judge. */
export interface CompiledRule {
  judge(ctx: JudgeContext): boolean;
  /**
   * What a competent agent answers (the demonstrator's target), or null where the rule does not
   * say (then another rule of the agent, its `demo` template or its format decides).
   */
  target(ctx: Omit<JudgeContext, 'output'>, rng: Prng): string | null;
  /** The templates it reads, and the agents whose rightness it reads (for the flow check). */
  templates: readonly Template[];
  judges: readonly string[];
}

const expect = z
  .string()
  .max(400)
  .describe('A template over row fields and outputs: {answer}, {alice|reverse}');

/** The same yes/no words as every verdict default. */
const YES = 'yes';
const NO = 'no';

function parseNumber(s: string): number | null {
  return /^-?[0-9]+(\.[0-9]+)?$/.test(s) ? Number(s) : null;
}

/** A rule of the registry: the schema of its fields, its docs, and how it compiles. */
interface RuleDef<S extends z.ZodRawShape> {
  doc: string;
  example: string;
  fields: S;
  compile(rule: z.output<z.ZodObject<S>>): CompiledRule;
}
const def = <S extends z.ZodRawShape>(d: RuleDef<S>) => d;

/** Judges against one expected template, by `same(output, expected)`. */
function against(text: string, same: (output: string, expected: string) => boolean): CompiledRule {
  const t = parseTemplate(text);
  return {
    judge: (ctx) => same(ctx.output, t.render(ctx.valueOf)),
    target: (ctx) => t.render(ctx.valueOf),
    templates: [t],
    judges: [],
  };
}

/** The rules that judge an output by itself (every rule but `all`, which combines them). */
const LEAF_RULES = {
  exact: def({
    doc: 'Right when the output equals the expected text.',
    example: "{ rule: exact, expect: '{answer}' }",
    fields: { expect },
    compile: (r) => against(r.expect, (o, e) => o === e),
  }),
  contains: def({
    doc: 'Right when the expected text occurs in the output (an empty expectation is never right).',
    example: "{ rule: contains, expect: '{city}' }",
    fields: { expect },
    compile: (r) => against(r.expect, (o, e) => e !== '' && o.includes(e)),
  }),
  number: def({
    doc: 'Right when the output is a number (-12, 3.5) within `tolerance` of the expected number.',
    example: "{ rule: number, expect: '{answer}', tolerance: 0 }",
    fields: { expect, tolerance: z.number().min(0).max(1e9).default(0).describe('Absolute tolerance') },
    compile: (r) =>
      against(r.expect, (o, e) => {
        const got = parseNumber(o);
        const want = parseNumber(e);
        return got !== null && want !== null && Math.abs(got - want) <= r.tolerance;
      }),
  }),
  verdict: def({
    doc: "A yes/no agent is right when its verdict matches whether the judged agent's latest output was right by that agent's own rule; any output but `no` counts as yes.",
    example: '{ rule: verdict, judges: solver, yes: yes, no: no }',
    fields: {
      judges: workflowAgentName.describe('The agent whose output the verdict is on (it needs a reward rule)'),
      yes: z.string().min(1).max(16).default(YES).describe('The word that approves'),
      no: z.string().min(1).max(16).default(NO).describe('The word that rejects'),
    },
    compile: (r) => ({
      judge: (ctx) => (ctx.output === r.no) !== (ctx.rightOf(r.judges) === true),
      target: (ctx) => (ctx.rightOf(r.judges) === true ? r.yes : r.no),
      templates: [],
      judges: [r.judges],
    }),
  }),
  route: def({
    doc: "A router is right when it picked the row's labelled route: its output equals the label.",
    example: "{ rule: route, expect: '{topic}' }",
    fields: { expect: expect.describe("The row's label, a template: {topic}") },
    compile: (r) => against(r.expect, (o, e) => o === e),
  }),
  format: def({
    doc: 'Right when the whole output matches a pattern of the pattern language (docs/workflows.md#patterns).',
    example: `{ rule: format, pattern: "letter{1,8}" }`,
    fields: { pattern: z.string().max(MAX_PATTERN_LENGTH).describe("A pattern: letter{1,8}, 'yes' | 'no'") },
    compile: (r) => {
      const p = compilePattern(r.pattern);
      return {
        judge: (ctx) => p.matches(ctx.output),
        target: (_, rng) => p.sample(rng),
        templates: [],
        judges: [],
      };
    },
  }),
  length: def({
    doc: 'Right when the output has between `min` and `max` characters.',
    example: '{ rule: length, min: 3, max: 8 }',
    fields: {
      min: z.number().int().min(0).max(128).default(0),
      max: z.number().int().min(0).max(128),
    },
    compile: (r) => ({
      judge: (ctx) => ctx.output.length >= r.min && ctx.output.length <= r.max,
      target: (_, rng) => 'x'.repeat(rng.range(r.min, Math.max(r.min, r.max))),
      templates: [],
      judges: [],
    }),
  }),
} as const;

type LeafName = keyof typeof LEAF_RULES;
type SpecOf<K extends LeafName> = { rule: K } & z.output<z.ZodObject<(typeof LEAF_RULES)[K]['fields']>>;
/** A rule as written in a workflow file (after defaults). `all` is typed by hand: it holds rules. */
export type RuleSpec = { [K in LeafName]: SpecOf<K> }[LeafName] | { rule: 'all'; of: RuleSpec[] };

/** Every rule, by name. */
export const RULES = {
  ...LEAF_RULES,
  all: {
    doc: 'Right when every listed rule is right (a format and an answer, say).',
    example:
      "{ rule: all, of: [ { rule: format, pattern: 'digit{1,4}' }, { rule: number, expect: '{answer}' } ] }",
    fields: {
      of: z
        .array(z.lazy((): z.ZodType<RuleSpec> => RuleSchema))
        .min(1)
        .max(8)
        .describe('The rules that must all be right'),
    },
    compile: (r: { of: RuleSpec[] }): CompiledRule => {
      const parts = r.of.map(compileRule);
      return {
        judge: (ctx) => parts.every((p) => p.judge(ctx)),
        // The most specific target: an answer rule's over a format's or a length's.
        target: (ctx, rng) => {
          const targets = parts.map((p) => p.target(ctx, rng));
          const order = ['exact', 'number', 'contains', 'route', 'verdict', 'all', 'format', 'length'];
          const ranked = r.of
            .map((spec, k) => ({ rank: order.indexOf(spec.rule), t: targets[k] }))
            .filter((x) => x.t !== null)
            .sort((a, b) => a.rank - b.rank);
          return ranked[0]?.t ?? null;
        },
        templates: parts.flatMap((p) => p.templates),
        judges: parts.flatMap((p) => p.judges),
      };
    },
  },
} as const;

export type RuleName = keyof typeof RULES;
export const RULE_NAMES = Object.keys(RULES) as [RuleName, ...RuleName[]];

/** One schema per rule, discriminated on `rule`, so an error names the rule's own fields. */
export const RuleSchema: z.ZodType<RuleSpec> = z.lazy(() =>
  z.discriminatedUnion(
    'rule',
    RULE_NAMES.map((name: RuleName) =>
      z.strictObject({ rule: z.literal(name).describe(RULES[name].doc), ...RULES[name].fields }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  ),
) as unknown as z.ZodType<RuleSpec>;

/** Compiles a rule (and its children), or throws the pattern's or template's error. */
export function compileRule(spec: RuleSpec): CompiledRule {
  const entry = RULES[spec.rule] as { compile(rule: RuleSpec): CompiledRule };
  return entry.compile(spec);
}
