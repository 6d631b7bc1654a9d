/**
 * A result file made by the page opens in another browser as the session ran
 * (docs/sharing.md#opening-one-in-the-page): two runs × two seeds with a live change train a few
 * steps, Share result downloads the file (saying its name and how to share it), and a fresh profile opens it through Other tools. The
 * runs come back with the same labels, seeds, agents, markers and every value (the opened page's
 * Download JSON against the trained page's), under a banner naming where and when it ran, which
 * claims no more about where it trained (another browser's session: the page cannot know), while
 * the browser that trained it, opening it, says it trained here and in which session; Train is off with its reason, the live and experiment fields are
 * off, nothing is stored. A damaged file is refused with a message, in the alert and beside the drop zone, and
 * leaves what is on screen. A result `lab bundle` made of a train folder opens with lab report's
 * Findings; one of a sweep folder fills the Map with its cells, and its embed link's view=map
 * shows the Map alone.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { comparisonCsv, comparisonTable } from '../../src/report/findings';
import { readResult } from '../../src/report/result-file';
import { utcText } from '../../src/ui/opened-words';
import { cli, tinyScaleSweep } from '../cli/map-sweep';
import { TINY, downloads, dropLoose, openLab, runsIn, storedSessions, trainEnabled } from './harness';
import type { Lab } from './harness';
import { serveStatic } from './static-server';

const labs: Lab[] = [];
afterEach(async () => {
  for (const l of labs.splice(0)) await l.close();
});

const text = async (l: Lab, testId: string) => (await l.page.getByTestId(testId).textContent()) ?? '';

/** The Download JSON of a page: its runs' cards and rows, without the page's own link. */
async function shownRuns(l: Lab): Promise<unknown> {
  const [path] = Object.values(await downloads(l, 'Download JSON', 1));
  const { runs } = JSON.parse(readFileSync(path, 'utf8')) as { runs: unknown };
  return runs;
}

describe('a shared result opens read-only in another browser', () => {
  it('Share result, then open it in a fresh page: the same runs, seeds, agents and values, and the banner', async () => {
    const trained = await openLab(`${TINY}&seed=5&seeds=2&steps=3&runs.1.live.1.optim.lr=0.002`);
    labs.push(trained);
    await trainEnabled(trained.page, 120_000);
    await trained.page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(trained, 'done', 180_000);
    const runs = await shownRuns(trained);
    const [[saved, path]] = Object.entries(await downloads(trained, 'Share result', 1));
    // Not silent: beside the button, the file's name and how to share it.
    expect(saved).toMatch(/^agentwise-result-.*\.lab\.json\.gz$/);
    await expect
      .poll(() => text(trained, 'share-saved'))
      .toBe(
        `Saved ${saved}: send the file (it opens dropped on Other tools), or host it and share an #open= link; docs/sharing.md says how.`,
      );
    const { body, sha256 } = readResult(readFileSync(path));
    expect(body.made.by).toBe('page');
    // Made from the session recorded here, by its start and id, so this browser knows it again.
    // (the machine's date is when that session began).
    const [own] = await storedSessions(trained);
    expect(body.made.from).toBe(`the session of ${body.machines[0].date} (${own.id})`);
    expect(body.runs.map((r) => [r.label, r.seed, r.frames.length])).toEqual([
      ['GRPO #0', 5, 3],
      ['GRPO #1', 6, 3],
      ['Dr. MAS #0', 5, 3],
      ['Dr. MAS #1', 6, 3],
    ]);
    expect(body.experiments[0].experiment?.runs[1].live).toEqual({ 1: { optim: { lr: 0.002 } } });
    expect(body.experiments[0].findings.runs).toEqual(['GRPO', 'Dr. MAS']);
    // Each run's latest rollouts, as the inspector was sent them.
    expect(body.runs.map((r) => r.rollouts.map((x) => x.step))).toEqual([[2], [2], [2], [2]]);

    const fresh = await openLab();
    labs.push(fresh);
    await trainEnabled(fresh.page, 120_000);
    // A damaged copy first: refused by name, nothing on screen changes.
    const damaged = `${path}.damaged.lab.json.gz`;
    const bytes = readFileSync(path);
    writeFileSync(damaged, bytes.subarray(0, bytes.length >> 1));
    await dropLoose(fresh, { 'cut.lab.json.gz': damaged });
    await expect.poll(() => text(fresh, 'session-alert')).toContain('cut.lab.json.gz: not opened: its ');
    // Said beside the drop zone too (the alert is at the top, far from Other tools), which names result files.
    expect(await text(fresh, 'import-notes')).toContain('cut.lab.json.gz: not opened: its ');
    expect(await text(fresh, 'drop-zone')).toContain('Drop a result file (*.lab.json.gz');
    expect(await fresh.page.getByTestId('opened-banner').count()).toBe(0);

    await dropLoose(fresh, { 'shared.lab.json.gz': path });
    await expect.poll(() => text(fresh, 'opened-banner')).toContain('shared.lab.json.gz: trained on');
    const banner = await text(fresh, 'opened-banner');
    // Its date and time readable, in UTC, not the stored ISO text.
    const { date } = body.machines[0];
    for (const said of [utcText(date), sha256.slice(0, 16), 'Opened read-only: Reset clears it.'])
      expect(banner).toContain(said);
    // Another browser's session: it claims neither that it trained here nor that it did not.
    for (const unsaid of ['Trained here', 'not trained here']) expect(banner).not.toContain(unsaid);
    expect(banner).toContain(`Made by the page from the session of ${utcText(date)} on `);
    expect(utcText(date)).toMatch(/^\d{1,2}\u00a0[A-Z][a-z]{2}\u00a0\d{4}, \d\d:\d\d\u00a0UTC$/);
    expect(banner).not.toContain(date);
    const status = fresh.page.locator('.run-status');
    await expect.poll(() => status.count()).toBe(4);
    expect(await status.evaluateAll((els) => els.map((e) => e.getAttribute('data-run')))).toEqual([
      'GRPO #0',
      'GRPO #1',
      'Dr. MAS #0',
      'Dr. MAS #1',
    ]);
    // Every value, seed, agent and marker as the trained page holds them.
    expect(await shownRuns(fresh)).toEqual(runs);
    // The rollout inspector shows the file's sample.
    const inspector = fresh.page.locator('.inspector');
    await inspector.getByRole('tab', { name: 'Dr. MAS #1', exact: true }).click();
    await expect
      .poll(() => inspector.locator('.inspector-head .muted').textContent())
      .toMatch(/^step 2 · 2 trajectories/);
    // Nothing writable: Train and Step off with the reason; the live fields off.
    expect(await text(fresh, 'train-reasons')).toContain(
      'shared.lab.json.gz is a result opened read-only (Train it here',
    );
    for (const name of ['Train', 'Step'])
      expect(await fresh.page.getByRole('button', { name, exact: true }).isDisabled(), name).toBe(true);
    // Done elsewhere: no Run again or Continue (a finished session's), and each run says opened, not done.
    expect(await fresh.page.getByRole('button', { name: 'Run again', exact: true }).count()).toBe(0);
    expect(
      new Set(await fresh.page.locator('.run-status .state').allTextContents()),
      'every opened run',
    ).toEqual(new Set(['opened']));
    const live = fresh.page.locator('.live-field input');
    expect(await live.evaluateAll((els) => els.every((e) => (e as HTMLInputElement).disabled))).toBe(true);
    // The experiment's fields, presets and JSON too, saying why and what to do instead.
    const fields = fresh.page.locator(
      'section[aria-labelledby="experiment-title"] :is(.exp-field input, .exp-field select, .presets button)',
    );
    expect(await fields.count()).toBeGreaterThan(5);
    expect(
      await fields.evaluateAll((els) =>
        els.filter((e) => !(e as HTMLInputElement).disabled).map((e) => e.outerHTML),
      ),
    ).toEqual([]);
    expect(await fresh.page.locator('#exp-json').getAttribute('readonly')).not.toBeNull();
    expect(await text(fresh, 'experiment-opened')).toContain('Train it here (in its banner) trains them');
    // Findings compares the opened runs: the same runs the file's Findings name.
    expect(await fresh.page.locator('#findings-title').count()).toBe(1);
    // Nothing recorded: it did not run here.
    expect(await storedSessions(fresh)).toEqual([]);
    expect(fresh.errors).toEqual([]);

    // Opened in the browser that trained it: its session is stored here, and the banner says so.
    await dropLoose(trained, { 'mine.lab.json.gz': path });
    await expect.poll(() => text(trained, 'opened-banner')).toContain('mine.lab.json.gz: trained on');
    const mine = await text(trained, 'opened-banner');
    expect(mine).toContain(`Trained here, in the session of ${utcText(date)}.`);
    expect(mine).not.toContain('not trained here');
    expect(trained.errors).toEqual([]);
  });

  /** `lab bundle DIR`: the file's path and what it holds. */
  const bundle = (dir: string) => {
    const out = join(dir, '..', 'shared.lab.json.gz');
    const r = cli(['bundle', dir, '--out', out, '--force']);
    expect(r.status, r.stderr).toBe(0);
    return { path: out, ...readResult(readFileSync(out)) };
  };

  it('a result lab bundle made of a train folder opens with the Findings lab report prints, and its rollouts', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentwise-result-')), 'run');
    const link =
      'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=2&eval.questions=2&eval.k=2&seeds=2';
    const trained = cli(['train', '--config', link, '--steps', '3', '--out', dir, '--quiet']);
    expect(trained.status, trained.stderr).toBe(0);
    const { path, body } = bundle(dir);
    const report = cli(['report', dir]);
    expect(report.stdout).toContain(comparisonTable(body.experiments[0].findings));

    const l = await openLab();
    labs.push(l);
    await trainEnabled(l.page, 120_000);
    await dropLoose(l, { 'shared.lab.json.gz': path });
    await expect.poll(() => text(l, 'opened-banner')).toContain('Made by lab bundle from run');
    // The commit by its first 7 hex digits, the whole one on hover.
    const { commit } = body.machines[0];
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(await text(l, 'opened-banner')).toContain(`commit ${commit!.slice(0, 7)}`);
    expect(await text(l, 'opened-banner')).not.toContain(commit);
    expect(await l.page.getByTestId('opened-banner').locator(`code[title="${commit}"]`).textContent()).toBe(
      commit!.slice(0, 7),
    );
    const findings = l.page.getByTestId('findings');
    await expect
      .poll(() => text(l, 'findings-status'))
      .toMatch(/^All 4 repeats \(2 runs × 2 seeds\) done · 3 steps recorded per repeat/);
    const [csv] = await Promise.all([
      l.page.waitForEvent('download'),
      findings.getByRole('button', { name: 'Download findings CSV' }).click(),
    ]);
    // Each row names its experiment and the page's link, as for a session trained here.
    const source = { experiment: 'GRPO vs Dr. MAS on sync, its settings in the link', link: l.page.url() };
    expect(readFileSync((await csv.path())!, 'utf8')).toBe(
      comparisonCsv(body.experiments[0].findings, source),
    );
    // The rollout inspector shows the sample lab train wrote for each run (its last step's).
    const inspector = l.page.locator('.inspector');
    await inspector.getByRole('tab', { name: 'GRPO #1', exact: true }).click();
    await expect
      .poll(() => inspector.locator('.inspector-head .muted').textContent())
      .toMatch(/^step 2 · 2 trajectories/);
    expect(l.errors).toEqual([]);
  });

  it('a sweep folder’s result fills the Map with its cells, and its view=map shows the Map alone', async () => {
    const sweep = tinyScaleSweep();
    expect(sweep.status, sweep.stderr).toBe(0);
    const { path, body } = bundle(sweep.out);
    expect(body.experiments).toHaveLength(4);

    const l = await openLab();
    labs.push(l);
    await trainEnabled(l.page, 120_000);
    await dropLoose(l, { 'shared.lab.json.gz': path });
    const map = l.page.getByTestId('sweep-map');
    await expect.poll(() => map.getByTestId('map-status').textContent()).toContain('4 cells (4 recorded)');
    await expect.poll(() => map.locator('figure[data-map-chart]').count()).toBeGreaterThan(0);
    // The status bar lists every cell's repeats (4 cells × 2 runs × 2 seeds).
    expect(await l.page.locator('.run-status').count()).toBe(16);
    // Train it here trains the cell on screen, and names it.
    expect(await l.page.getByRole('button', { name: 'Train it here', exact: true }).isEnabled()).toBe(true);
    expect(await l.page.getByTestId('opened-banner').textContent()).toMatch(
      /trains the cell on screen \(models\.assignment = shared · reward\.scale\.alice = 1\) on this\s+machine/,
    );
    expect(l.errors).toEqual([]);

    // Its embed link's view=map: the Map alone, from the file served on another origin.
    const host = await serveStatic(dirname(path), 0, { 'Access-Control-Allow-Origin': '*' });
    try {
      const embed = await openLab(`#open=${host.origin}/${basename(path)}&view=map`);
      labs.push(embed);
      const alone = embed.page.getByTestId('sweep-map');
      await expect
        .poll(() => alone.getByTestId('map-status').textContent(), { timeout: 30_000 })
        .toContain('4 cells (4 recorded)');
      for (const other of ['.controls', '.sidebar', '[data-testid="findings"]', 'figure[data-chart]'])
        expect(await embed.page.locator(other).count(), other).toBe(0);
      expect(embed.errors).toEqual([]);
    } finally {
      await host.close();
    }
  }, 600_000);
});
