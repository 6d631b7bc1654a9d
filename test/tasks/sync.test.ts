import { describe, expect, it } from 'vitest';
import { rollout } from '../../src/tasks/orchestrator';
import { Prng } from '../../src/core/prng';
import { sampleInstances } from '../../src/tasks/registry';
import { syncTask } from '../../src/tasks/sync';
import { allAgents, demoRollout, fuzzPolicy, playSync } from './helpers';

describe('sync', () => {
  it('succeeds iff Alice echoes the word and Bob mirrors her', () => {
    expect(playSync(syncTask, 'dako', 'dako', 'okad').outcome).toEqual({ success: true, reward: 1 });
    expect(playSync(syncTask, 'dako', 'dako', 'dako').outcome?.success).toBe(false);
    expect(playSync(syncTask, 'dako', 'daka', 'akad').outcome?.success).toBe(false);
  });

  it('fails the trajectory on an invalid output, with no per-row penalty', () => {
    const s = playSync(syncTask, 'dako', 'dako!', 'okad');
    expect(s.outcome).toEqual({ success: false, reward: 0 });
    expect(syncTask.invalidPenalty).toBe(0);
  });

  it('gives every agent exactly one call and one reward per trajectory, whatever the policy', async () => {
    const runs = [
      await demoRollout('sync', 0.4, 30, 8, 2),
      await rollout({
        task: 'sync',
        instances: sampleInstances(syncTask, new Prng(3), 'train', 30),
        groupSize: 8,
        policies: allAgents('sync', fuzzPolicy(1)),
        seed: 3,
      }),
    ];
    for (const { trajectories, rows } of runs) {
      for (const t of trajectories) expect(t.calls).toEqual({ alice: 1, bob: 1 });
      for (const t of trajectories) {
        const rs = rows.filter((r) => r.traj === t.traj);
        expect(rs.map((r) => r.reward)).toEqual([t.reward, t.reward]);
        expect(rs.map((r) => r.turn)).toEqual([0, 0]);
      }
    }
  });
});
