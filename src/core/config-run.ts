/**
 * One run of an experiment: what it may set for itself (its label, its estimator, its overrides of
 * the shared sections, the live changes it took), and the settings it trains with once its
 * overrides are laid over the experiment's (resolveRun, read by the trainer, the inspector and
 * the Dr. MAS export). Pure: no tfjs, no DOM.
 */
import { z } from 'zod';
import { ESTIMATOR_CHOICES } from './estimators';
import {
  AdvantageSchema,
  OptimSchema,
  RewardSchema,
  RolloutSchema,
  TrainSchema,
  overridesOf,
} from './config-sections';
import type { AdvantageOptions, Optim, RewardOptions, RolloutOptions, TrainOptions } from './config-sections';
import { LiveScheduleSchema } from './live-params';

/** A run's legend label: it names the run's lines, its state file and its stored state. */
export const runLabel = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[\w .+()-]+$/, 'letters, digits, spaces and _ . + ( ) - only');

/** The rollout settings a run may override: how it samples and which groups it keeps, over the same task stream as the others. */
const RunRolloutSchema = RolloutSchema.pick({ sampling: true, filter: true, arms: true });

/** Fields one run may change relative to the experiment (e.g. the estimator's options). */
export const RunSchema = z.strictObject({
  label: runLabel.describe(
    "Legend name of the run; absent: its estimator's label (docs/links.md#run-labels)",
  ),
  estimator: z
    .enum(ESTIMATOR_CHOICES)
    .describe('Advantage estimator: a named one, or custom (advantage.unit, .meanOver, .stdOver)'),
  advantage: overridesOf(AdvantageSchema).default({}).describe('Overrides of the advantage options'),
  optim: overridesOf(OptimSchema).default({}).describe('Overrides of the optimizer settings'),
  reward: overridesOf(RewardSchema)
    .default({})
    .describe('Overrides of the per-agent credit settings and reward dials'),
  rollout: overridesOf(RunRolloutSchema)
    .default({})
    .describe(
      'Overrides of rollout.sampling (tree vs parallel on one task stream), rollout.filter and rollout.arms',
    ),
  train: overridesOf(TrainSchema).optional().describe('Overrides of train.buffer and train.bufferSize'),
  live: LiveScheduleSchema.default({}).describe(
    'Live changes this run took, by step: replayed at that step (runs.0.live.179.optim.lr=0.003)',
  ),
});

export type Run = z.infer<typeof RunSchema>;

/** The sections a run may override, as the experiment holds them or as one run trains with them. */
interface RunSettings {
  optim: Optim;
  advantage: AdvantageOptions;
  reward: RewardOptions;
  rollout: RolloutOptions;
  train: TrainOptions;
}

/** The effective optimizer, advantage, credit, rollout and train settings of one run (experiment values + run overrides). */
export function resolveRun(exp: RunSettings, run: Run): RunSettings {
  return {
    optim: { ...exp.optim, ...run.optim },
    advantage: { ...exp.advantage, ...run.advantage },
    // The dials merge per agent: a run's reward.scale.answer leaves the experiment's other agents' scales.
    reward: {
      ...exp.reward,
      ...run.reward,
      scale: { ...exp.reward.scale, ...run.reward.scale },
      offset: { ...exp.reward.offset, ...run.reward.offset },
    },
    rollout: { ...exp.rollout, ...run.rollout },
    train: { ...exp.train, ...run.train },
  };
}

/**
 * How many scored rollouts one prompt group of the run holds, the n its amplification and
 * What differs are read against: G trajectories (parallel or tree sampling), or the rollout.nodes
 * nodes of an mcts tree.
 */
export function groupScores(exp: RunSettings, run: Run): number {
  const { rollout } = resolveRun(exp, run);
  return rollout.sampling === 'mcts' ? rollout.nodes : rollout.groupSize;
}
