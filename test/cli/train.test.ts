import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 240_000 });

describe('npm run lab -- train', () => {
  it('runs every run headless and writes config.json, metrics.jsonl and summary.json', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-train-'));
    const hash = 'v=1&task=sync&models.base=scratch&models.preset=nano&rollout.batchSize=2&rollout.groupSize=4&eval.every=2&eval.questions=4&eval.k=2';
    const r = lab(['train', '--config', hash, '--steps', '2', '--backend', 'wasm', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^backend: wasm/m);
    expect(r.stdout).toMatch(/run\s+avg@2\s+pass@2\s+reward\s+alice \|g\| med\/max\/spikes/);

    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.task).toBe('sync');
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.run, l.step])).toEqual([
      ['GRPO', 0],
      ['Dr. MAS', 0],
      ['GRPO', 1],
      ['Dr. MAS', 1],
    ]);
    expect(lines[0]).toHaveProperty('agent/alice/grad_norm');
    expect(lines[0]).toHaveProperty('reward/mean');
    expect(lines[3]).toHaveProperty('eval/avg@2'); // evaluated after step 2
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.map((s: { run: string }) => s.run)).toEqual(['GRPO', 'Dr. MAS']);
    expect(summary[0].agents.bob).toHaveProperty('spikes');
  });

  it('exits 2 naming the bad field of a bad config, and prints help', () => {
    const bad = lab(['train', '--config', 'v=1&rollout.groupSize=1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/rollout\.groupSize: Too small/);
    const help = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--help'], { encoding: 'utf8' });
    expect(help).toMatch(/npm run lab -- train --config <file \| URL \| hash>/);
  });
});
