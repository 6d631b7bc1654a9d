// A hung environment under a real `lab train` process: the CLI runs its
// environments in worker threads under rollout.envTimeoutMs, so a transition that never returns
// is timed out, tried on fresh workers that answer one by one and timed out twice more, its trajectory scored 0 and
// counted in env/errors, and the run finishes. The hang
// is the env worker's test-only fault hook (LAB_FAULT_HANG_TRAJ, src/workers/env.worker.node.ts).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('lab train with a hung environment', () => {
  it('times the hung trajectory out at every step, counts it, and finishes', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'agentwise-hung-')), 'run');
    // A short limit: a replacement thread's start-up (tsx) is not counted, its limit runs from its ready.
    const hash =
      'v=1&task=sync&models.base=scratch&rollout.batchSize=1&rollout.groupSize=4&rollout.envTimeoutMs=1000&eval.every=0';
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'train',
        '--config',
        hash,
        '--steps',
        '2',
        '--out',
        out,
        '--quiet',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, LAB_FAULT_HANG_TRAJ: '1' },
        timeout: 240_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => `${l.run} ${l.step}`)).toEqual(['GRPO 0', 'Dr. MAS 0', 'GRPO 1', 'Dr. MAS 1']);
    // One of the four trajectories hung at every step: counted, and left out of the reward
    // statistics (scored 0 and marked invalid), while the other three were judged.
    for (const l of lines) expect(l['env/errors']).toBe(1);
    expect(
      JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).map((s: { steps: number }) => s.steps),
    ).toEqual([2, 2]);
    console.info(
      `hung-env run: ${((Date.now() - started) / 1000).toFixed(1)} s for 4 steps, each with one trajectory timed out three times after 1 s`,
    );
  }, 300_000);
});
