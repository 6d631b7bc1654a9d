/**
 * The lab shell in real headless Chromium (software WebGPU via SwiftShader): backend selection in
 * the run worker, URL round trip, and the message for a malformed link.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { openLab } from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const attempts = (l: Lab) =>
  l.page.$$eval('[data-testid=backend-attempts] li', (lis) =>
    lis.map((li) => ({
      backend: li.getAttribute('data-backend'),
      ok: li.getAttribute('data-ok'),
      text: li.textContent ?? '',
    })),
  );

describe('backend selection in the run worker', () => {
  it('auto skips the software WebGPU adapter untimed, times wasm, reuses that measurement on the next load unless asked to measure again or its version is old', async () => {
    lab = await openLab();
    const { page } = lab;
    const name = page.getByTestId('backend-name');
    await name.waitFor({ timeout: 60_000 });
    expect(await name.textContent()).toBe('wasm');
    const a = await attempts(lab);
    expect(a.map((x) => [x.backend, x.ok])).toEqual([
      ['webgpu', 'false'],
      ['webgl', 'false'],
      ['wasm', 'true'],
    ]);
    expect(a[0].text).toMatch(
      /software adapter .*swiftshader.*isFallbackAdapter: slower than WASM, so auto skips it untimed/i,
    );
    expect(a[1].text).toMatch(/software renderer .*SwiftShader/);
    const fresh =
      /the only backend not skipped that passed the sanity check: \d+ (ms per nano train step \(after a \d+ ms warm-up step\)|ms for its first nano train step, compiles included)/;
    expect(a[2].text).toMatch(fresh);
    expect(a[2].text).toMatch(/\(measured \d{4}-\d\d-\d\d \d\d:\d\d UTC\); max \|Δ\| vs cpu \d/);
    expect(await page.getByTestId('backend-adapter').textContent()).toMatch(
      /google \/ swiftshader \(fallback adapter: software\)/,
    );
    // The panel's figures: one row, wasm's ms per step, chosen.
    const rows = page.locator('[data-testid=backend-timings] tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-backend')).toBe('wasm');
    expect(await rows.first().textContent()).toMatch(/^wasm\d+chosen/);
    expect(await page.getByTestId('backend-timings').locator('caption').textContent()).toMatch(
      /^auto: ms per nano train step \(measured /,
    );
    // The status line names the backend that runs once, with its figure once, not the WebGPU
    // adapter it passed over.
    const chip = page.locator('.backend-chip');
    expect(await chip.textContent()).toMatch(
      /^Running on this computer's CPU \(WebAssembly, \d+ threads?\), test step: \d+ ms$/,
    );
    const kept = await page.evaluate(() =>
      Object.values(JSON.parse(localStorage.getItem('agentwise.backend-measurements') ?? '{}')),
    );
    expect(kept).toEqual([
      expect.objectContaining({ key: 'v1|nano|wasm', choice: 'wasm', preset: 'nano', cached: false }),
    ]);

    // The next load reuses it: same figure, said to be cached.
    const figure = await rows.first().locator('td').first().textContent();
    await page.reload();
    await page.getByTestId('backend-name').waitFor({ timeout: 60_000 });
    expect((await attempts(lab))[2].text).toMatch(/\(cached, measured \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(await rows.first().locator('td').first().textContent()).toBe(figure);
    expect(await chip.textContent()).toMatch(new RegExp(`\\), test step: ${figure} ms$`));

    // "Measure again" forgets it and times wasm afresh.
    await page.getByRole('button', { name: 'Measure again' }).click();
    await page
      .getByTestId('backend-timings')
      .locator('caption')
      .filter({ hasText: /\(measured / })
      .waitFor({ timeout: 60_000 });
    expect((await attempts(lab))[2].text).toMatch(fresh);

    // A measurement of another version (what was timed changed) is not reused.
    await page.evaluate(() => {
      const kept = JSON.parse(localStorage.getItem('agentwise.backend-measurements')!);
      for (const m of Object.values(kept)) (m as { version: number }).version = 0;
      localStorage.setItem('agentwise.backend-measurements', JSON.stringify(kept));
    });
    await page.reload();
    await page.getByTestId('backend-name').waitFor({ timeout: 60_000 });
    expect((await attempts(lab))[2].text).toMatch(fresh);
    expect((await attempts(lab))[2].text).not.toMatch(/cached/);
    expect(lab.errors).toEqual([]);
  });

  it('runs the sanity check on WebGPU when WebGPU is asked for explicitly', async () => {
    lab = await openLab('#v=1&backend=webgpu');
    const name = lab.page.getByTestId('backend-name');
    await name.waitFor({ timeout: 120_000 });
    expect(await name.textContent()).toBe('webgpu');
    const a = await attempts(lab);
    expect(a).toHaveLength(1);
    const diff = Number(/max \|Δ\| vs cpu ([\d.e+-]+)/.exec(a[0].text)?.[1]);
    expect(a[0].text).toMatch(/requested explicitly \(software adapter/);
    expect(diff).toBeLessThan(1e-5);
    expect(lab.errors).toEqual([]);
  });
});

describe('experiment URL', () => {
  it('opens a link, keeps its canonical hash, and follows the config with replaceState', async () => {
    const hash = '#v=1&task=math&runs.1.label=Step&runs.1.estimator=global-step&optim.lr=0.001';
    lab = await openLab(hash);
    const { page } = lab;
    await page.getByTestId('experiment-summary').waitFor();
    expect(await page.locator('dd[data-field=Task]').textContent()).toBe('math');
    expect(await page.getByTestId('runs').textContent()).toMatch(
      /GRPO — estimator GRPO \(grpo\).*Step — estimator Step-level \(global-step\)/,
    );
    expect(await page.locator('dd[data-field=Optimizer]').textContent()).toMatch(/learning rate 0\.001,/);
    expect(await page.evaluate(() => location.hash)).toBe(hash);

    const historyLength = await page.evaluate(() => history.length);
    await page.getByRole('button', { name: 'Synchronous control (identical by theory)' }).click();
    expect(await page.evaluate(() => location.hash)).toBe('#v=1&task=sync');
    expect(await page.evaluate(() => history.length)).toBe(historyLength); // replaceState, no history spam

    await page.reload();
    await page.getByTestId('experiment-summary').waitFor();
    expect(await page.locator('dd[data-field=Task]').textContent()).toBe('sync');
    expect(lab.errors).toEqual([]);
  });

  it('opens the defaults with an alert naming each bad field of a malformed link', async () => {
    lab = await openLab('#v=1&task=chess&optim.lr=abc&colour=red&runs.0.live.179.optim.lr=banana');
    const { page } = lab;
    const alert = page.getByRole('alert').filter({ hasText: 'could not be opened' });
    await alert.waitFor();
    const text = await alert.textContent();
    // Each field by its label, the link's key beside it, what it must be and what the link gave;
    // a key the schema does not know, by itself.
    expect(text).toContain(
      "Task (task) must be one of: search, math, sync, coder-tester, search-roles, plan, search-routing, sync-own, workflow; got 'chess'",
    );
    expect(text).toContain("Learning rate (optim.lr) must be a number; got 'abc'");
    expect(text).toContain("colour is not a field of an experiment; got 'red'");
    // A run's live change by the run, the field and the step.
    expect(text).toContain(
      "GRPO run: Learning rate at step 179 (runs.0.live.179.optim.lr) must be a number; got 'banana'",
    );
    // The key stays in small print beside the label (in the schema's order of fields).
    expect(await alert.locator('.field-name small code').allTextContents()).toEqual([
      'task',
      'runs.0.live.179.optim.lr',
      'optim.lr',
    ]);
    expect(await page.locator('dd[data-field=Task]').textContent()).toBe('search');
    // The address bar holds the experiment opened (the defaults); the alert keeps the bad link.
    const hash = await page.evaluate(() => location.hash);
    expect(hash).toBe(`#${encodeExperiment(decodeExperiment('#v=1').config)}`);
    expect(await page.getByTestId('bad-link').textContent()).toBe(
      '#v=1&task=chess&optim.lr=abc&colour=red&runs.0.live.179.optim.lr=banana',
    );
    // And it goes on following the experiment: a live edit (which leaves the alert up) moves it.
    const lr = page.getByLabel('learning rate', { exact: true });
    await lr.fill('0.002');
    await lr.press('Enter');
    await page.waitForFunction(() => location.hash.includes('optim.lr=0.002'));
    expect(await page.getByTestId('bad-link').textContent()).toBe(
      '#v=1&task=chess&optim.lr=abc&colour=red&runs.0.live.179.optim.lr=banana',
    );
  });

  it("shows the memory estimate, and refuses a config over the wasm limit with the CLI's message", async () => {
    lab = await openLab('#v=1');
    const { page } = lab;
    await page.getByTestId('experiment-summary').waitFor();
    // The README's figure for the defaults (sizing/memory.ts; `lab train` prints the same).
    expect(await page.locator('dd[data-field=Memory]').textContent()).toBe(
      'about 0.80 GB at most (estimate)',
    );
    expect(await page.getByTestId('memory-refused').count()).toBe(0);

    await page.evaluate(
      () => (location.hash = '#v=1&models.preset=base&rollout.batchSize=64&rollout.groupSize=32'),
    );
    await page.locator('dd[data-field=Memory]').filter({ hasText: '179.8 GB' }).waitFor();
    expect(await page.getByTestId('memory-refused').textContent()).toMatch(
      /this experiment needs about 179\.8 GB \(estimate.*over the 4\.0 GB the wasm backend can address/,
    );
    // Train stays off, with the same reason beside it (session-states.test.ts checks it after the backend check).
    await page
      .getByTestId('train-reasons')
      .filter({ hasText: 'this experiment needs about 179.8 GB' })
      .waitFor();
    expect(await page.locator('button.primary').isDisabled()).toBe(true);
    expect(await page.getByTestId('step-counter').count()).toBe(0); // no run was started
  });

  it("opens a link that names plan's old roles under the new names, saying so once", async () => {
    lab = await openLab('#v=1&task=plan&reward.scale.coder=2&optim.perAgent.solver.lr=0.002');
    const { page } = lab;
    const note = page.getByTestId('url-note');
    await note.waitFor();
    expect(await note.textContent()).toBe(
      "This link was written by an earlier build: plan's agents were renamed: read coder → executor, solver → planner.",
    );
    expect(await page.getByTestId('url-alert').count()).toBe(0);
    await page.waitForFunction(() => location.hash.includes('reward.scale.executor=2'));
    const hash = await page.evaluate(() => location.hash);
    expect(hash).toContain('optim.perAgent.planner.lr=0.002');
    expect(hash).not.toMatch(/solver|coder/);
    expect(lab.errors).toEqual([]);
  });

  it('reports an unknown version', async () => {
    lab = await openLab('#v=7&task=math');
    await lab.page.getByRole('alert').filter({ hasText: 'unknown version "7"' }).waitFor();
  });
});
