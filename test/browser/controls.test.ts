/**
 * The lab's view and editing controls in real headless Chromium, on the tiny sync experiment:
 * the Speed select really slows the workers down (and full speed brings them back); side by side
 * gives each run its own column of charts on a shared y scale; the experiment's inline fields and
 * its JSON editor refuse a bad field with a message naming it, and apply good edits (the link
 * follows; a structural edit resets the runs once the user says so, a live one leaves a marker).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ESTIMATOR_CHOICES, ESTIMATOR_OPTIONS, ESTIMATORS } from '../../src/core/estimators';
import { TASKS } from '../../src/tasks/registry';
import { TINY, openLab, runsIn, stepCounts, trainEnabled, waitSteps } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('lab controls', () => {
  it('Speed: a 10 s pause between steps holds the runs, full speed lets them go', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    const speed = page.getByRole('combobox', { name: 'Speed', exact: true });
    expect(await speed.inputValue()).toBe('0');
    // Keyboard operable: focus the select and pick the slowest option with the arrow keys.
    await speed.focus();
    await page.keyboard.press('End');
    expect(await speed.locator('option:checked').textContent()).toBe('10 s between steps');
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    const first = await waitSteps(lab, (s) => s.every((n) => n >= 1));
    expect(first).toEqual([1, 1]);
    // A tiny step takes well under 4 s here at full speed; the runs now wait 10 s after each.
    await page.waitForTimeout(4000);
    expect(await stepCounts(lab)).toEqual([1, 1]);

    await speed.selectOption({ label: 'full speed' });
    // The current 10 s wait ends, then steps follow one another without a pause.
    await waitSteps(lab, (s) => s.every((n) => n >= 4), 60_000);
    expect(lab.errors).toEqual([]);
  });

  it('every control has a name that says what it does, at 1440 and 400 px: the file pickers, and Speed with its label in view', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page);
    for (const width of [1440, 400]) {
      await page.setViewportSize({ width, height: 900 });
      const exportPanel = page.getByRole('region', { name: 'Export' });
      const tools = page.getByRole('region', { name: 'Other tools' });
      // A file input is a button to assistive technology: named for what it opens, not "Choose Files".
      for (const [region, name] of [
        [exportPanel, 'Start from checkpoints: pick .ckpt files'],
        [tools, 'Or pick files to open: a result, event files or W&B CSVs'],
        [tools, 'Or pick a folder of event files (one run per folder)'],
      ] as const)
        expect(await region.getByRole('button', { name, exact: true }).count(), `${width}: ${name}`).toBe(1);
      // No button of either panel goes unnamed.
      for (const region of [exportPanel, tools])
        for (const b of await region.getByRole('button').all())
          expect(
            (
              await b.evaluate((e) => (e as HTMLElement).innerText || e.getAttribute('aria-label') || '')
            ).trim(),
          ).not.toBe('');
      // Speed is named, and its label is read on screen at every width, within the window.
      const speed = page.getByRole('combobox', { name: 'Speed', exact: true });
      expect(await speed.count()).toBe(1);
      const label = page.locator('label[for="speed"]');
      const box = await label.boundingBox();
      expect(box && box.width > 10 && box.x + box.width <= width, `${width}: Speed's label in view`).toBe(
        true,
      );
      const sel = await speed.boundingBox();
      expect(sel && sel.x + sel.width <= width, `${width}: Speed within the window`).toBe(true);
    }
    expect(lab.errors).toEqual([]);
  });

  it('Side by side: one column of charts per run, one y scale per row', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n) => n >= 3));
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await runsIn(lab, 'paused');
    const colors = await page.$$eval('.legend [data-run-color]', (bs) =>
      bs.map((b) => b.getAttribute('data-run-color')!),
    );
    expect(colors).toHaveLength(2);
    await page.locator('figure[aria-label="Reward"]').waitFor();

    const side = page.getByRole('radio', { name: 'Side by side' });
    await side.check();
    expect(await page.getByRole('radio', { name: 'Overlaid' }).isChecked()).toBe(false);
    expect(await page.locator('figure[aria-label="Reward"]').count()).toBe(0);
    const strokes = async (chart: string) => {
      const lines = page.locator(`figure[aria-label="${chart}"] .series`);
      await lines.first().waitFor({ timeout: 30_000 });
      return lines.evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
    };
    for (const [i, run] of ['GRPO', 'Dr. MAS'].entries()) {
      // Only this run's colour; per agent, a line per agent (smoothed over a faint raw one).
      expect(new Set(await strokes(`Reward — ${run}`))).toEqual(new Set([colors[i]]));
      const mu = await strokes(`μk · reward mean — ${run}`);
      expect(new Set(mu)).toEqual(new Set([colors[i]]));
      expect(mu.length).toBeGreaterThanOrEqual(4);
    }
    // Every row's columns share one y axis (the charts mounted after the last frame, so all are current).
    const rows = () =>
      page.$$eval('.grid.side', (gs) =>
        gs.map((g) =>
          [...g.querySelectorAll('figure')].map((f) =>
            [...f.querySelectorAll('.recharts-yAxis-tick-labels text')].map((t) => t.textContent).join(' '),
          ),
        ),
      );
    // ResponsiveContainer draws after measuring: compare the rows whose columns have all drawn.
    const drawn = async () => (await rows()).filter((c) => c.every((t) => t !== ''));
    await expect.poll(async () => (await drawn()).length, { timeout: 30_000 }).toBeGreaterThan(8);
    for (const columns of await drawn()) expect(columns).toEqual([columns[0], columns[0]]);

    // Back to overlaid: one chart with both runs.
    await page.getByRole('radio', { name: 'Overlaid' }).check();
    expect(new Set(await strokes('Reward'))).toEqual(new Set(colors));
    expect(lab.errors).toEqual([]);
  });

  it('Experiment fields and JSON: bad fields named and refused, good edits applied', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    const hash = () => page.evaluate(() => location.hash);
    const start = await hash();

    // Inline: G below the schema's minimum is refused in place; a good G goes to the link.
    const g = page.getByLabel('Group size G');
    expect(await g.getAttribute('min')).toBe('2');
    expect(await g.getAttribute('max')).toBe('32');
    await g.fill('1');
    await g.press('Enter');
    const gError = page.getByRole('alert').filter({ hasText: 'must be at least 2' });
    await gError.waitFor();
    expect(await g.getAttribute('aria-invalid')).toBe('true');
    expect(await g.getAttribute('aria-describedby')).toBe(await gError.getAttribute('id'));
    expect(await hash()).toBe(start);
    await g.fill('4');
    await g.press('Enter');
    await expect.poll(hash).toContain('rollout.groupSize=4');
    expect(await gError.count()).toBe(0);
    // Choices come from the schema's registries: each shows its registry label, keeps the config's
    // name as its value (what the link holds) and has its registry doc as tooltip.
    const estimator = page.getByLabel('Dr. MAS run: Estimator');
    const options = await estimator
      .locator('option')
      .evaluateAll((os) =>
        os.map((o) => [o.textContent, (o as HTMLOptionElement).value, o.getAttribute('title')]),
      );
    expect(options).toEqual(
      ESTIMATOR_CHOICES.map((e) => [ESTIMATOR_OPTIONS[e].label, e, ESTIMATOR_OPTIONS[e].doc]),
    );
    expect(options.map(([label]) => label)).toEqual([
      'GRPO',
      'Dr. MAS',
      'AT-GRPO',
      'Step-level',
      'MAGRPO',
      'MARS2',
      'custom',
    ]);
    expect(await estimator.getAttribute('title')).toContain(ESTIMATORS.drmas.doc);
    expect(
      await page.getByLabel('Task', { exact: true }).locator('option[value="plan"]').getAttribute('title'),
    ).toBe(TASKS.plan.doc);
    await estimator.selectOption({ label: 'MAGRPO' });
    await expect.poll(hash).toContain('runs.1.estimator=magrpo');
    // The run was called by its estimator, so its label follows (docs/links.md#run-labels): the
    // legend, the runs list and the menu's own label say MAGRPO, and the link needs no label.
    expect(await hash()).not.toContain('runs.1.label');
    expect(await page.getByTestId('runs').textContent()).toContain('MAGRPO — estimator MAGRPO (magrpo)');
    await page.getByLabel('MAGRPO run: Estimator').selectOption('drmas');
    await expect.poll(hash).not.toContain('runs.1'); // the default run again, label and all
    expect(await page.getByTestId('runs').textContent()).toContain('Dr. MAS — estimator Dr. MAS (drmas)');

    // Train, so edits meet live runs.
    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await waitSteps(lab, (s) => s.every((n) => n >= 1));

    // JSON: a bad value and an unknown key are both named; nothing changes.
    await page.getByText('Edit JSON').click();
    const json = page.getByLabel('Experiment JSON');
    const config = JSON.parse(await json.inputValue());
    expect(config.rollout.groupSize).toBe(4);
    const before = await hash();
    await json.fill(
      JSON.stringify({ ...config, rollout: { ...config.rollout, groupSize: 1 }, foo: 1 }, null, 2),
    );
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    const jsonError = page.locator('#exp-json-errors[role="alert"]');
    await jsonError.waitFor();
    // A JSON edit has no link text to quote back: the sentence ends at what the field must be.
    expect(await jsonError.textContent()).toContain('Group size G (rollout.groupSize) must be at least 2');
    expect(await jsonError.textContent()).toContain('foo is not a field of an experiment');
    expect(await jsonError.textContent()).not.toContain('got');
    expect(await json.getAttribute('aria-describedby')).toBe('exp-json-errors');
    expect(await hash()).toBe(before);
    expect((await stepCounts(lab)).every((n) => n >= 1)).toBe(true);
    await json.fill('{ "steps": ');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    expect(await jsonError.textContent()).toContain('(JSON)');

    // A live field edited as JSON applies in place: no reset, a marker on the charts.
    await json.fill(JSON.stringify({ ...config, optim: { ...config.optim, lr: 0.002 } }));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect.poll(hash).toContain('optim.lr=0.002');
    expect(await jsonError.count()).toBe(0);
    await page
      .locator('figure.chart .recharts-label', { hasText: 'lr=0.002' })
      .first()
      .waitFor({ state: 'attached', timeout: 30_000 });
    expect((await stepCounts(lab)).every((n) => n >= 1)).toBe(true);

    // The runs took the live edit at their next step: the schedule says so; the starting value stays.
    // Each run takes it at its own next step (the marker above is the first run's), so wait for both.
    const liveOf = async () =>
      (JSON.parse(await json.inputValue()).runs as { live: object }[]).map((r) => Object.values(r.live));
    await expect
      .poll(liveOf, { timeout: 30_000 })
      .toEqual([[{ optim: { lr: 0.002 } }], [{ optim: { lr: 0.002 } }]]);
    const now = JSON.parse(await json.inputValue());
    expect(now.optim.lr).toBe(config.optim.lr);
    // A structural edit applies through the same path, once the user chooses a new session: the
    // link follows and the runs reset.
    await json.fill(JSON.stringify({ ...now, steps: 77 }, null, 2));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('button', { name: 'Start a new session' }).click();
    await expect.poll(hash).toContain('steps=77');
    await page.getByText('No runs yet').waitFor();
    expect(await page.locator('dd[data-field="Steps · seed"]').textContent()).toContain('77 steps');
    expect(await page.getByRole('spinbutton', { name: 'Steps', exact: true }).inputValue()).toBe('77');
    expect(lab.errors).toEqual([]);
  });
});
