/**
 * The rollout inspector in real headless Chromium, after a real (tiny) training step:
 * - tree sampling (the `atgrpo-tree` preset): every turn of the tree lists its G siblings with
 *   their rewards; exactly one is marked chosen, it has the highest reward, and where several
 *   share it, it is the one the documented seeded draw picks (src/tasks/tree.ts argmaxSeeded over
 *   (rollout seed, instance, depth)); the parallel run of the same preset shows no siblings;
 * - per-agent credit (the `credit` preset's counterfactual run): every row shows its agent's credit
 *   and the outcome of the replay without that agent, credit = outcome − outcome without; without
 *   the answer agent nobody answers, so that outcome is 0. The shared run shows no credit;
 * - reward dials (`sync-own-scaled`): a scaled agent's row names its raw reward and the one the
 *   estimator weighed after the dial, an unscaled one's its reward alone;
 * - mcts sampling (MARS2 on math): one entry per search tree, drawn as nested nodes, each with
 *   its generating agent, score and parent, the same as the node list below it; tree and nodes
 *   right of the trajectory table, and under it at 400 px with nothing past the window.
 */
import type { Locator } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { runRepeats, type Experiment } from '../../src/core/config';
import { mixSeed, Prng } from '../../src/core/prng';
import { presetById } from '../../src/core/presets';
import { encodeExperiment } from '../../src/core/url';
import { argmaxSeeded } from '../../src/tasks/tree';
import { openLab, trainEnabled } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** A preset's experiment, shrunk to one tiny step per run. */
function tiny(id: string, patch: { batchSize: number; groupSize: number; runs?: string[] }): Experiment {
  const exp = structuredClone(presetById(id)!.config);
  exp.rollout.batchSize = patch.batchSize;
  exp.rollout.groupSize = patch.groupSize;
  exp.steps = 1;
  exp.eval.every = 0;
  if (patch.runs) exp.runs = exp.runs.filter((r) => patch.runs!.includes(r.label));
  return exp;
}

/** Opens `exp` from its link, trains every run through its one step, and returns the inspector. */
async function trainOnce(exp: Experiment): Promise<Locator> {
  lab = await openLab(`#${encodeExperiment(exp)}`);
  const { page } = lab;
  await trainEnabled(page);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  for (const r of exp.runs) {
    await expect
      .poll(
        async () => Number(await page.getByLabel(`${r.label} steps done`, { exact: true }).textContent()),
        {
          timeout: 180_000,
        },
      )
      .toBe(1);
  }
  const inspector = page.getByRole('region', { name: 'Rollouts' });
  await inspector.locator('.turn').first().waitFor({ timeout: 30_000 });
  return inspector;
}

/** Shows run `label` in the inspector and waits for its step-0 rollouts. */
async function showRun(inspector: Locator, label: string, heading: string): Promise<void> {
  await inspector.getByRole('tab', { name: label, exact: true }).click();
  await expect
    .poll(() => inspector.locator('.inspector-head .muted').textContent(), { timeout: 30_000 })
    .toBe(heading);
}

const numberIn = (text: string | null) => Number(text?.replace('–', 'NaN').replace('−', '-'));

describe('rollout inspector', () => {
  it('tree sampling: each turn lists its G siblings with rewards, the best one marked chosen (ties by the seeded draw)', async () => {
    const G = 3;
    const exp = tiny('atgrpo-tree', { batchSize: 1, groupSize: G });
    const inspector = await trainOnce(exp);

    await showRun(inspector, 'AT-GRPO tree', 'step 0 · 1 tree');
    const list = inspector.getByRole('table', { name: 'Trajectories' }).locator('tbody tr');
    expect((await list.locator('td').allTextContents()).map((t) => t.trim())).toEqual([
      '0',
      'tree',
      expect.stringMatching(/^-?\d+\.\d\d$/),
      expect.stringMatching(/^[✓✗]$/), // not an env error: every level has a chosen sibling
    ]);
    const turns = inspector.locator('.turn');
    const depth = await turns.count();
    expect(depth).toBeGreaterThanOrEqual(2); // plan: planner, then executor, …

    // The run's seed and the step's rollout seed, as the trainer derives them.
    const { seed } = runRepeats(exp).find((r) => r.label === 'AT-GRPO tree')!;
    const rolloutSeed = mixSeed(seed, 'rollout/0');
    let tiedLevels = 0;
    for (let d = 0; d < depth; d++) {
      const turn = turns.nth(d);
      const rows = turn.getByRole('table', { name: 'Siblings' }).locator('tbody tr');
      expect(await rows.count()).toBe(G);
      const branches = (await rows.locator('td:nth-child(1)').allTextContents()).map(Number);
      expect(branches).toEqual([0, 1, 2]);
      // Rewards at full precision (the cell shows 2 decimals, its tooltip the value).
      const rewards = (
        await rows.locator('td:nth-child(3)').evaluateAll((tds) => tds.map((td) => td.getAttribute('title')))
      ).map((t) => Number(t?.replace(/^reward /, '')));
      expect(rewards.every(Number.isFinite)).toBe(true);
      const shown = (await rows.locator('td:nth-child(3)').allTextContents()).map(numberIn);
      shown.forEach((s, k) => expect(s).toBeCloseTo(rewards[k], 2));

      const marks = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-chosen')));
      const chosen = marks.flatMap((m, k) => (m === 'true' ? [k] : []));
      expect(chosen).toHaveLength(1);
      expect(await rows.nth(chosen[0]).locator('td:nth-child(5)').textContent()).toBe('✓ copied forward');
      expect(rewards[chosen[0]]).toBe(Math.max(...rewards));
      if (rewards.filter((r) => r === Math.max(...rewards)).length > 1) tiedLevels++;
      // The documented tie-break: a draw seeded by (rollout seed, instance 0, depth d).
      expect(chosen[0]).toBe(argmaxSeeded(rewards, new Prng(mixSeed(rolloutSeed, `tree/0/${d}`))));
      // The turn itself is the chosen sibling: its reward in the head.
      expect(await turn.locator('.turn-head > span').nth(1).textContent()).toBe(
        `reward ${rewards[chosen[0]].toFixed(2)}`,
      );
    }
    console.log('[inspector tree]', JSON.stringify({ G, depth, tiedLevels }));

    // The parallel run of the same preset: G trajectories of the one instance, no siblings.
    await showRun(inspector, 'AT-GRPO parallel', `step 0 · ${G} trajectories`);
    expect(await inspector.getByRole('table', { name: 'Siblings' }).count()).toBe(0);
    expect(lab!.errors).toEqual([]);
  });

  it('says which part of a larger batch it shows: the first 2 of 3 groups', async () => {
    const inspector = await trainOnce(tiny('sync', { batchSize: 3, groupSize: 2, runs: ['GRPO'] }));
    await showRun(inspector, 'GRPO', 'step 0 · 4 trajectories (the first 2 of 3 groups)');
    const groups = await inspector
      .getByRole('table', { name: 'Trajectories' })
      .locator('tbody tr td:first-child')
      .allTextContents();
    expect(groups).toEqual(['0', '0', '1', '1']);
    expect(lab!.errors).toEqual([]);
  });

  it('counterfactual credit: each row shows its credit and the outcome without its agent', async () => {
    const exp = tiny('credit', { batchSize: 2, groupSize: 2, runs: ['GRPO', 'GRPO + credit'] });
    expect(exp.runs.map((r) => r.reward.credit)).toEqual([undefined, 'counterfactual']);
    const inspector = await trainOnce(exp);

    await showRun(inspector, 'GRPO + credit', 'step 0 · 4 trajectories');
    const list = inspector.getByRole('table', { name: 'Trajectories' }).locator('tbody tr');
    expect(await list.count()).toBe(4);
    const seen = { rows: 0, replayed: 0, nonzero: 0 };
    for (let t = 0; t < 4; t++) {
      await list.nth(t).click();
      await expect.poll(() => list.nth(t).getAttribute('aria-selected')).toBe('true');
      const cells = (await list.nth(t).locator('td').allTextContents()).map((c) => c.trim());
      expect(cells[3]).not.toBe('env error');
      const outcome = numberIn(cells[2]); // v(all): the trajectory's own reward
      const turns = inspector.locator('.turn');
      const byAgent = new Map<string, string>();
      for (let i = 0; i < (await turns.count()); i++) {
        const agent = (await turns.nth(i).locator('.agent-chip').textContent())!;
        const text = (await turns.nth(i).locator('.credit').textContent())!;
        const m = new RegExp(`^credit (\\S+) · outcome without ${agent} (\\S+)$`).exec(text);
        expect(m, text).not.toBeNull();
        const [credit, without] = [numberIn(m![1]), numberIn(m![2])];
        seen.rows++;
        if (Number.isNaN(without)) {
          expect(credit).toBe(0); // a failed replay: no credit
        } else {
          seen.replayed++;
          expect(Math.abs(credit - (outcome - without))).toBeLessThanOrEqual(0.011); // 2-decimal display
          if (agent === 'answer') expect(without).toBe(0); // nobody answers: never right
        }
        if (credit !== 0) seen.nonzero++;
        // One credit per (trajectory, agent): every row of the agent shows the same.
        if (byAgent.has(agent)) expect(text).toBe(byAgent.get(agent));
        byAgent.set(agent, text);
      }
    }
    console.log('[inspector credit]', JSON.stringify(seen));
    expect(seen.replayed).toBeGreaterThan(0);

    await showRun(inspector, 'GRPO', 'step 0 · 4 trajectories');
    await inspector.locator('.turn').first().waitFor();
    expect(await inspector.locator('.credit').count()).toBe(0);
    expect(lab!.errors).toEqual([]);
  });

  it('names the reward it shows: raw, and what the estimator weighed after the dials', async () => {
    // sync-own-scaled: alice's rewards ×8. Her row showed "reward 1.00" while her μk read about 6.
    const exp = tiny('sync-own-scaled', { batchSize: 1, groupSize: 2, runs: ['GRPO'] });
    expect(exp.reward.scale).toEqual({ alice: 8 });
    const inspector = await trainOnce(exp);
    await showRun(inspector, 'GRPO', 'step 0 · 2 trajectories');
    const turns = inspector.locator('.turn');
    const seen = new Set<string>();
    for (let i = 0; i < (await turns.count()); i++) {
      const agent = (await turns.nth(i).locator('.agent-chip').textContent())!;
      const text = (await turns.nth(i).locator('.turn-head').textContent())!;
      seen.add(agent);
      if (agent === 'alice') {
        const m = /raw reward (\S+) → (\S+) after ×8/.exec(text);
        expect(m, text).not.toBeNull();
        expect(Math.abs(numberIn(m![2]) - 8 * numberIn(m![1]))).toBeLessThanOrEqual(0.04); // 2-decimal display
      } else {
        expect(text).toMatch(/reward −?\d\.\d\d/);
        expect(text).not.toContain('raw reward');
      }
    }
    expect([...seen].sort()).toEqual(['alice', 'bob']);
    expect(lab!.errors).toEqual([]);
  });

  it('says what each advantage was computed from, in the run’s estimator’s words', async () => {
    const exp = tiny('math-loop', { batchSize: 1, groupSize: 2 });
    expect(exp.runs.map((r) => r.label)).toEqual(['GRPO', 'Step-level', 'Dr. MAS']);
    const inspector = await trainOnce(exp);
    const words: Record<string, (agent: string) => string> = {
      GRPO: () =>
        'A from: trajectory score = mean of its rows’ rewards, normalized by the mean and std of the G trajectory scores of its question (GRPO)',
      'Step-level': () =>
        'A from: this row’s reward, normalized by the mean and std of every row of the G rollouts of its question (Step-level)',
      'Dr. MAS': (agent) =>
        `A from: this row’s reward, normalized by the mean and std of agent ${agent}’s rows over the G rollouts of its question (Dr. MAS)`,
    };
    for (const [label, expected] of Object.entries(words)) {
      await showRun(inspector, label, 'step 0 · 2 trajectories');
      const turns = inspector.locator('.turn');
      await turns.first().waitFor();
      for (let i = 0; i < (await turns.count()); i++) {
        const agent = (await turns.nth(i).locator('.agent-chip').textContent())!;
        expect(await turns.nth(i).locator('.adv-basis').textContent()).toBe(expected(agent));
      }
    }
    expect(lab!.errors).toEqual([]);
  });

  it('mcts: draws each search tree, every node with its agent, score and parent', async () => {
    const exp = structuredClone(presetById('math-loop')!.config);
    exp.runs = [{ ...exp.runs[0], label: 'MARS2', estimator: 'mars2' }];
    exp.rollout = { ...exp.rollout, sampling: 'mcts', nodes: 4, batchSize: 2 };
    exp.steps = 1;
    exp.eval.every = 0;
    const inspector = await trainOnce(exp);
    await showRun(inspector, 'MARS2', 'step 0 · 2 trees');
    // What differs weighs this run's rows with GRPO and Dr. MAS, and says they are references here.
    await expect
      .poll(() => lab!.page.getByTestId('what-differs-reference').textContent(), { timeout: 30_000 })
      .toBe(
        'Neither is an estimator a run on screen trains with: both weigh the rows of the MARS2 run, as references.',
      );
    const drawn = inspector.getByRole('figure', { name: 'Search tree' }).locator('li');
    expect(await drawn.count()).toBe(4);
    const turns = inspector.locator('.turn');
    expect(await turns.count()).toBe(4);
    for (let i = 0; i < 4; i++) {
      const li = inspector.locator(`figure.search-tree li[data-node="${i}"]`);
      const parent = Number(await li.getAttribute('data-parent'));
      expect(parent).toBeLessThan(i);
      const agent = await li.getAttribute('data-agent');
      expect(['solver', 'verifier']).toContain(agent);
      // The node list below says the same: its agent and what it refines.
      const head = (await turns.nth(i).locator('.turn-head').textContent())!;
      expect(head).toContain(agent!);
      expect(head).toContain(parent < 0 ? `node ${i} · fresh answer` : `node ${i} · refines node ${parent}`);
      // A child is drawn inside its parent's item.
      if (parent >= 0)
        expect(await inspector.locator(`li[data-node="${parent}"] li[data-node="${i}"]`).count()).toBe(1);
    }

    // The tree and its nodes share the column right of the trajectory table (the nodes were once
    // left in the table's 210 px column, under it); at 400 px both come under the table at its
    // width, and nothing in a turn's head reaches past the window.
    const box = async (sel: string) => (await inspector.locator(sel).first().boundingBox())!;
    const table = await box('table.traj-list');
    for (const sel of ['figure.search-tree', 'ol.turns'])
      expect((await box(sel)).x, `${sel} beside the table`).toBeGreaterThanOrEqual(table.x + table.width);
    await lab!.page.setViewportSize({ width: 400, height: 900 });
    await expect
      .poll(() => lab!.page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 })
      .toBeLessThanOrEqual(400);
    const [narrowTable, narrowTurns] = [await box('table.traj-list'), await box('ol.turns')];
    expect(narrowTurns.y).toBeGreaterThanOrEqual(narrowTable.y + narrowTable.height);
    expect(narrowTurns.width).toBeGreaterThan(300);
    expect(lab!.errors).toEqual([]);
  });
});
