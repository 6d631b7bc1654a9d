/**
 * The first screen's story in real headless Chromium: the question in a short lead, three starter
 * presets one line each on the first screen at 1440 and 400 px, the rest folded under More
 * experiments by question, no Map before a sweep is asked for (a picked preset's line says what to
 * look for), and after real training the "What differs" card's
 * numbers are the ones the run's own exported same-batch metrics give, computed here by plain
 * arithmetic; on sync it says the estimators are identical. With SHOTS=1 it also
 * writes the screenshots under docs/img/ (docs/page.md#first-screen-and-what-differs).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PRESET_QUESTIONS, PRESETS, STARTER_IDS, presetById, presetLine } from '../../src/core/presets';
import { encodeExperiment } from '../../src/core/url';
import { downloadCsv, openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';
import type { Page } from 'playwright-core';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const SHOTS = process.env.SHOTS === '1';
const shot = async (l: Lab, name: string, width: number, selector?: string) => {
  if (!SHOTS) return;
  const path = `docs/img/${name}-${width}.png`;
  if (!selector) return l.page.screenshot({ path });
  // A card taller than the window is shot in parts scrolled under the sticky bars: unstick them
  // (through the CSSOM: the page's CSP refuses an added style sheet).
  const stick = (position: string) =>
    l.page.evaluate((p) => {
      document.querySelector<HTMLElement>('.top-bars')!.style.position = p;
    }, position);
  await stick('static');
  await l.page.locator(selector).screenshot({ path });
  await stick('');
};

/** The elements under `selector` that reach past the window's right edge (a horizontal scroll). */
const pastTheWindow = (l: Lab, selector: string) =>
  l.page.$$eval(`${selector}, ${selector} *`, (els) =>
    els
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((e) => `${e.tagName}.${e.className}`),
  );

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The GRPO run's exported metrics (Download CSV): how many steps, and one metric's column over them. */
async function grpoColumns(page: Page) {
  const { header, rows: lines } = await downloadCsv(page);
  const grpo = lines
    .filter((l) => l[0] === 'GRPO')
    .map((l) => Object.fromEntries(header.map((k, i) => [k, Number(l[i])])));
  return { steps: grpo.length, col: (k: string) => grpo.map((r) => r[k]) };
}
describe('the first screen tells the story', () => {
  it('states the question in a short lead, three starters one line each, the rest folded by question, no empty Map', async () => {
    lab = await openLab();
    const { page } = lab;
    const presets = page.getByRole('group', { name: 'Presets' });
    const starters = presets.getByRole('list', { name: 'Start with one of these' });
    const more = presets.locator('details.more-presets');
    for (const width of [1440, 400]) {
      await page.setViewportSize({ width, height: 900 });
      const intro = page.getByTestId('intro');
      await expect
        .poll(() => intro.getByRole('heading').textContent())
        .toBe('Does normalizing advantages per agent change how a multi-agent system learns?');
      // The lead defines row, G and advantage where they first appear; the mechanism waits, folded.
      const lead = intro.getByTestId('intro-lead');
      expect(await lead.isVisible()).toBe(true);
      expect(await lead.locator('dfn').allTextContents()).toEqual(['row', 'G', 'advantage']);
      expect(await intro.locator('details').getAttribute('open')).toBe(null);
      expect(await intro.textContent()).toContain(
        'scores a whole trajectory as the mean of its rows’ rewards',
      );
      // The three starters and the Train button are on the first screen, at both widths.
      const fold = await page.evaluate(() => innerHeight);
      for (const id of STARTER_IDS) {
        const box = await starters.locator(`li[data-preset="${id}"]`).boundingBox();
        expect(box!.y + box!.height, `${id} at ${width} px`).toBeLessThanOrEqual(fold);
      }
      expect(await page.getByRole('button', { name: 'Train', exact: true }).isVisible()).toBe(true);
      // The header's controls are not this test's: the question and the presets fit the window.
      expect(await pastTheWindow(lab, '[data-testid="intro"]')).toEqual([]);
      expect(await pastTheWindow(lab, '.preset-picker')).toEqual([]);
      // No Map before a sweep exists or is asked for.
      expect(await page.getByTestId('sweep-map').count()).toBe(0);
      // The first screen as a user reads it once the backend check is done (Train on).
      if (SHOTS) await trainEnabled(page);
      await shot(lab, 'first-screen', width);
    }
    // Starters first, one line each (what it tests); the rest folded, grouped by the question they answer.
    expect(
      await starters.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-preset'))),
    ).toEqual([...STARTER_IDS]);
    expect(await more.getAttribute('open')).toBe(null);
    expect(await more.locator('summary').textContent()).toBe(
      `More experiments (${PRESETS.length - STARTER_IDS.length}), by the question they answer`,
    );
    await more.locator('summary').click();
    expect(await more.locator('h4').allTextContents()).toEqual(PRESET_QUESTIONS.map((q) => q.question));
    const pressed = () => presets.locator('button[aria-pressed="true"]').allTextContents();
    for (const p of PRESETS) {
      const line = presets.locator(`li[data-preset="${p.id}"] .preset-look`);
      const { tests, lookFor } = presetLine(p);
      // What it tests on screen; what to look for once picked (the default experiment is picked on load).
      expect(await line.textContent(), p.id).toBe(p.id === PRESETS[0].id ? `${tests} ${lookFor}` : tests);
      expect(await line.isVisible(), p.id).toBe(true);
      // One name: the button says the preset's title, as exports and lab presets do, then its id, the
      // one `lab presets` lists and `--preset` takes (a task's name in a title read as another's id).
      const button = presets.locator(`li[data-preset="${p.id}"] button`);
      expect(await button.textContent(), p.id).toBe(`${p.title} ${p.id}`);
      expect(await button.locator('code.preset-id').textContent(), p.id).toBe(p.id);
    }
    const named = (p: { title: string; id: string }) => `${p.title} ${p.id}`;
    expect(await pressed()).toEqual([named(PRESETS[0])]);
    const sync = presetById('sync')!;
    await presets.getByRole('button', { name: sync.title }).click();
    await expect.poll(pressed).toEqual([named(sync)]);
    const line = presets.locator('li[data-preset="sync"] .preset-look');
    expect(await line.textContent()).toBe(sync.lookFor);
    // Its line describes the picked button (screen readers read it with the button).
    expect(await presets.getByRole('button', { name: sync.title }).getAttribute('aria-describedby')).toBe(
      await line.getAttribute('id'),
    );
    expect(await page.evaluate(() => location.hash)).toBe(`#${encodeExperiment(sync.config)}`);
    // One under More experiments, picked: its group stays open, its button pressed.
    const clip = presetById('grad-clip')!;
    await presets.getByRole('button', { name: clip.title }).click();
    await expect.poll(pressed).toEqual([named(clip)]);
    expect(await page.evaluate(() => location.hash)).toBe(`#${encodeExperiment(clip.config)}`);

    // The Map comes when asked for (Other tools), with its folder picker.
    await page.getByTestId('ask-map').click();
    await page.getByTestId('sweep-map').getByTestId('open-sweep').waitFor({ state: 'attached' });
    expect(lab.errors).toEqual([]);
  });

  it('a link to a preset under More experiments opens that group with it pressed', async () => {
    const liteppo = presetById('liteppo')!;
    lab = await openLab(`#${encodeExperiment(liteppo.config)}`);
    const presets = lab.page.getByRole('group', { name: 'Presets' });
    await expect
      .poll(() => presets.locator('button[aria-pressed="true"]').allTextContents())
      .toEqual([`${liteppo.title} ${liteppo.id}`]);
    expect(await presets.locator('details.more-presets').getAttribute('open')).toBe('');
    expect(await presets.getByRole('button', { name: liteppo.title }).isVisible()).toBe(true);
    expect(lab.errors).toEqual([]);
  });

  it('What differs: after real training of the default experiment, per agent, the numbers of the run’s own same-batch metrics', async () => {
    // The default experiment (GRPO and Dr. MAS on search), 20 steps, no held-out eval (it does not change training).
    lab = await openLab('#v=1&steps=20&eval.every=0');
    const { page } = lab;
    await trainEnabled(page);
    expect(await page.getByTestId('what-differs').count()).toBe(0); // nothing to say before Train
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 170_000);
    const card = page.getByTestId('what-differs');
    await expect
      .poll(() => card.getByTestId('what-differs-summary').textContent(), { timeout: 10_000 })
      .toMatch(/^On the GRPO run’s last 20 batches \(steps 0–19\), both estimators weighed the same rows/);
    expect(await card.getByTestId('what-differs-reference').count()).toBe(0); // a GRPO run: no reference note

    // The page's own exported metrics, the GRPO run's 20 steps, by plain arithmetic.
    const { steps, col } = await grpoColumns(page);
    expect(steps).toBe(20);
    const agents = ['verifier', 'search', 'answer'];
    expect(
      await card.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-agent'))),
    ).toEqual(agents);
    // Amplification only where it is GRPO's E[A²] for the agent: where every row carries its
    // trajectory's reward; where that holds for no agent, the lead says so once.
    const shares = agents.map((a) => avg(col(`agent/${a}/traj_reward_share`)));
    const noneCarry = shares.every((c) => c < 1);
    expect(await card.getByTestId('what-differs-summary').textContent()).toBe(
      'On the GRPO run’s last 20 batches (steps 0–19), both estimators weighed the same rows.' +
        (noneCarry
          ? ` Amplification applies to none of its agents: it needs every row of an agent to carry its trajectory’s reward, and at most ${Math.round(100 * Math.max(...shares))} % do; GRPO weighs each row by its trajectory’s score, not by the row’s own reward.`
          : ''),
    );
    expect(await card.getByTestId('what-differs-runs').count()).toBe(0); // two runs: nothing more to say
    for (const a of agents) {
      const scale = Math.sqrt(
        avg(col(`agent/${a}/shadow/drmas/sq_mean`)) / avg(col(`agent/${a}/shadow/grpo/sq_mean`)),
      );
      const corr = avg(col(`agent/${a}/shadow/drmas/corr`));
      const amplification = avg(col(`agent/${a}/amplification`).filter(Number.isFinite));
      const carried = avg(col(`agent/${a}/traj_reward_share`));
      const li = card.locator(`li[data-agent="${a}"]`);
      const text = await li.textContent();
      expect(text).toContain(`Dr. MAS gives the ${a} agent ${scale.toFixed(2)}× GRPO’s advantage scale`);
      expect(text).toContain(`(correlation ${corr.toFixed(2)})`);
      if (noneCarry) expect(text).not.toContain('mplification');
      else
        expect(text).toContain(
          carried === 1
            ? `Its amplification is ${amplification.toFixed(2)}, `
            : `Amplification does not apply to it: only ${Math.round(carried * 100)} % of its rows`,
        );
      // Its paired bars: each estimator's root mean square advantage.
      const rms = (e: string) => Math.sqrt(avg(col(`agent/${a}/shadow/${e}/sq_mean`))).toFixed(3);
      expect(await li.getByRole('img').getAttribute('aria-label')).toBe(
        `Advantage scale: GRPO ${rms('grpo')}, Dr. MAS ${rms('drmas')}`,
      );
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await shot(lab, 'what-differs', 1440, '[data-testid="what-differs"]');
    await page.setViewportSize({ width: 400, height: 900 });
    expect(await pastTheWindow(lab, '[data-testid="what-differs"]')).toEqual([]);
    await shot(lab, 'what-differs', 400, '[data-testid="what-differs"]');
    expect(lab.errors).toEqual([]);
  });

  it('What differs on sync: says the two estimators are identical, and why', async () => {
    // Groups of 4 rollouts, so some do not tie (a tied group's advantages are all 0).
    lab = await openLab('#v=1&task=sync&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&steps=3');
    const { page } = lab;
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 170_000);
    await expect
      .poll(() => page.getByTestId('what-differs-summary').textContent(), { timeout: 10_000 })
      .toBe(
        'On the GRPO run’s last 3 batches (steps 0–2), GRPO and Dr. MAS give every row exactly the same advantage. ' +
          'Every agent acted once in every trajectory, on the trajectory’s shared reward, so each agent’s rows carry ' +
          'exactly the trajectory scores: both estimators normalize the same numbers by the same mean and standard deviation.',
      );
    for (const li of await page.getByTestId('what-differs').locator('li').allTextContents())
      expect(li).toMatch(
        /Dr\. MAS gives the \w+ agent 1\.00× GRPO’s advantage scale, and the two agree almost exactly on its rows \(correlation 1\.00\)/,
      );
    // One seed per run: Findings says why it has no verdicts, and how to get them.
    expect(await page.getByTestId('findings-status').textContent()).toMatch(
      /^One seed per run: .* Set Seeds to 3 or more \(Experiment\) and train again/,
    );
    expect(await page.getByTestId('findings').locator('table').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('What differs with a third run: its estimator weighed on the same rows, a bar and a number per agent', async () => {
    // GRPO, Dr. MAS and Step-level (a run named by its estimator) on sync-own, each agent on its own reward.
    lab = await openLab(
      '#v=1&task=sync-own&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&steps=3&runs.2.estimator=global-step',
    );
    const { page } = lab;
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 170_000);
    const card = page.getByTestId('what-differs');
    await expect
      .poll(() => card.getByTestId('what-differs-summary').textContent(), { timeout: 10_000 })
      .toMatch(
        /^On the GRPO run’s last 3 batches \(steps 0–2\), GRPO, Dr\. MAS and Step-level weighed the same rows\./,
      );
    expect(await card.getByRole('heading').first().textContent()).toBe(
      'What differs: GRPO, Dr. MAS and Step-level on the same batches',
    );
    expect(await card.getByTestId('what-differs-runs').textContent()).toBe(
      'Each agent’s line also gives Step-level’s advantage scale in GRPO’s units.',
    );
    // The numbers: the GRPO run's own same-batch metrics, exported, by plain arithmetic.
    const { col } = await grpoColumns(page);
    for (const a of ['alice', 'bob']) {
      const sq = (e: string) => avg(col(`agent/${a}/shadow/${e}/sq_mean`));
      const li = card.locator(`li[data-agent="${a}"]`);
      expect(await li.textContent()).toContain(
        `Step-level gives it ${Math.sqrt(sq('global-step') / sq('grpo')).toFixed(2)}× GRPO’s advantage scale and agrees`,
      );
      const rms = (e: string) => Math.sqrt(sq(e)).toFixed(3);
      expect(await li.getByRole('img').getAttribute('aria-label')).toBe(
        `Advantage scale: GRPO ${rms('grpo')}, Dr. MAS ${rms('drmas')}, Step-level ${rms('global-step')}`,
      );
    }
    expect(lab.errors).toEqual([]);
  });

  it('What differs on the agents-own preset: what the agents map measured, above what this run shows of its six agents', async () => {
    const preset = presetById('agents-own')!;
    lab = await openLab(`#${encodeExperiment(preset.config)}`);
    const { page } = lab;
    // A family's agents have no shipped base models: Train waits for them, and says where to get them.
    await page.getByRole('button', { name: 'Prepare base models', exact: true }).first().click();
    await trainEnabled(page, 420_000);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid="step-counter"]')].every(
          (e) => Number(e.textContent) >= 2,
        ),
      undefined,
      { timeout: 240_000 },
    );
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await runsIn(lab, 'paused', 120_000);
    const card = page.getByTestId('what-differs');
    await expect
      .poll(() => card.getByTestId('what-differs-story').textContent(), { timeout: 10_000 })
      .toBe(preset.story);
    expect(preset.story).toMatch(
      /N = 6, own rewards: held-out success 0\.168 under Dr\. MAS against 0\.093 under GRPO/,
    );
    // The family's six agents, each with its sentence, under the story.
    expect(
      await card.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-agent'))),
    ).toEqual(['ann', 'ben', 'cal', 'dee', 'eve', 'fay']);
    await page.setViewportSize({ width: 1440, height: 900 });
    await shot(lab, 'what-differs-agents', 1440, '[data-testid="what-differs"]');
    await page.setViewportSize({ width: 400, height: 900 });
    expect(await pastTheWindow(lab, '[data-testid="what-differs"]')).toEqual([]);
    await shot(lab, 'what-differs-agents', 400, '[data-testid="what-differs"]');
    expect(lab.errors).toEqual([]);
  }, 900_000);

  it('Findings leads with the verdicts, rows in words, and needs no horizontal scroll at 1280 px', async () => {
    // The three-run preset (GRPO, Step-level, Dr. MAS) over 2 seeds, shrunk to 2 tiny steps.
    const exp = structuredClone(presetById('step-vs-agent')!.config);
    Object.assign(exp, { task: 'sync', seeds: 2, steps: 2 });
    Object.assign(exp.rollout, { batchSize: 1, groupSize: 2 });
    exp.eval.every = 0;
    lab = await openLab(`#${encodeExperiment(exp)}`);
    const { page } = lab;
    await page.setViewportSize({ width: 1280, height: 900 });
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 240_000);
    const findings = page.getByTestId('findings');
    await expect
      .poll(() => page.getByTestId('findings-status').textContent(), { timeout: 10_000 })
      .toMatch(/^All 6 repeats \(3 runs × 2 seeds\) done/);
    const heads = await findings.locator('thead th').allTextContents();
    expect(heads.slice(0, 3)).toEqual(['figure', 'verdict: Step-level vs GRPO', 'verdict: Dr. MAS vs GRPO']);
    const names = await findings.locator('tbody th').allTextContents();
    expect(names).toContain('alice: gradient norm, median over steps');
    expect(names).toContain('alice: spike fraction: steps above 3× the running median');
    const scroll = await findings
      .locator('.findings-scroll')
      .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(scroll.scroll).toBeLessThanOrEqual(scroll.client);
    expect(lab.errors).toEqual([]);
  });
  // Only with SHOTS=1 (it trains 60 steps to draw them): the README's picture of the whole lab, and
  // docs/charts.md's of the per-agent charts with the amplification chart's help open.
  it.runIf(SHOTS)(
    'the README’s and docs/charts.md’s pictures, after 60 steps of the default experiment',
    async () => {
      lab = await openLab('#v=1&steps=60&eval.every=10');
      const { page } = lab;
      await page.setViewportSize({ width: 1440, height: 900 });
      await trainEnabled(page);
      await page.getByRole('button', { name: 'Train', exact: true }).click();
      await runsIn(lab, 'done', 600_000);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(lab, 'lab', 1440);
      const help = page.getByRole('button', { name: 'What is Amplification?' });
      await help.scrollIntoViewIfNeeded();
      await page.evaluate(() => window.scrollBy(0, 250)); // the help's popover and text below the chart
      await help.click();
      // Charts draw once scrolled into view: wait until none in the window says "drawing…".
      const pending = () =>
        page.$$eval(
          '.chart-empty',
          (els) =>
            els.filter((e) => {
              const r = e.getBoundingClientRect();
              return e.textContent === 'drawing…' && r.bottom > 0 && r.top < window.innerHeight;
            }).length,
        );
      await expect.poll(pending, { timeout: 30_000 }).toBe(0);
      await shot(lab, 'charts', 1440);
      expect(lab.errors).toEqual([]);
    },
  );
});
