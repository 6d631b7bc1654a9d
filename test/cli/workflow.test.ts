/**
 * Workflows on the command line, as a user runs them: pretrain → train → report on the relay
 * example (a dataset file beside the workflow), the folder keeping the dataset so report and
 * --resume read it back, and the refusals that must come before anything trains.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLab } from './run-lab';

const tmp = () => mkdtempSync(join(tmpdir(), 'lab-wf-'));

describe('lab with --workflow', () => {
  it('pretrain → train → report: the agents keep their names, the folder keeps its dataset', () => {
    const dir = tmp();
    const base = join(dir, 'base');
    const p = runLab([
      'pretrain',
      '--workflow',
      'examples/workflows/relay.yaml',
      '--out',
      base,
      '--max-steps',
      '20',
      '--target',
      '0.9',
    ]);
    expect(p.status, p.stderr).toBe(0);
    // relay stops each model at its agents' own success, so a team target is said to do nothing.
    expect(p.stderr).toContain('--target 0.9 has no effect here');
    expect(p.stderr).toMatch(
      /pretrain step 20: loss [0-9.]+, team validation success [0-9.]+ \(own: ann [0-9.]+, ben [0-9.]+, cal [0-9.]+\)/,
    );
    const manifest = JSON.parse(readFileSync(join(base, 'manifest.json'), 'utf8'));
    expect(manifest.workflow).toBe('relay');
    // Not the workflow's own recipe (a step cap of 20): no cache key names these models.
    expect(manifest.key).toBeNull();
    expect(manifest.steps).toBeLessThanOrEqual(20);
    expect(Object.keys(manifest.own).sort()).toEqual(['ann', 'ben', 'cal']);
    for (const a of ['ann', 'ben', 'cal']) expect(existsSync(join(base, `${a}.ckpt`))).toBe(true);

    const out = join(dir, 'run');
    const t = runLab([
      'train',
      '--workflow',
      'examples/workflows/relay.yaml',
      '--init',
      base,
      '--steps',
      '2',
      '--out',
      out,
      '--quiet',
    ]);
    expect(t.status, t.stderr).toBe(0);
    expect(t.stderr).toContain('model ann: checkpoint file ann.ckpt');
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.task).toBe('workflow');
    expect(config.workflow.data).toEqual({
      file: 'relay.csv',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(readFileSync(join(out, 'relay.csv'))).toEqual(readFileSync('examples/workflows/relay.csv'));
    const line = JSON.parse(readFileSync(join(out, 'metrics.jsonl'), 'utf8').split('\n')[0]);
    for (const a of ['ann', 'ben', 'cal']) expect(line).toHaveProperty(`agent/${a}/own_success`);

    const r = runLab(['report', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ann \|g\| med\/max\/spikes +ben \|g\| med\/max\/spikes +cal \|g\|/);
  }, 300_000);

  it('refuses, naming the place, a workflow that cannot train and a dataset that is not the one named', () => {
    const dir = tmp();
    const relay = readFileSync('examples/workflows/relay.yaml', 'utf8');
    copyFileSync('examples/workflows/relay.csv', join(dir, 'relay.csv'));
    const bad = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return runLab(
        ['train', '--workflow', join(dir, name), '--steps', '1', '--out', join(dir, `out-${name}`)],
        60_000,
      );
    };
    const typo = bad('typo.yaml', relay.replace('maxResponse: 8, format', 'maxRespons: 8, format'));
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(
      /typo\.yaml is refused:\n {2}line 10, agents\.0\.maxRespons: unknown field; did you mean maxResponse\?/,
    );
    const back = bad('back.yaml', relay.replace("prompt: '{ben}>'", "prompt: '{ben}>'\n    next: ann"));
    expect(back.status).toBe(2);
    expect(back.stderr).toMatch(
      /line 22, flow\.2\.next: goes back to stage 0 \('ann'\), which could cycle without a bound/,
    );
    const hash = bad(
      'hash.yaml',
      relay.replace('file: relay.csv', `file: relay.csv\n  sha256: ${'ab'.repeat(32)}`),
    );
    expect(hash.status).toBe(2);
    expect(hash.stderr).toMatch(
      /is not the dataset .* names: its SHA-256 is [0-9a-f]{16}…, the workflow says abababababababab…/,
    );
    for (const name of ['typo.yaml', 'back.yaml', 'hash.yaml'])
      expect(existsSync(join(dir, `out-${name}`))).toBe(false);
  }, 200_000);
});
