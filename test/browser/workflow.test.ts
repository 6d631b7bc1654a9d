/**
 * A workflow of the user's own in the page (docs/workflows.md#in-the-page): the relay example picked
 * from the Workflow panel, its base models prepared in a worker (capped by the test seam
 * `?prepare-steps=N`: the whole recipe takes minutes on SwiftShader's machine), Train, the charts
 * and What differs naming its agents, and a reload finding it all again; a bad workflow file (or an
 * oversized dataset) refused with its line and nothing changed; and the link round trips: Copy link
 * reproduces the workflow experiment (packed as wf=) in a fresh profile, a dataset named by its
 * SHA-256 asked for and checked, and a workflow too large to pack named by its hash (wfhash=) and
 * asked for. With SHOTS=1 it also writes docs/img/workflow-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clipboardWrite, openLab, runsIn, trainEnabled } from './harness';
import type { Lab } from './harness';

const SHOTS = process.env.SHOTS === '1';
/** A small experiment: two steps of the default runs, no evaluation. */
const SMALL = '#v=1&rollout.batchSize=2&rollout.groupSize=2&eval.every=0&steps=2';
/** One check of the preparation (WORKFLOW_PRETRAIN.checkEvery), then it stops. */
const SEAM = '?prepare-steps=20';
/** How long a poll waits for a file the reader worker reads: seconds on a loaded machine, not the default 1 s. */
const READ = { timeout: 30_000 };

let labs: Lab[] = [];
afterEach(async () => {
  for (const l of labs) await l.close();
  labs = [];
});
const open = async (hash: string) => {
  const l = await openLab(hash);
  labs.push(l);
  return l;
};

const reasons = (l: Lab) => l.page.getByTestId('train-reasons').textContent();
/** The Workflow panel at `width`, from a full-page picture (the sticky header then stays at the top). */
const shot = async (l: Lab, name: string, width: number) => {
  if (!SHOTS) return;
  await l.page.setViewportSize({ width, height: 900 });
  mkdirSync('docs/img', { recursive: true });
  const box = await l.page.getByTestId('workflow-panel').evaluate((e) => {
    scrollTo(0, 0); // the sticky header at the page's top, not over the panel
    const r = e.getBoundingClientRect();
    return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
  });
  await l.page.screenshot({ path: `docs/img/${name}-${width}.png`, fullPage: true, clip: box });
};

describe('a workflow in the page', () => {
  it('picks the relay, prepares its base models, trains, and the charts name its agents', async () => {
    const l = await open(`${SEAM}${SMALL}`);
    const { page } = l;
    await trainEnabled(page);
    // Folded to one line on the first screen: the presets' own line unfolds it and brings it up.
    expect(await page.locator('[data-workflow="relay"] button').isVisible()).toBe(false);
    await page.getByRole('group', { name: 'Presets' }).getByRole('button', { name: 'Workflow' }).click();
    await page.locator('[data-workflow="relay"] button').click();
    await expect.poll(() => page.getByTestId('workflow-agents').textContent(), READ).toBe('ann, ben, cal');
    expect(page.url()).toMatch(/&task=workflow&.*wf=[A-Za-z0-9_-]+$/);
    // Its files, to start one's own from: exactly the shipped ones.
    for (const name of ['relay.yaml', 'relay.csv']) {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId('example-files').getByRole('button', { name }).click(),
      ]);
      expect(file.suggestedFilename()).toBe(name);
      expect(readFileSync((await file.path())!, 'utf8')).toBe(
        readFileSync(`examples/workflows/${name}`, 'utf8'),
      );
    }
    // Train says why it is off until the agents have base models.
    await expect
      .poll(() => reasons(l), READ)
      .toContain('Prepare base models first: this workflow’s agents have none yet');
    expect(await page.getByRole('button', { name: 'Train', exact: true }).isDisabled()).toBe(true);

    // The reason's own "Prepare base models" starts it: the Workflow panel is far down the side column.
    await page.getByTestId('train-reasons').getByRole('button', { name: 'Prepare base models' }).click();
    await page.getByTestId('preparing').waitFor();
    if (SHOTS) {
      // Mid-way, for the picture: the bar a quarter along (the step cap ends it at 20).
      await page.waitForFunction(
        () =>
          Number(document.querySelector('[data-testid="preparing"] progress')?.getAttribute('value')) >= 5,
        null,
        { polling: 'raf', timeout: 120_000 },
      );
      await shot(l, 'workflow-preparing', 1440);
    }
    await page.getByTestId('base-ready').waitFor({ timeout: 170_000 });
    // The one check's validation success, per agent, is what the base models say they reached.
    expect(await page.getByTestId('base-ready').textContent()).toMatch(
      /^Ready: 20 steps, team validation success \(every agent right at once\) \d\.\d\d \(own: ann \d\.\d\d, ben \d\.\d\d, cal \d\.\d\d\)/,
    );
    await shot(l, 'workflow', 1440);
    await shot(l, 'workflow', 400);
    await page.setViewportSize({ width: 1440, height: 900 });

    await trainEnabled(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(l, 'done', 170_000);
    // Every run started from the prepared checkpoints, and the legend and per-agent charts name ann, ben, cal.
    const title = await page.locator('.run-status').first().getAttribute('title');
    expect(title).toContain('checkpoint file');
    const agents = await page.locator('.legend .legend-item').allTextContents();
    expect(agents).toEqual(expect.arrayContaining(['ann', 'ben', 'cal']));
    // What differs weighs the GRPO run's own two batches, a sentence per agent of the workflow.
    const card = page.getByTestId('what-differs');
    await expect
      .poll(() => card.getByTestId('what-differs-summary').textContent(), { timeout: 10_000 })
      .toMatch(/^On the GRPO run’s last 2 batches \(steps 0–1\), /);
    expect(
      await card.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-agent'))),
    ).toEqual(['ann', 'ben', 'cal']);
    expect(await card.locator('li[data-agent="cal"]').textContent()).toMatch(/^cal: \S/);

    // A reload finds it all again: the bundled dataset, the base models kept in IndexedDB, the session.
    await page.reload();
    await page.getByTestId('base-ready').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('workflow-agents').textContent()).toBe('ann, ben, cal');
    await expect.poll(() => page.locator('.legend .legend-item').allTextContents(), READ).toContain('cal');
    // Read without waiting: once the backend check is done Train may have no reason left at all.
    expect((await page.getByTestId('train-reasons').allTextContents()).join('')).not.toContain('base models');
    expect(l.errors).toEqual([]);
  });

  it('refuses a bad workflow file with its line, and a dataset that is not the one named, changing nothing', async () => {
    const l = await open(SMALL);
    const { page } = l;
    const before = page.url();
    const relay = readFileSync('examples/workflows/relay.yaml', 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-wf-'));
    const bad = join(dir, 'relay.yaml');
    writeFileSync(bad, relay.replace('mix: 0.5', 'mixx: 0.5'));
    await page.getByLabel('Open a workflow file…').setInputFiles([bad, 'examples/workflows/relay.csv']);
    await expect
      .poll(() => page.getByTestId('workflow-issues').textContent(), READ)
      .toContain('relay.yaml line 27, mixx: unknown field; did you mean mix?');
    const named = join(dir, 'named.yaml');
    writeFileSync(named, relay.replace('file: relay.csv', `file: relay.csv\n  sha256: ${'f'.repeat(64)}`));
    await page.getByLabel('Open a workflow file…').setInputFiles([named, 'examples/workflows/relay.csv']);
    await expect
      .poll(() => page.getByTestId('workflow-issues').textContent(), READ)
      .toMatch(/relay\.csv the file: is not the dataset named\.yaml names: its SHA-256 is [0-9a-f]{16}…/);
    // A file over 5 MB is refused before it is read.
    const big = join(dir, 'big.csv');
    writeFileSync(big, `word\n${'abcdefgh\n'.repeat(700_000)}`);
    await page.getByLabel('Open a workflow file…').setInputFiles([join(dir, 'relay.yaml'), big]);
    await expect
      .poll(() => page.getByTestId('workflow-issues').textContent(), READ)
      .toContain('big.csv the file: 6.0 MB; the limit is 5 MB');
    // Nothing changed: the experiment, its link and its task.
    expect(page.url()).toBe(before);
    expect(await page.getByTestId('workflow-summary').count()).toBe(0);

    // With a workflow on screen (the router), a flow that reads no such field is refused by its stage,
    // and the router stays: its agents, its link.
    await page.locator('[data-workflow="router"] button').click();
    await expect
      .poll(() => page.getByTestId('workflow-agents').textContent(), READ)
      .toBe('router, adder, reverser, counter');
    const router = page.url();
    const stage = join(dir, 'stage.yaml');
    writeFileSync(stage, relay.replace("prompt: '{ann}<'", "prompt: '{anne}<'"));
    await page.getByLabel('Open a workflow file…').setInputFiles([stage, 'examples/workflows/relay.csv']);
    await expect
      .poll(() => page.getByTestId('workflow-issues').textContent(), READ)
      .toContain(
        'stage.yaml line 19, flow.1.prompt: {anne} is neither a field nor an agent (fields: word; agents: ann, ben, cal)',
      );
    expect(await page.getByTestId('workflow-agents').textContent()).toBe('router, adder, reverser, counter');
    expect(page.url()).toBe(router);
    expect(l.errors).toEqual([]);
  });

  it('Copy link reproduces the workflow experiment in a fresh profile; a dataset it names is asked for', async () => {
    const first = await open(SMALL);
    await trainEnabled(first.page);
    // A workflow of the user's own over a dataset no build carries: the relay under another name and data.
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-wf-'));
    const yaml = join(dir, 'hop.yaml');
    const csv = join(dir, 'hop.csv');
    const relay = readFileSync('examples/workflows/relay.yaml', 'utf8');
    writeFileSync(
      yaml,
      relay.replace('name: relay', 'name: hop').replace('file: relay.csv', 'file: hop.csv'),
    );
    const words = readFileSync('examples/workflows/relay.csv', 'utf8').split('\n').slice(0, 201).join('\n');
    writeFileSync(csv, `${words}\n`);
    // Both dropped onto the panel, as from a file manager.
    const dataTransfer = await first.page.evaluateHandle(
      (files) => {
        const dt = new DataTransfer();
        for (const [name, text] of files) dt.items.add(new File([text], name));
        return dt;
      },
      [yaml, csv].map((p) => [basename(p), readFileSync(p, 'utf8')]),
    );
    await first.page.dispatchEvent('[data-testid="workflow-drop"]', 'drop', { dataTransfer });
    await expect
      .poll(() => first.page.getByTestId('workflow-agents').textContent(), READ)
      .toBe('ann, ben, cal');
    await clipboardWrite(first, 'granted');
    const origin = new URL(first.page.url()).origin;
    await first.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await first.page.getByRole('button', { name: 'Copy link' }).click();
    const link = await first.page.evaluate(() => navigator.clipboard.readText());
    expect(link).toMatch(/#v=1&.*task=workflow&.*wf=[A-Za-z0-9_-]+$/);
    expect(link.length).toBeLessThan(8192);

    // A fresh profile: it has no hop.csv, so the page asks for it, checks it, then opens the link.
    const second = await open(link.slice(link.indexOf('#')));
    const { page } = second;
    await page.getByTestId('workflow-wanted').waitFor();
    expect(await page.getByTestId('workflow-wanted').textContent()).toContain('reads hop.csv (SHA-256');
    // Train waits too: the experiment on screen is not the link's.
    await expect.poll(() => reasons(second), READ).toContain('This link waits for its workflow’s files');
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'word\nhona\npug\n');
    await page.getByLabel('Open the files…').setInputFiles([other]);
    await expect
      .poll(() => page.getByTestId('workflow-wanted').textContent(), READ)
      .toContain('other.csv the file: is not the dataset the link');
    await page.getByLabel('Open the files…').setInputFiles([csv]);
    await expect.poll(() => page.getByTestId('workflow-agents').textContent(), READ).toBe('ann, ben, cal');
    expect(await page.getByTestId('workflow-wanted').count()).toBe(0);
    await expect
      .poll(async () => (await page.getByTestId('train-reasons').allTextContents()).join(''), READ)
      .not.toContain('This link waits');
    // The same experiment: the fresh page's link is the copied one.
    expect(page.url().slice(page.url().indexOf('#'))).toBe(link.slice(link.indexOf('#')));
    expect([...first.errors, ...second.errors]).toEqual([]);
  });

  it('names a workflow too large for a link by its hash, and opens it once its file is given and checked', async () => {
    const first = await open(SMALL);
    await trainEnabled(first.page);
    // 3,000 inline rows: too many to pack into a link.
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-wf-'));
    const relay = readFileSync('examples/workflows/relay.yaml', 'utf8');
    const words = readFileSync('examples/workflows/relay.csv', 'utf8').trim().split('\n').slice(1);
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `    - { word: ${words[i % words.length].split(',')[0]}${i} }`,
    );
    const yaml = join(dir, 'many.yaml');
    writeFileSync(
      yaml,
      relay.replace('name: relay', 'name: many').replace('  file: relay.csv', `  rows:\n${rows.join('\n')}`),
    );
    await first.page.getByLabel('Open a workflow file…').setInputFiles([yaml]);
    await expect
      .poll(() => first.page.getByTestId('workflow-agents').textContent(), READ)
      .toBe('ann, ben, cal');
    const link = first.page.url().slice(first.page.url().indexOf('#'));
    expect(link).toMatch(/&wfhash=[0-9a-f]{64}$/);

    const second = await open(link);
    const { page } = second;
    await page.getByTestId('workflow-wanted').waitFor();
    expect(await page.getByTestId('workflow-wanted').textContent()).toContain('names it by its SHA-256');
    const other = join(dir, 'other.yaml');
    writeFileSync(other, readFileSync(yaml, 'utf8').replace('mix: 0.5', 'mix: 0.25'));
    await page.getByLabel('Open the files…').setInputFiles([other]);
    await expect
      .poll(() => page.getByTestId('workflow-wanted').textContent(), READ)
      .toContain('other.yaml the file: is not the workflow this link names');
    // Without the file the user may keep what is on screen: the notice goes, the address bar names it.
    await page.getByRole('button', { name: 'keep the experiment on screen' }).click();
    expect(await page.getByTestId('workflow-wanted').count()).toBe(0);
    expect(page.url()).not.toContain('wfhash=');
    expect(await page.getByTestId('workflow-summary').count()).toBe(0);
    // The link again, and its file this time.
    await page.evaluate((h) => (location.hash = h), link);
    await page.getByTestId('workflow-wanted').waitFor();
    await page.getByLabel('Open the files…').setInputFiles([yaml]);
    await expect.poll(() => page.getByTestId('workflow-agents').textContent(), READ).toBe('ann, ben, cal');
    expect(page.url().slice(page.url().indexOf('#'))).toBe(link);
    expect([...first.errors, ...second.errors]).toEqual([]);
  });
});
