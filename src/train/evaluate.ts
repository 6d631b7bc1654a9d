/**
 * Evaluation: k rollouts per held-out question, scored as avg@k and pass@k (algorithms.md §9,
 * src/rl/eval.ts). It lives in train, which composes tasks and rl; tasks never import rl.
 */
import { evalAtK, type EvalAtK } from '../rl/eval';
import { rollout, type RolloutOptions } from '../tasks/orchestrator';

export interface EvalOptions<X extends object = object> extends Omit<
  RolloutOptions<X>,
  'groupSize' | 'instances'
> {
  /** Validation instances (see `validationSet`). */
  instances: readonly unknown[];
  /** Samples per question. */
  k: number;
}

export interface EvalResult extends EvalAtK {
  /** Successes out of k, per question. */
  successes: number[];
  /** Trajectories whose environment failed (scored as failures). */
  errors: number;
}

/** avg@k and pass@k: k rollouts per validation instance at the configured temperature. */
export async function evaluate<X extends object = object>(opts: EvalOptions<X>): Promise<EvalResult> {
  const { trajectories } = await rollout({ ...opts, groupSize: opts.k });
  const outcomes = opts.instances.map((_, g) =>
    trajectories.filter((t) => t.group === g).map((t) => t.success),
  );
  return {
    ...evalAtK(outcomes),
    successes: outcomes.map((o) => o.filter(Boolean).length),
    errors: trajectories.filter((t) => t.status === 'error').length,
  };
}
