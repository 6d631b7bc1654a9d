// The Amplification chart's reference line (src/core/charts.ts, docs/charts.md): where the
// estimator's own factor puts an agent whose rows carry exactly their trajectory's score, (n − 1)/n
// for groups of n, not 1; read from each run's group size (G, or an mcts tree's nodes).
import { describe, expect, it } from 'vitest';
import { CHARTS, neutralAmplification } from '../../src/core/charts';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { groupScores } from '../../src/core/config-run';
import { computeAdvantages, type AdvantageRow } from '../../src/rl/advantage';

/** B groups of G trajectories with spread scores; agent a acts once, agent b twice, each row with its trajectory's score. */
function carried(B: number, G: number): AdvantageRow[] {
  const rows: AdvantageRow[] = [];
  for (let g = 0; g < B; g++)
    for (let t = 0; t < G; t++) {
      const score = ((g * 7 + t * t * 3) % 11) / 10;
      const traj = `${g}/${t}`;
      rows.push({ group: g, traj, agent: 'a', turn: 0, reward: score });
      rows.push({ group: g, traj, agent: 'b', turn: 0, reward: score });
      rows.push({ group: g, traj, agent: 'b', turn: 1, reward: score });
    }
  return rows;
}

const amplification = CHARTS.find((c) => c.id === 'amplification')!;

describe('the Amplification chart’s reference line', () => {
  for (const G of [2, 4, 8, 16])
    it(`at G = ${G} it is the factor of an agent that carries its trajectories’ scores: (G − 1)/G`, () => {
      const { stats } = computeAdvantages(carried(3, G), { estimator: 'grpo' });
      const level =
        typeof amplification.refY === 'function' ? amplification.refY([G, G]) : amplification.refY;
      expect(level).toBe((G - 1) / G);
      for (const agent of ['a', 'b']) expect(stats.agents[agent].amplification).toBeCloseTo(level!, 12);
    });

  it('is drawn for one group size only: runs shown with different ones get none', () => {
    expect(neutralAmplification([8, 8, 8])).toBe(0.875);
    expect(neutralAmplification([8, 4])).toBeUndefined();
    expect(neutralAmplification([])).toBeUndefined();
    expect(neutralAmplification([1])).toBeUndefined(); // no spread in a group of one: no factor at all
  });

  it('reads a run’s group size: G, a run’s own sampling, or an mcts tree’s nodes', () => {
    const exp = {
      ...DEFAULT_EXPERIMENT,
      rollout: { ...DEFAULT_EXPERIMENT.rollout, groupSize: 4, nodes: 6 },
    };
    const [first] = exp.runs;
    expect(groupScores(exp, first)).toBe(4);
    expect(groupScores(exp, { ...first, rollout: { sampling: 'tree' } })).toBe(4);
    expect(groupScores(exp, { ...first, rollout: { sampling: 'mcts' } })).toBe(6);
  });
});
