// The command line says what was meant and speaks the page's words: "did you mean" for a preset,
// a flag and a command; a refused config field as the page says it ("must be at least 2", not
// zod's "Too small: expected number to be >=2"); `help` a screen long, `help COMMAND` the rest;
// no fixed port; and `report` on one seed says why it gives no verdict. Real CLI processes.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HELP } from '../../src/cli/args';
import { helpFor } from '../../src/cli/help';
import { runInterop } from '../../src/cli/interop';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });

describe('the command line', () => {
  it('suggests the preset, the flag and the command a typo meant, exit status 2', () => {
    for (const [args, start] of [
      [
        ['train', '--preset', 'snyc'],
        'error: --preset: no preset "snyc"; did you mean sync? (npm run lab -- presets lists them)',
      ],
      [['train', '--stpes', '3'], "error: Unknown option '--stpes'; did you mean --steps?"],
      [['trian'], 'error: unknown command "trian"; did you mean train? (npm run lab -- help lists them)'],
      [['report', 'x', '--tali', '3'], "error: Unknown option '--tali'; did you mean --tail?"],
    ] as const) {
      const r = lab([...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')[0].startsWith(start), r.stderr).toBe(true);
    }
    // export's and import's own words, in process: the two-word command it most likely meant.
    expect(() => runInterop(['export', 'tensorbord', 'runs/x'])).toThrow(
      'unknown command "export tensorbord"; did you mean export tensorboard? (npm run lab -- help export)',
    );
  });

  it('says a refused config field in the page’s words', () => {
    const r = lab(['train', '--config', 'v=1&rollout.groupSize=1&task=snyc', '--steps', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("rollout.groupSize must be at least 2; got '1'");
    expect(r.stderr).toContain('task must be one of: ');
    expect(r.stderr).toContain("got 'snyc'; did you mean sync?");
    expect(r.stderr).not.toMatch(/Too small|Invalid option|expected one of/);
  });

  it('help is a screen long; help COMMAND gives the rest; no fixed port', () => {
    const summary = lab(['help']).stdout.trim().split('\n');
    expect(summary.length).toBeLessThanOrEqual(16);
    for (const c of ['train', 'pretrain', 'sweep', 'merge', 'report', 'presets', 'export', 'import'])
      expect(
        summary.some((l) => l.startsWith(`  ${c} `)),
        c,
      ).toBe(true);
    const train = lab(['help', 'train']).stdout;
    expect(train).toContain('npm run lab -- train --resume DIR');
    expect(train).toContain('DIR/metrics.jsonl');
    expect(train).toContain('--checkpoint-every N');
    expect(lab(['train', '--help']).stdout).toBe(train);
    expect(helpFor('export')).toContain('export drmas');
    expect(helpFor('sweep')).toContain('--shard i/n');
    expect(helpFor('all')).toBe(HELP);
    expect(HELP).not.toMatch(/localhost:\d+/);
    const bad = lab(['help', 'tran']);
    expect([bad.status, bad.stderr.trim()]).toEqual([
      2,
      'error: help: no command "tran"; did you mean train?',
    ]);
  });

  it('report on one seed per run says why it gives no verdict', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'agentwise-oneseed-')), 'run');
    const hash = 'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=0';
    expect(lab(['train', '--config', hash, '--steps', '1', '--out', out, '--quiet']).status).toBe(0);
    const r = lab(['report', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      'no verdicts: one seed per run, so a difference between two runs is one sample of each',
    );
    expect(r.stdout).toContain('Train with 3 or more seeds');
  }, 120_000);
});
