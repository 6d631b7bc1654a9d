/**
 * The session's buttons in the real page, on the tiny sync experiment with real training: every
 * state of the state machine (idle, paused, training, done, restored) reached, with exactly its
 * actions enabled; "Continue for N more steps" resumes each run from its saved state and the
 * exported metrics hold every step once; a refused field keeps Train off and says why by its
 * label; a reset-field edit or another link while runs are on screen asks first, and Past sessions is
 * one click away.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  RUNS,
  TINY,
  downloadCsv,
  openLab,
  runsIn,
  savedAtSteps,
  stepCounts,
  trainEnabled,
  waitSteps,
} from './harness';
import type { Lab } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** The first is one button, named Train, or Resume while paused (mainName says which). */
const BUTTONS = [
  /^(Train|Resume)$/,
  'Pause',
  'Step',
  'Reset',
  'Run again',
  /^Continue for \d+ more steps$/,
] as const;

/** Each session button as 'on', 'off' or 'absent', in BUTTONS order. */
const buttons = (page: Page) =>
  Promise.all(
    BUTTONS.map(async (name) => {
      const b = page
        .getByRole('group', { name: 'Training controls' })
        .getByRole('button', { name, exact: true });
      if ((await b.count()) === 0) return 'absent';
      return (await b.isDisabled()) ? 'off' : 'on';
    }),
  );

/** Waits for the session state machine to be in `state` (the controls carry it). */
const inState = (page: Page, state: string) =>
  page.locator(`.controls[data-state="${state}"]`).waitFor({ timeout: 120_000 });

/** The name the first session button goes by now: Train, or Resume while runs wait mid-session. */
const mainName = (page: Page) =>
  page.getByRole('group', { name: 'Training controls' }).locator('button.primary').textContent();

const click = (page: Page, name: string | RegExp) =>
  page.getByRole('group', { name: 'Training controls' }).getByRole('button', { name, exact: true }).click();

/** The steps each run holds in Download CSV, by run label. */
async function exportedSteps(page: Page): Promise<Record<string, number[]>> {
  const { rows } = await downloadCsv(page);
  const out: Record<string, number[]> = {};
  for (const [run, , step] of rows) {
    (out[run] ??= []).push(Number(step));
  }
  return out;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('session states', () => {
  it('reaches every state with exactly its buttons enabled; Continue records no step twice', async () => {
    lab = await openLab(`${TINY}&steps=4`);
    const { page } = lab;
    await trainEnabled(page);
    // idle: Train and Step start the runs; nothing to pause or reset.
    await inState(page, 'idle');
    expect(await buttons(page)).toEqual(['on', 'off', 'on', 'off', 'absent', 'absent']);
    expect(await mainName(page)).toBe('Train');

    // paused (after one Step): Resume goes on with the same runs, Step steps again, Reset clears.
    await click(page, 'Step');
    await inState(page, 'paused');
    await waitSteps(lab, (s) => s.every((n) => n === 1));
    expect(await buttons(page)).toEqual(['on', 'off', 'on', 'on', 'absent', 'absent']);
    expect(await mainName(page)).toBe('Resume');

    // training, slowed so that it stays there: only Pause and Reset do something.
    await page
      .getByRole('combobox', { name: 'Speed', exact: true })
      .selectOption({ label: '3 s between steps' });
    await click(page, 'Resume');
    await inState(page, 'training');
    expect(await buttons(page)).toEqual(['off', 'on', 'off', 'on', 'absent', 'absent']);
    expect(await mainName(page)).toBe('Train');
    // Resume goes on with the same runs from step 1: new runs would show step 0.
    expect((await stepCounts(lab)).every((n) => n >= 1)).toBe(true);
    await click(page, 'Pause');
    await inState(page, 'paused');
    await runsIn(lab, 'paused');
    expect(await mainName(page)).toBe('Resume');
    // Each run's state and frames up to it are stored; and a run can say 'paused' before its last
    // step's frame is drawn, so the counters are read once they are at the saved steps.
    await savedAtSteps(lab);
    const pausedAt = await stepCounts(lab);
    expect(pausedAt.every((n) => n >= 1 && n < 4)).toBe(true);

    // restored: a reload shows the stored, unfinished session; Train goes on from its saved states.
    await page.reload();
    await page.getByTestId('restored-note').waitFor({ timeout: 30_000 });
    await trainEnabled(page);
    await inState(page, 'restored');
    expect(await stepCounts(lab)).toEqual(pausedAt);
    expect(await buttons(page)).toEqual(['on', 'off', 'on', 'on', 'absent', 'absent']);
    // Train, not Resume: where no run saved a state it starts a new session from step 0.
    expect(await mainName(page)).toBe('Train');

    // done: every run reached step 4. Train and Pause would do nothing; Run again and Continue are offered.
    await click(page, 'Train');
    await inState(page, 'done');
    // Polled: the session can say done before the last step's frame reaches the counters.
    await expect.poll(() => stepCounts(lab!), { timeout: 30_000 }).toEqual([4, 4]);
    expect(await buttons(page)).toEqual(['off', 'off', 'off', 'on', 'on', 'on']);
    expect(await page.getByLabel('More steps').inputValue()).toBe('4'); // as many steps again by default
    expect(await exportedSteps(page)).toEqual(Object.fromEntries(RUNS.map((r) => [r, range(4)])));

    // Continue for 3 more steps: from the states saved at step 4, to step 7; the link says 7 steps.
    await page.getByLabel('More steps').fill('3');
    await click(page, 'Continue for 3 more steps');
    await inState(page, 'training');
    await inState(page, 'done');
    await expect.poll(() => stepCounts(lab!), { timeout: 30_000 }).toEqual([7, 7]);
    expect(page.url()).toContain('steps=7');
    expect(await page.locator('.run-status').first().getAttribute('title')).toMatch(/resumed at step 4/);
    // Every step once per run: 0…6, none recorded twice, none missing.
    expect(await exportedSteps(page)).toEqual(Object.fromEntries(RUNS.map((r) => [r, range(7)])));

    // A finished session after a reload is done too (stored under its 7 steps): Continue goes on from it.
    await savedAtSteps(lab); // each run's state and frames up to it are stored
    await page.reload();
    await page.getByTestId('restored-note').filter({ hasText: 'finished' }).waitFor({ timeout: 30_000 });
    // Once the backend check is done (a reason keeps it off until then).
    await expect
      .poll(() => page.getByRole('button', { name: 'Run again', exact: true }).isEnabled(), {
        timeout: 120_000,
      })
      .toBe(true);
    await inState(page, 'done');
    await expect.poll(() => stepCounts(lab!), { timeout: 30_000 }).toEqual([7, 7]);
    expect(await buttons(page)).toEqual(['off', 'off', 'off', 'on', 'on', 'on']);
    await page.getByLabel('More steps').fill('2');
    await click(page, 'Continue for 2 more steps');
    await inState(page, 'training');
    await inState(page, 'done');
    await expect.poll(() => stepCounts(lab!), { timeout: 30_000 }).toEqual([9, 9]);
    expect(await exportedSteps(page)).toEqual(Object.fromEntries(RUNS.map((r) => [r, range(9)])));

    // Run again: a new session from step 0 (the finished one stays in Past sessions).
    await click(page, 'Run again');
    await inState(page, 'training');
    await waitSteps(lab, (s) => s.every((n) => n >= 1));
    await click(page, 'Reset');
    await inState(page, 'idle');
    expect(await page.getByRole('button', { name: /^Open session / }).count()).toBe(2);
    expect(await buttons(page)).toEqual(['on', 'off', 'on', 'off', 'absent', 'absent']);
    expect(lab.errors).toEqual([]);
    // Three trainings, two reloads and 3 s steps: 90 s on a shared 2-core machine, half the default
    // 180 s limit; a loaded CI machine must not fail it by the clock.
  }, 360_000);

  it('a refused field keeps Train off, naming the field by its label and the reason', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page);
    // Where the page asks for Train, it says so while Train is on, and why it is off while it is not.
    const asks = async () => ({
      status: await page.locator('#runs-status').textContent(),
      board: await page.locator('section.board').textContent(),
      intro: await page.getByTestId('intro-train').textContent(),
    });
    expect(await asks()).toEqual({
      status: 'No runs yet: press Train.',
      board: expect.stringMatching(/^Press Train to start every run/),
      intro: 'Press Train.',
    });
    const g = page.getByLabel('Group size G');
    await g.fill('512');
    // Clicking Train straight from the field commits it first (blur): refused, so nothing starts.
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    expect(await page.locator('.run-status').count()).toBe(0);
    const train = page.getByRole('button', { name: 'Train', exact: true });
    expect(await train.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Step', exact: true }).isDisabled()).toBe(true);
    expect(await page.getByTestId('train-reasons').textContent()).toBe('Group size G must be at most 32');
    // Hovered, Train says why it is off, not what it would do.
    expect(await train.getAttribute('title')).toBe('Train is off: Group size G must be at most 32');
    // The reason is said once, beside Train; the other places say Train is off and point there.
    expect(await asks()).toEqual({
      status: 'No runs yet. Train is off (why: beside it, at the top).',
      board: expect.stringMatching(
        /^Once it is on \(why it is off: beside Train, at the top\), Train starts/,
      ),
      intro: 'Train is off (why: beside it, at the top); then press Train.',
    });
    const said = await page.evaluate(
      () => document.body.innerText.split('Group size G must be at most 32').length - 1,
    );
    expect(said, 'the reason, said once on the page').toBe(1);
    // Cut to one line in the header; a tap or Tab shows it whole.
    const reasonsList = page.getByTestId('train-reasons');
    await reasonsList.focus();
    expect(await reasonsList.evaluate((e) => getComputedStyle(e).whiteSpace)).toBe('normal');
    await reasonsList.blur();
    expect(await g.inputValue()).toBe('512');
    expect(page.url()).toContain('rollout.groupSize=2');
    // Escape drops the refused value: the field shows what the config holds, and Train is back.
    await g.press('Escape');
    expect(await g.inputValue()).toBe('2');
    await trainEnabled(page);
    expect(await page.getByTestId('train-reasons').count()).toBe(0);
    expect((await asks()).status).toBe('No runs yet: press Train.');
    // A preset picked over a refused value replaces it: the field shows the preset's G, and Train
    // is back (it stayed off, the field still showing 512, while the summary said G = 8).
    await g.fill('512');
    await g.press('Enter');
    expect(await train.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Synchronous control (identical by theory)' }).click();
    await expect.poll(() => g.inputValue()).toBe('8');
    await trainEnabled(page);
    expect(await page.getByTestId('train-reasons').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('a config over the memory limit keeps Train off after the backend check, naming Batch size B', async () => {
    lab = await openLab('#v=1&models.preset=base&rollout.batchSize=64&rollout.groupSize=32');
    const { page } = lab;
    const reasons = page.getByTestId('train-reasons');
    // Until the backend check is done, the reasons say so.
    await reasons.filter({ hasText: 'Checking which backend can run it' }).waitFor();
    await page.locator('.backend-chip', { hasNotText: 'checking backends' }).waitFor({ timeout: 120_000 });
    await expect.poll(() => reasons.textContent()).not.toContain('Checking');
    expect(await reasons.textContent()).toMatch(
      /^Memory: this experiment needs about 179\.8 GB .*lower Batch size B \(rollout\.batchSize\), Group size G \(rollout\.groupSize\)/,
    );
    expect(await page.getByRole('button', { name: 'Train', exact: true }).isDisabled()).toBe(true);
    expect(lab.errors).toEqual([]);
  });

  it('a reset-field edit mid-run asks first; the old runs stay on screen, then in Past sessions', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page);
    await click(page, 'Train');
    await waitSteps(lab, (s) => s.every((n) => n >= 2));
    const g = page.getByLabel('Group size G');
    await g.fill('4');
    await g.press('Enter');
    const ask = page.getByRole('alertdialog');
    await ask.waitFor();
    expect(await ask.textContent()).toContain('Group size G 2 → 4');
    // Nothing changed yet: the runs go on training under the experiment that started them.
    expect(page.url()).toContain('rollout.groupSize=2');
    const before = await stepCounts(lab);
    await waitSteps(lab, (s) => s.every((n, i) => n > before[i]));

    // Keep: the edit is dropped, the runs stay.
    await page.getByRole('button', { name: 'Keep the current runs' }).click();
    expect(await ask.count()).toBe(0);
    expect(await g.inputValue()).toBe('2');
    expect(await page.locator('.run-status').count()).toBe(2);

    // Start a new session: the charts clear, the link takes G = 4, the old runs are in Past sessions.
    await g.fill('4');
    await g.press('Enter');
    await page.getByRole('button', { name: 'Start a new session' }).click();
    await page.getByText('No runs yet').waitFor();
    expect(page.url()).toContain('rollout.groupSize=4');
    await page.getByRole('button', { name: 'Past sessions (1)' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('past-title');
    await page.getByRole('button', { name: /^Open session / }).click();
    await page.getByTestId('restored-note').waitFor();
    expect(page.url()).toContain('rollout.groupSize=2');
    expect((await stepCounts(lab)).every((n) => n >= 3)).toBe(true);
    expect(lab.errors).toEqual([]);
  });

  it('another link while runs are on screen asks first; keep puts the address bar back', async () => {
    lab = await openLab(TINY);
    const { page } = lab;
    await trainEnabled(page);
    await click(page, 'Step');
    await runsIn(lab, 'paused');
    // A run can read 'paused' before its one step's frame is drawn: wait for the frame too.
    const steps = await waitSteps(lab, (s) => s.every((n) => n === 1));
    const task = page.getByLabel('Task', { exact: true });
    const openLink = (hash: string) => page.evaluate((h) => (window.location.hash = h), hash);

    // Another task: nothing changes until the user answers.
    await openLink(TINY.replace('task=sync', 'task=math'));
    const ask = page.getByRole('alertdialog');
    await ask.waitFor();
    expect(await ask.textContent()).toContain('This change needs new runs: Task sync → math');
    expect(await task.inputValue()).toBe('sync');
    expect(await stepCounts(lab)).toEqual(steps);

    // Keep: the runs stay, and the address bar names the experiment on screen again.
    await page.getByRole('button', { name: 'Keep the current runs' }).click();
    expect(await ask.count()).toBe(0);
    await expect.poll(() => page.url()).toContain('task=sync');
    expect(await stepCounts(lab)).toEqual(steps);

    // A bad link discards nothing either: the alert keeps its text, the runs and the address bar stay.
    await openLink('#v=1&rollout.groupSize=banana');
    const alert = page.getByTestId('url-alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'This link could not be opened; showing the runs on screen instead.',
    );
    expect(await page.getByTestId('bad-link').textContent()).toBe('#v=1&rollout.groupSize=banana');
    await expect.poll(() => page.url()).toContain('task=sync');
    expect(page.url()).toContain('rollout.groupSize=2');
    expect(await ask.count()).toBe(0);
    expect(await stepCounts(lab)).toEqual(steps);

    // Start a new session: the link's experiment, with the old runs in Past sessions.
    await openLink(TINY.replace('task=sync', 'task=math'));
    await page.getByRole('button', { name: 'Start a new session' }).click();
    await page.getByText('No runs yet').waitFor();
    expect(await task.inputValue()).toBe('math');
    expect(page.url()).toContain('task=math');
    await page.getByRole('button', { name: 'Past sessions (1)' }).waitFor();
    expect(lab.errors).toEqual([]);
  });
});
