import { describe, expect, it } from 'vitest';
import { ESTIMATOR_NAMES, estimatorLabel, getEstimator } from '../../src/core/estimators';
import { setsText } from '../../src/core/advantage-sets';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { Prng } from '../../src/core/prng';
import { computeAdvantages } from '../../src/rl/advantage';
import { dialReward, type AdvantageRow } from '../../src/rl/rows';
import { mean, unbiasedStd } from '../../src/rl/stats';
import { demoRollout } from '../tasks/helpers';
import { SOLVER_VERIFIER } from './fixtures';

/** A seeded batch: 3 groups × 4 trajectories, 2–4 rows each over 3 agents, rewards in a few levels. */
function randomRows(seed: number): AdvantageRow[] {
  const rng = new Prng(seed);
  const rows: AdvantageRow[] = [];
  for (let g = 0; g < 3; g++)
    for (let t = 0; t < 4; t++) {
      const n = rng.range(2, 4);
      for (let k = 0; k < n; k++)
        rows.push({
          group: g,
          traj: `${g}/${t}`,
          agent: ['a', 'b', 'c'][k % 3],
          turn: Math.floor(k / 3),
          reward: rng.int(5) * 0.5 - 0.1 * rng.int(2),
        });
    }
  return rows;
}

describe('estimator algebra', () => {
  it('every named estimator is its (unit, meanOver, stdOver) as a custom one, bit for bit', () => {
    for (const seed of [1, 2, 3, 4]) {
      const rows = [...randomRows(seed), ...SOLVER_VERIFIER];
      for (const name of ESTIMATOR_NAMES) {
        const { unit, meanOver, stdOver } = getEstimator(name);
        const custom = { unit, meanOver: setsText(meanOver), stdOver: setsText(stdOver) };
        for (const singleton of ['raw', 'zero'] as const) {
          const named = computeAdvantages(rows, { estimator: name, singleton });
          const own = computeAdvantages(rows, { estimator: 'custom', singleton, ...custom });
          expect([...own.advantages], `${name} ${singleton}`).toEqual([...named.advantages]);
          expect(own.stats).toEqual(named.stats);
        }
      }
    }
  });

  it('a std over another set than the mean: group mean, batch std (LitePPO)', () => {
    const rows = randomRows(7);
    const { advantages } = computeAdvantages(rows, {
      estimator: 'custom',
      unit: 'rows',
      meanOver: 'group',
      stdOver: 'batch',
      eps: 0,
    });
    const sigma = unbiasedStd(rows.map((r) => r.reward));
    rows.forEach((r, i) => {
      const mu = mean(rows.filter((o) => o.group === r.group).map((o) => o.reward));
      expect(advantages[i]).toBeCloseTo((r.reward - mu) / sigma, 12);
    });
    // Not global-step: that divides each group by its own σ.
    const globalStep = computeAdvantages(rows, { estimator: 'global-step', eps: 0 }).advantages;
    expect([...advantages]).not.toEqual([...globalStep]);
  });

  it('a std set whose values are all equal gives 0, not (s − μ)/ε, whatever the mean set', () => {
    // One group: alice's rows all 1, bob's 0 and 1. Mean over the group (0.75), std per agent: alice's
    // σ is 0, so her rows would be 0.25/ε = 250 000 at the default ε if the zero were not caught.
    const rows: AdvantageRow[] = [
      { group: 0, traj: '0/0', agent: 'alice', turn: 0, reward: 1 },
      { group: 0, traj: '0/1', agent: 'alice', turn: 0, reward: 1 },
      { group: 0, traj: '0/0', agent: 'bob', turn: 0, reward: 0 },
      { group: 0, traj: '0/1', agent: 'bob', turn: 0, reward: 1 },
    ];
    const { advantages } = computeAdvantages(rows, {
      estimator: 'custom',
      unit: 'rows',
      meanOver: 'group',
      stdOver: 'group,agent',
      eps: 1e-6,
    });
    const bobSigma = unbiasedStd([0, 1]);
    expect([...advantages.slice(0, 2)]).toEqual([0, 0]);
    expect(advantages[2]).toBeCloseTo((0 - 0.75) / (bobSigma + 1e-6), 12);
    expect(advantages[3]).toBeCloseTo((1 - 0.75) / (bobSigma + 1e-6), 12);
  });

  it('mean-only per agent centres each agent in its group and never divides', () => {
    const rows = randomRows(9);
    const { advantages } = computeAdvantages(rows, {
      estimator: 'custom',
      meanOver: 'group,agent',
      stdOver: 'none',
    });
    rows.forEach((r, i) => {
      const mu = mean(rows.filter((o) => o.group === r.group && o.agent === r.agent).map((o) => o.reward));
      expect(advantages[i]).toBeCloseTo(r.reward - mu, 12);
    });
  });

  it('labels a custom estimator by its definition', () => {
    expect(estimatorLabel('custom', { unit: 'trajectories', meanOver: 'group', stdOver: 'batch' })).toBe(
      'custom (trajectories; group; batch)',
    );
    expect(estimatorLabel('custom', { meanOver: 'agent,group', stdOver: 'none' })).toBe(
      'custom (rows; group,agent; none)',
    );
    expect(estimatorLabel('drmas')).toBe('Dr. MAS');
  });
});

describe('custom estimators in links', () => {
  const link =
    'v=1&task=sync&runs.1.estimator=custom&runs.1.advantage.unit=rows&runs.1.advantage.meanOver=group,agent&runs.1.advantage.stdOver=none';

  it('opens the contract form and writes it back as it was', () => {
    const r = decodeExperiment(link);
    expect(r.ok).toBe(true);
    expect(r.config.runs[1]).toMatchObject({
      estimator: 'custom',
      advantage: { unit: 'rows', meanOver: 'group,agent', stdOver: 'none' },
    });
    expect(encodeExperiment(r.config)).toBe(link);
  });

  it('names the field of a bad definition', () => {
    const errs = (hash: string) => {
      const r = decodeExperiment(hash);
      return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
    };
    expect(errs('v=1&runs.1.estimator=custom&runs.1.advantage.meanOver=group,prompt')).toEqual([
      "runs.1.advantage.meanOver: 'prompt' is not a set; sets: batch, group, agent, turn (comma-separated)",
    ]);
    expect(errs('v=1&advantage.meanOver=group')).toEqual([
      'advantage.meanOver: only estimator custom reads it, and no run is custom',
    ]);
    expect(errs('v=1&runs.1.advantage.stdOver=none')).toEqual([
      "runs.1.advantage.stdOver: only estimator custom reads it (this run's estimator is drmas)",
    ]);
    expect(
      errs(
        'v=1&runs.1.estimator=custom&runs.1.advantage.unit=trajectories&runs.1.advantage.meanOver=group,agent',
      ),
    ).toEqual([
      'runs.1.advantage.meanOver: unit trajectories has no agent (a trajectory spans agents and turns): use batch or group',
      // stdOver is absent: it reads as the default group,agent, set at no run, so the experiment's field is named
      'advantage.stdOver: unit trajectories has no agent (a trajectory spans agents and turns): use batch or group',
    ]);
  });
});

describe('reward dials', () => {
  it('ρ·r + b for a dialled agent; the reward itself, bit for bit, for the others', () => {
    const dials = { scale: { a: 4 }, offset: { a: 0.5, b: -1 } };
    expect(dialReward(dials, 'a', 0.25)).toBe(1.5);
    expect(dialReward(dials, 'b', 0.25)).toBe(-0.75);
    expect(Object.is(dialReward(dials, 'c', -0), -0)).toBe(true);
  });

  it("on sync, reward.scale.alice cancels in GRPO's and Dr. MAS's advantages (within the σ floor), not in global-step's", async () => {
    // Real rows of the control: one shared reward broadcast to both agents' single rows, no penalties.
    const batch = await demoRollout('sync', 0.4, 8, 8, 3);
    const rows = (scale: number): AdvantageRow[] =>
      batch.rows.map((r) => ({
        group: r.group,
        traj: r.traj,
        agent: r.agent,
        turn: r.turn,
        reward: dialReward({ scale: { alice: scale } }, r.agent, r.reward),
      }));
    // Some groups are mixed, so the advantages are not all 0 and the comparison says something.
    expect(new Set(batch.trajectories.map((t) => t.reward)).size).toBeGreaterThan(1);
    const gap = (estimator: 'grpo' | 'drmas' | 'global-step', scale: number) => {
      const one = computeAdvantages(rows(1), { estimator }).advantages;
      const scaled = computeAdvantages(rows(scale), { estimator }).advantages;
      expect(Math.max(...one.map(Math.abs))).toBeGreaterThan(0.5);
      return Math.max(...one.map((a, i) => Math.abs(a - scaled[i])));
    };
    for (const scale of [4, 32]) {
      // GRPO: each trajectory's value is (ρ·r + r)/2, every value of the group scaled alike; Dr. MAS:
      // each agent's rows scaled alike. What is left is the ε = 1e-6 floor under σ.
      expect(gap('grpo', scale)).toBeLessThan(1e-5);
      expect(gap('drmas', scale)).toBeLessThan(1e-5);
      // global-step pools alice's scaled rows with bob's under one mean and σ: the dial shows.
      expect(gap('global-step', scale)).toBeGreaterThan(0.1);
    }
  });

  it('reads reward.scale.<agent> and reward.offset.<agent> at both levels from a link, old links unchanged', () => {
    const r = decodeExperiment('v=1&task=sync&reward.scale.alice=4&runs.1.reward.offset.bob=0.5');
    expect(r.ok).toBe(true);
    expect(r.config.reward.scale).toEqual({ alice: 4 });
    expect(r.config.runs[1].reward.offset).toEqual({ bob: 0.5 });
    const bad = decodeExperiment('v=1&reward.scale.alice=0');
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(['reward.scale.alice']);
    expect(decodeExperiment('v=1&task=sync').config.reward).not.toHaveProperty('scale');
  });
});
