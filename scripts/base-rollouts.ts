/**
 * Rollouts of an experiment's base models (the shipped ones under `modelsDir`), with no update: one
 * batch after another at the experiment's own B, G and temperature, each batch's instances and
 * rollout seeded by `tag` and the batch number, so a script's numbers repeat. For the scripts that
 * measure what the estimators would see before any training (amplification, reward-correlation).
 */
import type { Experiment } from '../src/core/config';
import { mixSeed, Prng } from '../src/core/prng';
import { loadShippedBase } from '../src/cli/base-models';
import { rollout } from '../src/tasks/orchestrator';
import { sampleInstances, taskOf, taskRefOf } from '../src/tasks/registry';
import { agentModelsOf, buildModels, disposeModels } from '../src/train/models';
import { modelPolicy, type SampledTokens } from '../src/train/policy';

/** Batch `b`'s instances and rollout; the models are disposed once the loop over them ends. */
export async function* baseRollouts(exp: Experiment, modelsDir: string, batches: number, tag: string) {
  const { checkpoints } = await loadShippedBase(exp, modelsDir);
  const models = buildModels(exp, () => exp.optim, 0, checkpoints);
  try {
    const counters = { forwards: 0, readbacks: 0, tokens: 0 };
    const policies = Object.fromEntries(models.map((m) => [m.id, modelPolicy(m.model, counters)]));
    const { batchSize: B, groupSize: G, temperature } = exp.rollout;
    for (let b = 0; b < batches; b++) {
      const instances = sampleInstances(taskOf(exp), new Prng(mixSeed(7, `${tag}/${b}`)), 'train', B);
      const result = await rollout<SampledTokens>({
        task: taskRefOf(exp),
        instances,
        groupSize: G,
        policies,
        agentModels: agentModelsOf(models),
        seed: mixSeed(7, `${tag}-roll/${b}`),
        temperature,
      });
      yield { b, instances, result };
    }
  } finally {
    disposeModels(models);
  }
}
