// A user's mistake on the command line gets one line naming it, a non-zero exit and no stack
// trace, and creates nothing: real CLI processes on real files.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
const hash = 'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=0';

/** The lines of stderr after the progress lines train prints before it fails (memory, backend, model). */
const errorLines = (stderr: string) =>
  stderr.split('\n').filter((l) => l && !/^(memory|backend|model \w+): /.test(l));

describe('user errors on the command line', () => {
  it('names a bad --init file, a refused --backend and a folder given as --config, in one line each', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-usage-'));
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'notes.ckpt'), 'not a checkpoint');
    const empty = mkdtempSync(join(tmpdir(), 'agentwise-empty-'));
    const cases: [string[], string][] = [
      [['--init', join(dir, 'none.ckpt')], `error: --init: no such file ${join(dir, 'none.ckpt')}`],
      // A folder stands for the checkpoints in it (lab pretrain --out DIR); one without any is refused.
      [['--init', dir], 'error: --init: notes.ckpt: not an Agentwise checkpoint file (bad magic bytes)'],
      [['--init', empty], `error: --init: ${empty} is a folder with no checkpoint files (.ckpt) in it`],
      [
        ['--init', join(dir, 'notes.ckpt')],
        'error: --init: notes.ckpt: not an Agentwise checkpoint file (bad magic bytes)',
      ],
      [
        ['--init', 'models/search/per-agent/answer.ckpt'],
        'error: --init: answer.ckpt fits no model of this experiment (models: alice, bob)',
      ],
      [['--backend', 'webgl'], 'error: --backend webgl: refused webgl (webgl: no WebGL in Node)'],
    ];
    for (const [extra, message] of cases) {
      const r = lab(['train', '--config', hash, '--steps', '1', '--out', out, '--quiet', ...extra]);
      expect(errorLines(r.stderr), extra.join(' ')).toEqual([message]);
      expect(r.status, extra.join(' ')).toBe(2);
    }
    expect(existsSync(out)).toBe(false);

    const folder = lab(['train', '--config', dir, '--steps', '1', '--out', out]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toBe(
      `error: ${dir}:\n  --config: a folder, not a JSON file (a session folder holds its experiment in config.json)\n`,
    );
  });

  it('names an --out that cannot be written for export tensorboard and export drmas, in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-usage-'));
    writeFileSync(
      join(dir, 'metrics.jsonl'),
      JSON.stringify({ run: 'GRPO', step: 0, 'reward/mean': 0.5 }) + '\n',
    );
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const tb = lab(['export', 'tensorboard', dir, '--out', file]);
    expect(tb.status).toBe(1);
    // Without config.json the files carry no run card (said once), then the one-line error.
    expect(tb.stderr).toBe(
      `warning: ${dir} has no config.json: the event files name no run; keep each in its folder\n` +
        `error: cannot create the folder ${file}/GRPO: a part of the path is a file, not a folder (ENOTDIR)\n`,
    );
    const drmas = lab(['export', 'drmas', '--config', 'v=1&task=math', '--out', file]);
    expect(drmas.status).toBe(1);
    expect(drmas.stderr).toBe(
      `error: cannot create the folder ${file}: a file of that name is in the way (EEXIST)\n`,
    );
  });

  it('report says which lines of metrics.jsonl it skipped (a line cut off by a crash), and which file is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-usage-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ task: 'sync' }));
    const line = (run: string, step: number) => JSON.stringify({ run, step, 'reward/mean': 0.5 });
    const missing = lab(['report', dir]);
    expect(missing.status, missing.stderr).toBe(0);
    expect(missing.stderr).toBe(`warning: ${join(dir, 'metrics.jsonl')}: no such file; no step recorded\n`);
    const recorded = [
      line('GRPO', 0),
      line('Dr. MAS', 0),
      'not json',
      line('GRPO', 1),
      line('Dr. MAS', 1),
      line('GRPO', 2).slice(0, 20),
    ].join('\n');
    writeFileSync(join(dir, 'metrics.jsonl'), recorded);
    const r = lab(['report', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `warning: ${join(dir, 'metrics.jsonl')}: lines 3, 6 are not metrics records (cut off by a crash, or edited); skipped\n`,
    );
    expect(r.stdout.split('\n')[0]).toBe(`${dir}: 2 steps recorded per repeat`); // once "2–2"
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(recorded);
  });
});
