/**
 * The lines under the CLI's summary table, in `lab train` and `lab report`. A run shorter than
 * eval.every ends before its first evaluation: the table's avg@k and pass@k cells are "—", and one
 * line says why. Then a legend says what the reward, skipped and |g| med/max/spikes columns hold.
 */
import type { SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalNote } from '../../src/cli/eval-note';
import { folderSummaries } from '../../src/cli/train';
import { REWARD_TAIL } from '../../src/report/summary';
import { SPIKE_FACTOR } from '../../src/rl/stats';
import { runLab } from './run-lab';

// eval.every left at its default, 10: two steps end before the first evaluation.
const HASH =
  'v=1&task=sync&models.base=scratch&models.preset=nano&rollout.batchSize=2&rollout.groupSize=4&eval.questions=4&eval.k=2';
const NOTE =
  '— under avg@2 and pass@2: no evaluation yet: it comes every 10 steps (eval.every) and 2 steps ran';

/** The table's row of `run`, split into its cells (two spaces or more between them). */
const cells = (stdout: string, run: string) =>
  stdout
    .split('\n')
    .find((l) => l.startsWith(`${run}  `))
    ?.split(/ {2,}/);

/** The legend's lines of a command's output: the one that explains reward and skipped, the one that explains |g|. */
const legend = (stdout: string) => ({
  reward: stdout.split('\n').filter((l) => l.startsWith('reward: ')),
  grad: stdout.split('\n').filter((l) => l.startsWith('|g| med/max/spikes: ')),
});

describe('the summary table of a run shorter than eval.every', () => {
  let out: string;
  let r: SpawnSyncReturns<string>;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'agentwise-eval-note-'));
    r = runLab(['train', '--config', HASH, '--steps', '2', '--backend', 'wasm', '--out', out, '--quiet']);
  }, 240_000);

  it('says once, under the table, why avg@k and pass@k are "—"', () => {
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^run\s+avg@2\s+pass@2\s+reward/);
    for (const run of ['GRPO', 'Dr. MAS']) {
      const [name, avg, pass, reward] = cells(r.stdout, run) ?? [];
      expect([name, avg, pass]).toEqual([run, '—', '—']);
      expect(reward).toMatch(/^-?\d+\.\d{3}$/); // the run trained: only evaluation is missing
    }
    // Right under the table (its head, rule and two rows), and only there.
    expect(lines[4]).toBe(NOTE);
    expect(lines.filter((l) => l.includes('no evaluation'))).toEqual([NOTE]);

    // `lab report` reads eval.every from the folder's config.json and says the same.
    const again = runLab(['report', out]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout.split('\n').filter((l) => l.includes('no evaluation'))).toEqual([NOTE]);

    // The same runs' summaries with evaluation off, or from a folder that does not say eval.every.
    const { summaries, evalEvery } = folderSummaries(out, 20);
    expect(evalEvery).toBe(10);
    expect(evalNote(summaries, evalEvery)).toBe(NOTE);
    expect(evalNote(summaries, 0)).toBe('— under avg@2 and pass@2: no evaluation, eval.every is 0 (off)');
    expect(evalNote(summaries, undefined)).toBe('— under avg@2 and pass@2: no evaluation recorded');
    // Two steps at eval.every 2 would have evaluated: a dash then is not "yet".
    expect(evalNote(summaries, 2)).toBe('— under avg@2 and pass@2: no evaluation recorded');
    // Once every run has both figures, no line.
    expect(
      evalNote(
        summaries.map((s) => ({ ...s, evalAvg: 0.5, evalPass: 1 })),
        evalEvery,
      ),
    ).toBeNull();
  });

  it('says once, in a legend under it, what reward, skipped and |g| med/max/spikes hold', () => {
    expect(r.status, r.stderr).toBe(0);
    const trained = legend(r.stdout);
    expect(trained.reward).toEqual([
      `reward: training reward (reward/mean) averaged over the last ${REWARD_TAIL} steps (all, if fewer); ` +
        'skipped: model updates skipped (non-finite loss, gradient or weights)',
    ]);
    expect(trained.grad).toEqual([
      '|g| med/max/spikes: pre-clip gradient norm, median and max over steps; ' +
        `spikes: steps above ${SPIKE_FACTOR}x the median of all earlier ones`,
    ]);
    // After the table (head, rule, two rows) and the line saying why avg@k is "—".
    const lines = r.stdout.split('\n');
    expect(lines.indexOf(trained.reward[0])).toBe(5);
    expect(lines.indexOf(trained.grad[0])).toBe(6);

    // `lab report` prints it too, naming the tail it averaged: the default, or --tail's.
    const again = runLab(['report', out]);
    expect(again.status, again.stderr).toBe(0);
    expect(legend(again.stdout)).toEqual(trained);
    const one = runLab(['report', out, '--tail', '1']);
    expect(one.status, one.stderr).toBe(0);
    const { reward, grad } = legend(one.stdout);
    expect(reward).toHaveLength(1);
    expect(reward[0]).toContain('averaged over the last 1 step (all, if fewer);');
    expect(grad).toEqual(trained.grad);
  });
});
