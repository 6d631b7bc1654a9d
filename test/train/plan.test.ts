/**
 * `plan` on real rollouts of its shipped base models: parallel sampling leaves AT-GRPO's
 * (instance, agent, turn) sets incomplete. Trajectories end at different turns, so a late turn
 * that only one of the G rollouts reached is a set of one (AT-GRPO paper, Fig. 3), while GRPO's
 * per-instance and Dr. MAS's per-(instance, agent) sets are always whole.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { mixSeed, Prng } from '../../src/core/prng';
import { loadShippedBase } from '../../src/cli/base-models';
import { computeAdvantages } from '../../src/rl/advantage';
import { rollout } from '../../src/tasks/orchestrator';
import { getTask, sampleInstances } from '../../src/tasks/registry';
import { agentModelsOf, buildModels, disposeModels } from '../../src/train/models';
import { modelPolicy, type SampledTokens } from '../../src/train/policy';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('plan under parallel sampling', () => {
  it('leaves AT-GRPO singletons at late turns on the shipped base models; GRPO and Dr. MAS have none', async () => {
    const exp = ExperimentSchema.parse({ task: 'plan' });
    const { checkpoints, notes } = await loadShippedBase(exp);
    expect(Object.values(notes).every((n) => n.startsWith('shipped base'))).toBe(true);
    const models = buildModels(exp, () => exp.optim, 0, checkpoints);
    try {
      const counters = { forwards: 0, readbacks: 0, tokens: 0 };
      const policies = Object.fromEntries(models.map((m) => [m.id, modelPolicy(m.model, counters)]));
      // The preset's B = 4 × G = 8 at temperature 1, on the 8 seeded batches of `npm run amplification`.
      const sets = { atgrpo: [0, 0], grpo: [0, 0], drmas: [0, 0] };
      let success = 0;
      for (let b = 0; b < 8; b++) {
        const instances = sampleInstances(getTask('plan'), new Prng(mixSeed(7, `amp/${b}`)), 'train', 4);
        const r = await rollout<SampledTokens>({
          task: 'plan',
          instances,
          groupSize: 8,
          policies,
          agentModels: agentModelsOf(models),
          seed: mixSeed(7, `amp-roll/${b}`),
        });
        success += r.trajectories.filter((t) => t.success).length / 32 / 8;
        for (const e of ['atgrpo', 'grpo', 'drmas'] as const) {
          const { singletonFrac, sets: n } = computeAdvantages(r.rows, { estimator: e }).stats;
          sets[e][0] += Math.round(singletonFrac * n);
          sets[e][1] += n;
        }
      }
      const frac = (e: keyof typeof sets) => sets[e][0] / sets[e][1];
      // A turn reached by one rollout of eight needs seven to have succeeded earlier: rare at base success ~0.4, but there.
      expect(frac('atgrpo')).toBeGreaterThan(0);
      expect(frac('grpo')).toBe(0);
      expect(frac('drmas')).toBe(0);
      console.log(
        `plan, 8 batches of B = 4, G = 8, shipped base: atgrpo singleton_frac ${frac('atgrpo').toFixed(3)} of ${sets.atgrpo[1]} sets, success ${success.toFixed(3)}`,
      );
    } finally {
      disposeModels(models);
    }
  });
});
