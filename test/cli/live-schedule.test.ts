/**
 * `npm run lab -- train --config <link>` replays the link's live-change schedule through the same
 * driver as the page: a run whose link says `runs.0.live.2.optim.lr=0.2` writes, bit for bit, the
 * metrics of a run whose learning rate was changed live at step 2 (apart from wall-clock, memory
 * and speed readings).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { expect, it } from 'vitest';
import { decodeExperiment } from '../../src/core/url';
import { InProcessEnvRunner } from '../../src/tasks/env';
import { RunDriver } from '../../src/train/driver';
import { runLab } from './run-lab';

const BASE = 'v=1&task=sync&models.base=scratch&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&steps=4';
const AT = 2;

/** Everything a step computes, without the wall-clock and memory readings; NaN as JSON writes it. */
const science = (m: Record<string, unknown>) =>
  JSON.parse(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(m).filter(([k]) => !/^(perf|mem)\//.test(k) && !['time_s', 'run', 'step'].includes(k)),
      ),
    ),
  ) as Record<string, unknown>;

it('replays the link schedule: the same metrics as a change made live at that step', async () => {
  const out = mkdtempSync(join(tmpdir(), 'agentwise-live-'));
  const link = `${BASE}&runs.0.live.${AT}.optim.lr=0.2`;
  const r = runLab(['train', '--config', link, '--backend', 'cpu', '--out', out, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
  expect(config.runs[0].live).toEqual({ [AT]: { optim: { lr: 0.2 } } });

  // The same run in this process, its learning rate changed live once it has taken AT steps.
  await tf.setBackend('cpu');
  const decoded = decodeExperiment(BASE);
  if (!decoded.ok) throw new Error('the base link is valid');
  const exp = decoded.config;
  const frames: Record<string, unknown>[] = [];
  const driver = await RunDriver.open(
    { fresh: { exp, run: exp.runs[0], seed: exp.seed } },
    { env: new InProcessEnvRunner(), steps: exp.steps, sink: { frame: (f) => void frames.push(f.metrics) } },
  );
  try {
    while (driver.step < AT) await driver.stepOnce();
    expect(driver.setLiveFrom('lr', 0.2)).toBe(AT);
    while (!driver.done) await driver.stepOnce();
  } finally {
    driver.stop();
  }
  const cli = lines.filter((l) => l.run === 'GRPO').map(science);
  expect(cli).toEqual(frames.map(science));
}, 300_000);
