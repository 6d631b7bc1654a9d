import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEventFile } from '../../src/interop/tensorboard';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 120_000 });

/** A train --out folder as the CLI writes it (two runs, two steps, eval only at step 1). */
function runFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-interop-'));
  writeFileSync(join(dir, 'config.json'), '{}\n');
  const lines = [
    { run: 'GRPO', step: 0, time_s: 1.5, 'reward/mean': 0.3, 'agent/verifier/grad_norm': 0.123456789, 'eval/avg@8': null },
    { run: 'Dr. MAS', step: 0, time_s: 1.6, 'reward/mean': 0.4, 'agent/verifier/grad_norm': 2.5, 'eval/avg@8': null },
    { run: 'GRPO', step: 1, time_s: 3.0, 'reward/mean': 0.35, 'agent/verifier/grad_norm': 1e-9, 'eval/avg@8': 0.625 },
    { run: 'Dr. MAS', step: 1, time_s: 3.2, 'reward/mean': 0.45, 'agent/verifier/grad_norm': 3, 'eval/avg@8': 0.7 },
  ];
  writeFileSync(join(dir, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  return dir;
}

describe('npm run lab -- export tensorboard', () => {
  it('writes one event file per run whose scalars are the metrics as float32', () => {
    const dir = runFolder();
    const tb = join(dir, 'tb');
    const r = lab(['export', 'tensorboard', dir, '--out', tb]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(tb).sort()).toEqual(['Dr. MAS', 'GRPO']);
    const [file] = readdirSync(join(tb, 'GRPO'));
    expect(file).toMatch(/^events\.out\.tfevents\.\d+\.agentwise-lab$/);
    const scan = readEventFile(readFileSync(join(tb, 'GRPO', file)));
    expect(scan).toMatchObject({ records: 3, skipped: 0, truncatedBytes: 0 });
    expect(scan.rows.map(({ time_s: _t, ...rest }) => rest)).toEqual([
      { step: 0, 'reward/mean': Math.fround(0.3), 'agent/verifier/grad_norm': Math.fround(0.123456789) },
      { step: 1, 'reward/mean': Math.fround(0.35), 'agent/verifier/grad_norm': Math.fround(1e-9), 'eval/avg@8': 0.625 },
    ]);
    expect(scan.rows[1].time_s).toBeCloseTo(3.0, 4);
  });

  it('refuses a folder without metrics.jsonl, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-interop-'));
    const r = lab(['export', 'tensorboard', dir, '--out', join(dir, 'tb')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${dir} has no metrics.jsonl`);
  });
});
