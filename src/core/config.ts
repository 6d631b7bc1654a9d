/**
 * The experiment config: one versioned zod schema for a whole experiment, composed here from its
 * pieces: the shared sections (config-sections.ts, whose fields choose among config-names.ts's
 * names), the runs compared (config-run.ts), the models, evaluation, seeds and backend, and the
 * checks across fields (config-checks.ts). Also what every reader of an experiment needs of it:
 * its type, its default, its structural key and its run × seed repeats. Reading one from outside
 * is config-validate.ts's; the live parameters are live-params.ts's. Pure: no tfjs, no DOM.
 */
import { z } from 'zod';
import { experimentIssues } from './config-checks';
import { BACKEND_NAMES, MAX_STEPS, TASK_CHOICES } from './config-names';
import { RunSchema } from './config-run';
import {
  AdvantageSchema,
  OptimSchema,
  RewardSchema,
  RolloutSchema,
  TrainSchema,
  agentName,
} from './config-sections';
import { LIVE_PARAMS, withLive } from './live-params';
import { MODEL_PRESETS } from './model-sizes';
import { ESTIMATORS } from './estimators';
import { WorkflowSpecSchema } from './workflow/families';

/** Bump when a field changes meaning; add a migration in url.ts for the old version. */
export const CONFIG_VERSION = 1;

export const ExperimentSchema = z
  .strictObject({
    task: z
      .enum(TASK_CHOICES)
      .default('search')
      .describe(
        'Multi-agent task: a built-in one, or workflow (the workflow field: your own agents, data, flow and rewards)',
      ),
    workflow: WorkflowSpecSchema.optional().describe(
      'task=workflow: the workflow file as read (docs/workflows.md); a link carries it packed',
    ),
    models: z
      .strictObject({
        assignment: z
          .enum(['per-agent', 'shared'])
          .default('per-agent')
          .describe('One model per agent, or one shared model with role tokens'),
        preset: z
          .enum(MODEL_PRESETS)
          .default('nano')
          .describe('Model size for every agent (shipped base models are nano)'),
        perAgent: z
          .record(agentName, z.enum(MODEL_PRESETS))
          .default({})
          .describe('Per-agent model size (heterogeneous; per-agent assignment only)'),
        ids: z
          .record(agentName, agentName)
          .default({})
          .describe(
            'Per-agent model id (DrMAS model_ids): agents given the same id share one model (per-agent assignment only)',
          ),
        from: z
          .record(agentName, agentName)
          .default({})
          .describe(
            "Per-agent: start this agent's model from another agent's shipped base (a MARS2 team of two coders: models.from.tester=coder; per-agent assignment only)",
          ),
        base: z
          .enum(['shipped', 'scratch'])
          .default('shipped')
          .describe('Start from the shipped base checkpoints'),
      })
      .prefault({}),
    runs: z
      .array(RunSchema)
      .min(1)
      .max(6)
      .superRefine((runs, ctx) => {
        // A label names a run's lines, its state file and its stored state: two alike would mix them.
        runs.forEach((r, i) => {
          const first = runs.findIndex((o) => o.label === r.label);
          if (first < i)
            ctx.addIssue({
              code: 'custom',
              path: [i, 'label'],
              message: `"${r.label}" is run ${first}'s label too; labels must differ`,
            });
        });
      })
      .prefault([
        { label: ESTIMATORS.grpo.label, estimator: 'grpo' },
        { label: ESTIMATORS.drmas.label, estimator: 'drmas' },
      ])
      .describe('The runs compared side by side; they share seed, base models and task stream'),
    rollout: RolloutSchema.prefault({}),
    optim: OptimSchema.prefault({}),
    advantage: AdvantageSchema.prefault({}),
    reward: RewardSchema.prefault({}),
    train: TrainSchema.prefault({}),
    eval: z
      .strictObject({
        every: z.number().int().min(0).default(10).describe('Evaluate every N steps (0 = never)'),
        k: z
          .number()
          .int()
          .min(1)
          .max(64)
          .default(8)
          .describe('Samples per validation question (avg@k, pass@k)'),
        questions: z
          .number()
          .int()
          .min(1)
          .max(512)
          .default(32)
          .describe('Validation questions per evaluation'),
        temperature: z.number().positive().max(4).default(0.6).describe('Validation sampling temperature'),
        topP: z.number().gt(0).max(1).default(0.95).describe('Validation nucleus mass'),
      })
      .prefault({}),
    diagnostics: z
      .strictObject({
        shadowGradNorm: z
          .boolean()
          .default(false)
          .describe(
            "Per agent, the gradient norm under every estimator on the run's own batch (one extra backward per agent and estimator)",
          ),
      })
      .prefault({}),
    steps: z.number().int().min(1).max(MAX_STEPS).default(200).describe('Optimizer iterations per run'),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0)
      .describe('Seeds task stream, init and sampling'),
    seeds: z.number().int().min(1).max(8).default(1).describe('Repeat every run over this many seeds'),
    backend: z
      .enum(BACKEND_NAMES)
      .default('auto')
      .describe('Compute backend (auto = fastest that passes a check)'),
  })
  .superRefine((exp, ctx) => {
    experimentIssues(exp).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
  });

export type Experiment = z.infer<typeof ExperimentSchema>;

/** The default experiment: GRPO vs Dr. MAS on `search`, one model per agent. */
export const DEFAULT_EXPERIMENT: Experiment = Object.freeze(ExperimentSchema.parse({})) as Experiment;

/** The config with every live field and schedule blanked: two configs with equal keys need no reset. */
export function structuralKey(c: Experiment): string {
  let blank: Experiment = { ...c, runs: c.runs.map((r) => ({ ...r, live: {} })) };
  for (const p of LIVE_PARAMS) blank = withLive(blank, p, 0);
  return JSON.stringify(blank);
}

/**
 * Every run × seed of an experiment, in the one order the CLI, the workers and the stored
 * sessions use: legend label (`label #s` for the s-th repeat when there are several seeds), seed,
 * and index into exp.runs.
 */
export function runRepeats(exp: Experiment): { label: string; seed: number; runIndex: number }[] {
  return exp.runs.flatMap((run, runIndex) =>
    Array.from({ length: exp.seeds }, (_, s) => ({
      label: exp.seeds > 1 ? `${run.label} #${s}` : run.label,
      seed: exp.seed + s,
      runIndex,
    })),
  );
}
