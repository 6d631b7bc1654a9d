/**
 * Evaluation: k rollouts per held-out question, scored as avg@k and pass@k (docs/estimators.md#evaluation-metrics,
 * src/rl/eval.ts). It lives in train, which composes tasks and rl; tasks never import rl.
 */
import type { Experiment } from '../core/config';
import { agentKey, evalAvgKey, evalPassKey } from '../core/metrics';
import { evalAtK, type EvalAtK } from '../rl/eval';
import type { EnvRunner } from '../tasks/env';
import { taskRefOf } from '../tasks/registry';
import { rollout, type RolloutOptions } from '../tasks/orchestrator';
import { agentModelsOf, type PolicyModel } from './models';
import { modelPolicy, type PolicyCounters, type SampledTokens } from './policy';

interface EvalOptions<X extends object = object> extends Omit<RolloutOptions<X>, 'groupSize' | 'instances'> {
  /** Validation instances (see `validationSet`). */
  instances: readonly unknown[];
  /** Samples per question. */
  k: number;
}

interface EvalResult extends EvalAtK {
  /** Successes out of k, per question. */
  successes: number[];
  /** Trajectories whose environment failed (scored as failures). */
  errors: number;
  /**
   * Per agent, where the task tells each agent's own part: the share of the trajectories it acted
   * in where it did its part (NaN where it never acted).
   */
  ownSuccess: Record<string, number>;
}

/** avg@k and pass@k: k rollouts per validation instance at the configured temperature. */
export async function evaluate<X extends object = object>(opts: EvalOptions<X>): Promise<EvalResult> {
  const { trajectories } = await rollout({ ...opts, groupSize: opts.k });
  const outcomes = opts.instances.map((_, g) =>
    trajectories.filter((t) => t.group === g).map((t) => t.success),
  );
  const told = new Map<string, number[]>();
  for (const t of trajectories)
    for (const [agent, own] of Object.entries(t.agentSuccess ?? {}))
      told.set(agent, [...(told.get(agent) ?? []), own ? 1 : 0]);
  return {
    ...evalAtK(outcomes),
    successes: outcomes.map((o) => o.filter(Boolean).length),
    errors: trajectories.filter((t) => t.status === 'error').length,
    ownSuccess: Object.fromEntries([...told].map(([a, v]) => [a, v.reduce((x, y) => x + y, 0) / v.length])),
  };
}

/**
 * A run's evaluation as metrics: eval/avg@k and eval/pass@k of its models over the validation
 * `instances` at the eval temperature, sampling seeded by `seed`.
 */
export async function evaluateModels(
  exp: Experiment,
  models: readonly PolicyModel[],
  o: { instances: readonly unknown[]; env: EnvRunner; seed: number },
): Promise<Record<string, number>> {
  const r = await evaluateRun(exp, models, o);
  return {
    [evalAvgKey(exp.eval.k)]: r.avg,
    [evalPassKey(exp.eval.k)]: r.pass,
    ...Object.fromEntries(Object.entries(r.ownSuccess).map(([a, v]) => [agentKey(a, 'eval_own_success'), v])),
  };
}

/** The same evaluation, whole: avg@k, pass@k and each agent's own success. */
export async function evaluateRun(
  exp: Experiment,
  models: readonly PolicyModel[],
  o: { instances: readonly unknown[]; env?: EnvRunner; seed: number },
): Promise<EvalResult> {
  const counters: PolicyCounters = { forwards: 0, readbacks: 0, tokens: 0 };
  return evaluate<SampledTokens>({
    task: taskRefOf(exp),
    instances: o.instances,
    k: exp.eval.k,
    policies: Object.fromEntries(models.map((m) => [m.id, modelPolicy(m.model, counters)])),
    agentModels: agentModelsOf(models),
    ...(o.env ? { env: o.env } : {}),
    seed: o.seed,
    temperature: exp.eval.temperature,
    topP: exp.eval.topP,
  });
}
