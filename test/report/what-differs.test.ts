/**
 * The "What differs" sentences from real batches: demonstrator rollouts of the search and sync
 * tasks, weighed as the trainer weighs them (stepAdvantages), the run's estimator GRPO. Every
 * number the sentences carry is checked against the two estimators' advantages computed directly.
 */
import { describe, expect, it } from 'vitest';
import { CHARTS } from '../../src/core/charts';
import type { EstimatorName } from '../../src/core/estimators';
import { computeAdvantages } from '../../src/rl/advantage';
import { dialReward, type RewardDials } from '../../src/rl/rows';
import { pearson } from '../../src/rl/same-batch';
import { presetById } from '../../src/core/presets';
import { differsPick, whatDiffers } from '../../src/report/what-differs';
import { TASKS, type TaskName } from '../../src/tasks/registry';
import { demoRollout } from '../tasks/helpers';
import { stepAdvantages } from '../rl/fixtures';

const OPTIONS = { normalizeStd: true, eps: 1e-6, singleton: 'raw' as const };

/**
 * Three steps of B = 4 questions × G = 8 rollouts, 30 % demonstrator mistakes, as a run's history;
 * `dials` as the trainer applies them (sync-own-scaled: alice's rewards ×8).
 */
async function history(task: TaskName, own: EstimatorName, mistakes = 0.3, G = 8, dials: RewardDials = {}) {
  const agents = TASKS[task].agents.map((a) => a.role);
  const steps = [];
  for (const seed of [1, 2, 3]) {
    const b = await demoRollout(task, mistakes, 4, G, seed);
    const rows = b.rows.map(({ group, traj, agent, turn, reward }) => ({
      group,
      traj,
      agent,
      turn,
      reward: dialReward(dials, agent, reward),
    }));
    const { metrics } = stepAdvantages(rows, own, OPTIONS, agents);
    steps.push({ rows, metrics: { step: seed, ...metrics } });
  }
  const metrics: Record<string, number>[] = steps.map((s) => s.metrics);
  return { agents, steps, metrics, card: (o = {}) => whatDiffers(metrics, agents, own, o)! };
}

/** One agent's rows' advantages under an estimator, every batch in order. */
function advantagesOf(steps: { rows: { agent: string }[] }[], agent: string, estimator: EstimatorName) {
  return steps.map(({ rows }) => {
    const a = computeAdvantages(rows as never, { ...OPTIONS, estimator }).advantages;
    return rows.flatMap((r, i) => (r.agent === agent ? [a[i]] : []));
  });
}
const sqMean = (a: number[]) => a.reduce((s, x) => s + x * x, 0) / a.length;
const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('What differs', () => {
  it('on search: per agent, the scale ratio, the correlation and the amplification of the real batches', async () => {
    const { steps, card: cardOf } = await history('search', 'grpo');
    const card = cardOf();
    expect(card.identical).toBe(false);
    expect(card.steps).toEqual([1, 3]);
    expect(card.agents.map((a) => a.agent)).toEqual(TASKS.search.agents.map((a) => a.role));
    for (const d of card.agents) {
      const g = advantagesOf(steps, d.agent, 'grpo');
      const m = advantagesOf(steps, d.agent, 'drmas');
      const scale = Math.sqrt(avg(m.map(sqMean)) / avg(g.map(sqMean)));
      const corr = avg(g.map((x, i) => pearson(x, m[i])));
      expect(d.scale).toBeCloseTo(scale, 12);
      expect(d.corr).toBeCloseTo(corr, 12);
      expect(d.sentence).toContain(
        `Dr. MAS gives the ${d.agent} agent ${scale.toFixed(2)}× GRPO’s advantage scale`,
      );
      expect(d.sentence).toContain(`(correlation ${corr.toFixed(2)})`);
      expect(d.sentence).toContain(`about ${scale.toFixed(2)}× as hard under Dr. MAS`);
      expect(d.rms.grpo).toBeCloseTo(Math.sqrt(avg(g.map(sqMean))), 12);
      expect(d.rms.drmas).toBeCloseTo(Math.sqrt(avg(m.map(sqMean))), 12);
      // Per-row penalties keep some rows off their trajectory's score: amplification predicts nothing.
      const carried = avg(
        steps.map(({ rows }) => {
          const mine = rows.filter((r) => r.agent === d.agent);
          const score = (r: (typeof rows)[number]) =>
            avg(rows.filter((x) => x.group === r.group && x.traj === r.traj).map((x) => x.reward));
          return mine.filter((r) => Math.abs(r.reward - score(r)) < 1e-9).length / mine.length;
        }),
      );
      expect(d.carried).toBeCloseTo(carried, 12);
      expect(carried).toBeLessThan(1);
      // No agent's rows all carry it: the lead says so once, with the largest share, and no bullet repeats it.
      expect(d.sentence).not.toContain('Amplification');
    }
    const most = Math.round(100 * Math.max(...card.agents.map((d) => d.carried)));
    expect(card.summary).toBe(
      `On this run’s last 3 batches (steps 1–3), both estimators weighed the same rows. Amplification applies to none of its agents: it needs every row of an agent to carry its trajectory’s reward, and at most ${most} % do; GRPO weighs each row by its trajectory’s score, not by the row’s own reward.`,
    );
    // The batches do part the estimators: some agent's scale is not 1.
    expect(card.agents.some((d) => Math.abs(d.scale - 1) > 0.01)).toBe(true);
  });

  it('never pairs a large amplification with a measured scale near 1 unless it says amplification does not apply', async () => {
    // The contradiction a newcomer met: "its amplification is 45" beside "Dr. MAS gives it 0.93×
    // GRPO's advantage scale". Amplification is GRPO's E[A²] only where rows carry their
    // trajectory's reward; on these batches they carry their own (sync-own), a dial's or a penalty.
    const batches = [
      await history('sync-own', 'grpo', 0.3, 8, { scale: { alice: 8 } }), // the sync-own-scaled preset's rewards
      await history('search', 'grpo'),
      await history('search-roles', 'grpo'),
    ];
    let tested = 0;
    for (const { card } of batches) {
      const c = card();
      for (const d of c.agents) {
        const shown = /[Aa]mplification is (\d+\.\d+)/.exec(d.sentence);
        const big = d.amplification > 1.5 && Math.abs(d.scale - 1) <= 0.1;
        if (big) tested++;
        // Said of the agent, or of every agent once in the card's lead.
        if (big || (shown && Number(shown[1]) > 1.5))
          expect(`${c.summary} ${d.sentence}`, d.sentence).toMatch(
            /Amplification does not apply to it: |Amplification applies to none of its agents/,
          );
      }
    }
    // Such bullets exist on these batches (bob on sync-own ×8, answer and search on search-roles).
    expect(tested).toBeGreaterThanOrEqual(3);
    // The amplification chart draws those numbers all the same: its help says when they predict
    // nothing, in the card's words, so the chart and the card do not contradict each other.
    const chart = CHARTS.find((c) => c.id === 'amplification')!;
    expect(chart.doc).toMatch(/Only where k’s rows carry their trajectory’s reward is it k’s E\[A²\]/);
    expect(chart.doc).toContain('What differs says amplification does not apply');
  });

  it('reads the pair’s correlation from the other estimator’s key when the run is Dr. MAS', async () => {
    const fromDrmas = (await history('search', 'drmas')).card();
    const fromGrpo = (await history('search', 'grpo')).card();
    for (const [i, d] of fromDrmas.agents.entries()) {
      expect(d.corr).toBeCloseTo(fromGrpo.agents[i].corr, 12);
      expect(d.scale).toBeCloseTo(fromGrpo.agents[i].scale, 12);
    }
  });

  it('on sync: says the two are identical, and why', async () => {
    const card = (await history('sync', 'grpo')).card({ trajectories: 4 * 8 });
    expect(card.identical).toBe(true);
    expect(card.summary).toBe(
      'On this run’s last 3 batches (steps 1–3), GRPO and Dr. MAS give every row exactly the same advantage. ' +
        'Every agent acted once in every trajectory, on the trajectory’s shared reward, so each agent’s rows carry ' +
        'exactly the trajectory scores: both estimators normalize the same numbers by the same mean and standard deviation.',
    );
    for (const d of card.agents) {
      expect(d.scale).toBe(1);
      expect(d.corr).toBe(1);
    }
  });

  it('on sync without mistakes: every group ties, every advantage is 0, and the two are still identical', async () => {
    const { agents, metrics, card: all } = await history('sync', 'grpo', 0);
    // Ties leave no correlation defined: the card does not take that for a difference.
    expect(metrics[0]['agent/alice/shadow/drmas/corr']).toBeNaN();
    expect(metrics[0]['agent/alice/shadow/drmas/sq_mean']).toBe(0);
    const card = whatDiffers(metrics.slice(0, 1), agents, 'grpo')!;
    expect(card.identical).toBe(true);
    expect(card.agents[0].sentence).toBe(
      'Every advantage the alice agent got on these batches is 0 under both estimators: its groups’ rollouts tied, so there is nothing to weigh.',
    );
    // Tied groups say nothing of a shared reward: the lead says why every advantage is 0 instead
    // (a workflow at mix 0.5 whose groups all tied read "on the trajectory's shared reward").
    expect(whatDiffers(metrics.slice(0, 1), agents, 'grpo', { trajectories: 4 * 8 })!.summary).toBe(
      'On this run’s last batch (step 1), GRPO and Dr. MAS give every row exactly the same advantage: 0, ' +
        'since all groups’ rollouts tied. Neither estimator had a spread to normalize, so this says nothing ' +
        'of how they differ once rewards spread.',
    );
    expect(all().identical).toBe(true);
  });

  it('says the reward was shared only where the rows recorded carrying it', async () => {
    const { agents, metrics } = await history('sync', 'grpo');
    // An import or an older run without traj_reward_share: identical, but no claim about sharing.
    const unrecorded = metrics.map((m) =>
      Object.fromEntries(Object.entries(m).filter(([k]) => !k.endsWith('/traj_reward_share'))),
    );
    const card = whatDiffers(unrecorded, agents, 'grpo', { trajectories: 4 * 8 })!;
    expect(card.identical).toBe(true);
    expect(card.summary).toContain('exactly the same advantage. Here each agent’s rows carry exactly');
    expect(card.summary).not.toContain('shared reward');
  });

  it('words amplification against (G − 1)/G, what rows carrying their trajectory scores give, in plain sentences', async () => {
    // On sync every row carries its trajectory's score: amplification is exactly (G − 1)/G = 0.75 at
    // G = 4, which is "where the scores are", not "narrower" (what a fixed level of 1 would say).
    const { card } = await history('sync', 'grpo', 0.3, 4);
    const alice = card({ groupSize: 4 }).agents[0];
    expect(alice.amplification).toBeCloseTo(0.75, 12);
    expect(alice.carried).toBe(1);
    const carried = 'All its rows carry their trajectory’s reward, so this is its E[A²] under GRPO.';
    expect(alice.sentence).toContain(
      `Its amplification is 0.75, the value for rewards that sit where its groups’ trajectory scores do. ${carried}`,
    );
    expect(card().agents[0].sentence).toContain(
      `Its amplification is 0.75, below the 1.00 of rewards that sit where its groups’ trajectory scores do: its own spread narrower. ${carried}`,
    );
    // No parenthesis inside a clause, no colon before the verdict: each sentence says one thing.
    expect(alice.sentence).not.toMatch(/\(its rows|\): its/);
  });

  it('with a third run, weighs its estimator on the same rows too, and says so', async () => {
    // step-vs-agent: GRPO, Step-level and Dr. MAS on one task stream.
    const { steps, card } = await history('search', 'grpo');
    const others = [
      { label: 'Step-level', estimator: 'global-step' as const, differs: [] },
      { label: 'Dr. MAS', estimator: 'drmas' as const, differs: [] },
    ];
    const c = card({ others, run: 'GRPO' });
    expect(c.summary).toMatch(
      /^On the GRPO run’s last 3 batches \(steps 1–3\), GRPO, Dr\. MAS and Step-level weighed the same rows\./,
    );
    expect(c.runs).toBe('Each agent’s line also gives Step-level’s advantage scale in GRPO’s units.');
    for (const d of c.agents) {
      const g = advantagesOf(steps, d.agent, 'grpo');
      const step = advantagesOf(steps, d.agent, 'global-step');
      const scale = Math.sqrt(avg(step.map(sqMean)) / avg(g.map(sqMean)));
      const corr = avg(g.map((x, i) => pearson(x, step[i])));
      expect(d.others).toHaveLength(1);
      expect(d.others![0].scale).toBeCloseTo(scale, 12);
      expect(d.others![0].rms).toBeCloseTo(Math.sqrt(avg(step.map(sqMean))), 12);
      expect(d.others![0].corr).toBeCloseTo(corr, 12);
      expect(d.sentence).toContain(
        `Step-level gives it ${scale.toFixed(2)}× GRPO’s advantage scale and agrees ${corr >= 0.99 ? 'almost exactly' : corr >= 0.9 ? 'closely' : corr >= 0.5 ? 'partly' : 'little'} with GRPO on its rows (correlation ${corr.toFixed(2)}).`,
      );
    }
    // Two runs of GRPO and Dr. MAS alone: nothing more to say.
    const two = card({ others: [others[1]] });
    expect(two.runs).toBe('');
    expect(two.agents[0].others).toBeUndefined();
  });

  it('says which runs differ in more than the estimator, and that a custom one is weighed on its own batches', async () => {
    const { card } = await history('search', 'grpo');
    const c = card({
      run: 'GRPO',
      others: [
        { label: 'Dr. MAS', estimator: 'drmas', differs: [] },
        { label: 'GRPO + credit', estimator: 'grpo', differs: ['reward.credit'] },
        { label: 'Dr. MAS + credit', estimator: 'drmas', differs: ['reward.credit'] },
        { label: 'LitePPO', estimator: 'custom', differs: [] },
      ],
    });
    expect(c.runs).toBe(
      'GRPO + credit and Dr. MAS + credit differ from the GRPO run in reward.credit: the card cannot show what that ' +
        'changes (one run’s batches hold one setting), their curves and Findings do. ' +
        'LitePPO trains a custom estimator, weighed only on its own batches: see “Same batch, every estimator”.',
    );
    expect(c.agents.every((a) => a.others === undefined)).toBe(true);
  });

  it('under mcts sampling speaks of trees and nodes, never of trajectories or rollouts', async () => {
    const { agents, metrics } = await history('sync', 'grpo', 0);
    const tied = whatDiffers(metrics.slice(0, 1), agents, 'grpo', { trees: true })!;
    expect(tied.agents[0].sentence).toBe(
      'Every advantage the alice agent got on these batches is 0 under both estimators: the nodes of its trees tied, so there is nothing to weigh.',
    );
    const search = (await history('search', 'grpo')).card({ trees: true });
    const words = [search.summary, search.scores, ...search.agents.map((a) => a.sentence)].join(' ');
    expect(words).toMatch(/the node scores of its trees/);
    expect(words).not.toMatch(/trajector|rollout/);
  });

  it('measures agreement only against the run’s own estimator, and says so', async () => {
    const card = (await history('search', 'atgrpo')).card();
    expect(card.identical).toBe(false);
    expect(card.agents[0].corr).toBeNaN();
    expect(card.agents[0].sentence).toContain('measured only against this run’s own estimator (atgrpo)');
  });

  it('quotes the measured gradient norms where the run records them (diagnostics.shadowGradNorm)', async () => {
    const { agents, metrics } = await history('search', 'grpo');
    // Each step's pre-clip norms at the same weights, GRPO's and Dr. MAS's advantages: 2.0 and 1.5 → 0.75×.
    const withGrad = metrics.map((m) => ({
      ...m,
      ...Object.fromEntries(
        agents.flatMap((a) => [
          [`agent/${a}/shadow/grpo/grad_norm`, 2],
          [`agent/${a}/shadow/drmas/grad_norm`, 1.5],
        ]),
      ),
    }));
    const d = whatDiffers(withGrad, agents, 'grpo')!.agents[0];
    expect(d.gradRatio).toBe(0.75);
    expect(d.sentence).toContain('Measured at the same weights, Dr. MAS’s gradient for it is 0.75× GRPO’s.');
    expect(d.sentence).not.toContain('pull on the gradient');
  });

  it('picks the other runs of a preset with the settings each has of its own beside the estimator', () => {
    const others = (id: string) => {
      const c = presetById(id)!.config;
      return differsPick(
        c,
        c.runs.map((_, runIndex) => ({ runIndex })),
      )!.others;
    };
    expect(others('step-vs-agent')).toEqual([
      { label: 'Step-level', estimator: 'global-step', differs: [] },
      { label: 'Dr. MAS', estimator: 'drmas', differs: [] },
    ]);
    expect(others('credit').map((o) => [o.label, o.differs])).toEqual([
      ['Dr. MAS', []],
      ['GRPO + credit', ['reward.credit']],
      ['Dr. MAS + credit', ['reward.credit']],
    ]);
    // A custom estimator's definition is its estimator, not a setting of its own.
    expect(others('liteppo').find((o) => o.estimator === 'custom')).toEqual({
      label: 'LitePPO',
      estimator: 'custom',
      differs: [],
    });
  });

  it('is null before the first batch', () => {
    expect(whatDiffers([], ['a'], 'grpo')).toBeNull();
  });
});
