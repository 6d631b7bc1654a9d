import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadShippedBase } from '../../src/cli/base-models';
import { agentKey, agentSameBatchKey, GRAD_NORM, M } from '../../src/core/metrics';
import { decodeExperiment } from '../../src/core/url';
import { RunTrainer } from '../../src/train/trainer';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

/** A small experiment from a link: nano models, 2 instances × 4 rollouts, no evaluation. */
function experiment(hash: string) {
  const r = decodeExperiment(`v=1&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&${hash}`);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/** Each run's metrics over `steps` real training steps from the shipped base models, same seed. */
async function train(hash: string, steps: number): Promise<Record<string, number>[][]> {
  const exp = experiment(hash);
  const { checkpoints } = await loadShippedBase(exp);
  const out: Record<string, number>[][] = [];
  for (const run of exp.runs) {
    const t = new RunTrainer({ exp, run, seed: 11, base: checkpoints });
    const history: Record<string, number>[] = [];
    try {
      for (let s = 0; s < steps; s++) history.push((await t.trainStep()).metrics);
    } finally {
      t.dispose();
    }
    out.push(history);
  }
  return out;
}

/** Everything but the clock's and the allocator's figures. */
const judged = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(m).filter(
      ([k]) => !/^(perf|mem)\//.test(k) && k !== M.timeS && !k.includes('/shadow/custom/'),
    ),
  );

describe('custom estimators train as the named ones they define', () => {
  it('custom (rows; group,agent; group,agent) is drmas and custom (trajectories; group; group) is grpo, metric for metric over 3 steps', async () => {
    const [grpo, drmas, asDrmas, asGrpo] = await train(
      'task=search&runs=[]' +
        '&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=DrMAS&runs.1.estimator=drmas' +
        '&runs.2.label=c1&runs.2.estimator=custom&runs.2.advantage.unit=rows&runs.2.advantage.meanOver=group,agent&runs.2.advantage.stdOver=group,agent' +
        '&runs.3.label=c2&runs.3.estimator=custom&runs.3.advantage.unit=trajectories&runs.3.advantage.meanOver=group&runs.3.advantage.stdOver=group',
      3,
    );
    for (let s = 0; s < 3; s++) {
      expect(judged(asDrmas[s])).toEqual(judged(drmas[s]));
      expect(judged(asGrpo[s])).toEqual(judged(grpo[s]));
    }
    // The estimators differ on this task, so the equalities above say something.
    expect(['verifier', 'search', 'answer'].map((a) => drmas[0][agentKey(a, 'adv/sq_mean')])).not.toEqual(
      ['verifier', 'search', 'answer'].map((a) => grpo[0][agentKey(a, 'adv/sq_mean')]),
    );
    // A custom run weighs its batch by its own estimator too: its correlation with itself is 1.
    expect(asDrmas[0][agentSameBatchKey('answer', 'custom', 'corr')]).toBe(1);
    expect(asDrmas[0][agentSameBatchKey('answer', 'custom', 'sq_mean')]).toBe(
      drmas[0][agentKey('answer', 'adv/sq_mean')],
    );
  }, 300_000);
});

describe('reward dials', () => {
  it("scale 4 quadruples and offset 0.5 shifts one agent's step-0 reward mean; the other agent is unchanged", async () => {
    const [plain, scaled, shifted] = await train(
      'task=sync&runs=[]&runs.0.label=plain&runs.0.estimator=grpo' +
        '&runs.1.label=scaled&runs.1.estimator=grpo&runs.1.reward.scale.alice=4' +
        '&runs.2.label=shifted&runs.2.estimator=grpo&runs.2.reward.offset.alice=0.5',
      1,
    );
    const mean = (m: Record<string, number>[], a: string) => m[0][agentKey(a, 'reward/mean')];
    expect(mean(plain, 'alice')).toBeGreaterThan(0); // the shipped base solves some: a real mean to scale
    expect(mean(scaled, 'alice')).toBe(4 * mean(plain, 'alice'));
    expect(mean(shifted, 'alice')).toBe(mean(plain, 'alice') + 0.5);
    expect(mean(scaled, 'bob')).toBe(mean(plain, 'bob'));
    expect(mean(shifted, 'bob')).toBe(mean(plain, 'bob'));
    // The dials are recorded; the trajectory reward is the task's, undialled.
    expect(scaled[0][agentKey('alice', 'reward/scale')]).toBe(4);
    expect(scaled[0][agentKey('bob', 'reward/scale')]).toBe(1);
    expect(shifted[0][agentKey('alice', 'reward/offset')]).toBe(0.5);
    expect(scaled[0][M.rewardMean]).toBe(plain[0][M.rewardMean]);
  }, 300_000);

  it("sync-own: each agent's own success is measured, and a dial on alice leaves bob's reward alone", async () => {
    const [plain, scaled] = await train(
      'task=sync-own&runs=[]&runs.0.label=plain&runs.0.estimator=drmas' +
        '&runs.1.label=scaled&runs.1.estimator=drmas&runs.1.reward.scale.alice=8',
      1,
    );
    for (const a of ['alice', 'bob']) {
      // Own rewards are 1 for the agent's part done, 0 otherwise: their mean is its own success.
      expect(plain[0][agentKey(a, 'own_success')]).toBe(plain[0][agentKey(a, 'reward/mean')]);
      expect(scaled[0][agentKey(a, 'own_success')]).toBe(plain[0][agentKey(a, 'own_success')]);
    }
    expect(plain[0][agentKey('alice', 'own_success')]).not.toBe(plain[0][agentKey('bob', 'own_success')]);
    expect(scaled[0][agentKey('alice', 'reward/mean')]).toBe(8 * plain[0][agentKey('alice', 'reward/mean')]);
    expect(scaled[0][agentKey('bob', 'reward/mean')]).toBe(plain[0][agentKey('bob', 'reward/mean')]);
  }, 300_000);

  it("on sync, reward.scale.alice=4 leaves GRPO's and Dr. MAS's training where it was: 2 seeded steps, losses and gradients within 1e-4", async () => {
    const [grpo, grpo4, drmas, drmas4] = await train(
      'task=sync&runs=[]&runs.0.label=g&runs.0.estimator=grpo&runs.1.label=g4&runs.1.estimator=grpo&runs.1.reward.scale.alice=4' +
        '&runs.2.label=d&runs.2.estimator=drmas&runs.3.label=d4&runs.3.estimator=drmas&runs.3.reward.scale.alice=4',
      2,
    );
    const keys = ['alice', 'bob'].flatMap((a) => [agentKey(a, 'pg_loss'), agentKey(a, GRAD_NORM)]);
    for (const [plain, scaled] of [
      [grpo, grpo4],
      [drmas, drmas4],
    ])
      for (let s = 0; s < 2; s++)
        for (const k of keys) {
          expect(plain[s][k], k).not.toBe(0); // a real loss and gradient: mixed groups at the base models
          expect(Math.abs(scaled[s][k] - plain[s][k]), `step ${s} ${k}`).toBeLessThan(1e-4);
        }
    // The scale is applied: alice's reward mean is 4 times the plain run's.
    expect(grpo4[0][agentKey('alice', 'reward/mean')]).toBe(4 * grpo[0][agentKey('alice', 'reward/mean')]);
  }, 300_000);

  it('refuses a dial on an agent the task does not have, naming it', () => {
    const exp = experiment('task=sync&reward.scale.carol=2');
    expect(() => new RunTrainer({ exp, run: exp.runs[0], seed: 1 })).toThrow(
      'reward.scale.carol: no such agent in task sync (its agents: alice, bob)',
    );
  });
});
