/**
 * A training step's metric frame (trainStep's phase 6, trainer.ts): everything the step measured,
 * turned into one flat record of metric values in one block, named by core/metrics.ts. Kept apart
 * from the trainer so trainStep reads as its six phases, and so every key a step emits is written
 * here in one place (the frame key table, RunTrainer.metricKeys in trainer.ts, lists the same keys).
 */
import * as tf from '@tensorflow/tfjs';
import { agentKey, GRAD_NORM, M, modelKey } from '../core/metrics';
import { statsToMetrics, type AdvantageStats } from '../rl/diagnostics';
import type { FilteredGroups } from '../rl/group-filter';
import { dialsOf, type RewardDials } from '../rl/rows';
import { mean, populationVariance } from '../rl/stats';
import type { TrajectoryResult } from '../tasks/orchestrator';
import { stepShapeMetrics, type UpdateBatch } from './buffers';
import { NO_CREDIT_METRICS, type BatchCredit } from './credit';
import type { PolicyCounters } from './policy';
import type { ModelUpdate } from './ppo-update';

/** What one step measured, phase by phase. */
/**
 * One model's part of a step's update: its update, and the same-batch gradient norms taken before
 * it (metric key, value).
 */
export interface ModelStep {
  model: string;
  sameBatchGradNorms: [string, number][];
  update: ModelUpdate;
}

interface StepMeasures {
  step: number;
  agents: readonly string[];
  /** 2. The trajectories with a judged reward, and how many errored (left out of everything else). */
  judged: readonly TrajectoryResult[];
  errored: number;
  /** The reward dials of the run as they stand (reported per agent). */
  reward: RewardDials;
  /** Per-agent credit, if the run gives it. */
  credit: BatchCredit | null;
  /** Whether the task tells each agent's own part (then its own-success rate is reported). */
  ownSuccess: boolean | undefined;
  /** 3. The run's estimator's statistics, and the same batch under every estimator. */
  advantageStats: AdvantageStats;
  sameBatch: Record<string, number>;
  /** 4. Per model: its update, and the same-batch gradient norms taken before it. */
  updates: readonly ModelStep[];
  /** The group filter's outcome (null without one) and which agents' buffers released rows. */
  filtered: FilteredGroups | null;
  trainedAgents: UpdateBatch['agents'];
  /** 5. avg@k / pass@k, when evaluation was due. */
  evaluation: Record<string, number>;
  /** The rollout's metrics and completion calls (the sampling's own). */
  batch: { completionCalls: number; metrics?: Record<string, number> };
  counters: PolicyCounters;
  ms: { rollout: number; update: number; eval: number };
  /** performance.now() at which the run would have started had it never stopped. */
  t0: number;
}

/** The step's metrics, in one block. */
export function stepMetrics(s: StepMeasures): Record<string, number> {
  const trajRewards = s.judged.map((t) => t.reward);
  const mem = tf.memory() as tf.MemoryInfo & { numBytesInGPU?: number };
  return {
    [M.step]: s.step,
    [M.rewardMean]: mean(trajRewards),
    [M.rewardStd]: Math.sqrt(populationVariance(trajRewards)),
    [M.successRate]: mean(s.judged.map((t) => (t.success ? 1 : 0))),
    [M.envErrors]: s.errored,
    ...statsToMetrics(s.advantageStats, s.agents),
    ...s.sameBatch,
    ...Object.fromEntries(
      s.updates.flatMap(({ model, sameBatchGradNorms, update }): [string, number][] => [
        ...sameBatchGradNorms,
        [modelKey(model, GRAD_NORM), update.gradNorm],
        ...Object.entries(update.agents).flatMap(([agent, a]) =>
          Object.entries(a).map(([stat, v]): [string, number] => [
            agentKey(agent, stat as keyof typeof a),
            v,
          ]),
        ),
      ]),
    ),
    [M.updateSkipped]: s.updates.filter((u) => u.update.skipped).length,
    ...stepShapeMetrics(s.filtered, s.trainedAgents),
    ...s.evaluation,
    [M.rolloutMs]: s.ms.rollout,
    [M.updateMs]: s.ms.update,
    [M.evalMs]: s.ms.eval,
    [M.saveMs]: 0, // the run's driver knows its saves (driver-saves.ts), and sets it before the step is reported
    [M.tokensPerS]: s.counters.tokens / (s.ms.rollout / 1000),
    [M.decodeForwards]: s.counters.forwards,
    ...(s.credit?.metrics ?? NO_CREDIT_METRICS),
    ...Object.fromEntries(
      s.agents.flatMap((a): [string, number][] => {
        const { scale, offset } = dialsOf(s.reward, a);
        return [
          [agentKey(a, 'reward/scale'), scale],
          [agentKey(a, 'reward/offset'), offset],
        ];
      }),
    ),
    ...(s.ownSuccess ? ownSuccess(s.judged, s.agents) : {}),
    [M.completionCalls]: s.batch.completionCalls,
    ...s.batch.metrics,
    [M.timeS]: (performance.now() - s.t0) / 1000,
    [M.memTensors]: mem.numTensors,
    [M.memGpuBytes]: mem.numBytesInGPU ?? 0,
  };
}

/** Per agent, the share of the judged trajectories it acted in where it did its own part (NaN: none). */
function ownSuccess(judged: readonly TrajectoryResult[], agents: readonly string[]): Record<string, number> {
  return Object.fromEntries(
    agents.map((a) => {
      const told = judged.flatMap((t) => {
        const own = (t.agentSuccess as Record<string, boolean> | undefined)?.[a];
        return own === undefined ? [] : [own ? 1 : 0];
      });
      return [agentKey(a, 'own_success'), mean(told)];
    }),
  );
}
