import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';

import { getTask, sampleInstances, splitOf } from '../../src/tasks/registry';
import { syncOwnTask, syncTask } from '../../src/tasks/sync';
import { demoRollout, playSync } from './helpers';

describe('sync-own', () => {
  it("rewards each agent for its own part: Alice's echo, Bob's mirror of what she said", () => {
    expect(playSync(syncOwnTask, 'dako', 'dako', 'okad').outcome).toEqual({
      success: true,
      reward: 1,
      agentRewards: { alice: 1, bob: 1 },
      agentSuccess: { alice: true, bob: true },
    });
    // Alice wrong, Bob mirrors her faithfully: his part is done, the team fails.
    expect(playSync(syncOwnTask, 'dako', 'daka', 'akad').outcome).toMatchObject({
      success: false,
      agentRewards: { alice: 0, bob: 1 },
    });
    expect(playSync(syncOwnTask, 'dako', 'dako', 'dako').outcome).toMatchObject({
      agentRewards: { alice: 1, bob: 0 },
    });
    expect(playSync(syncOwnTask, 'dako', 'dako!', 'okad').outcome).toMatchObject({
      agentRewards: { alice: 0, bob: 0 },
    });
  });

  it("shares sync's instances and split, so it starts from sync's base models on sync's stream", () => {
    const a = sampleInstances(syncOwnTask, new Prng(3), 'train', 20);
    expect(a).toEqual(sampleInstances(syncTask, new Prng(3), 'train', 20));
    expect(getTask('sync-own').variantOf).toBe('sync');
    expect(splitOf(syncOwnTask, 'dako')).toBe(splitOf(syncTask, 'dako'));
  });

  it("rows carry their agent's own reward, and the agents' rewards are not one", async () => {
    const r = await demoRollout('sync-own', 0.4, 40, 8, 5);
    const differ = r.trajectories.filter((t) => t.agentRewards.alice !== t.agentRewards.bob).length;
    expect(differ).toBeGreaterThan(0);
    for (const row of r.rows) expect(row.reward).toBe(r.trajectories[row.traj].agentRewards[row.agent]);
    for (const t of r.trajectories)
      expect(t.agentSuccess).toEqual({ alice: t.agentRewards.alice === 1, bob: t.agentRewards.bob === 1 });
  });
});
