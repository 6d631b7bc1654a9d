// Session folders that never lose a line: real CLI
// processes on real folders.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lines, science } from './metrics-lines';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 240_000,
  });
const hash = 'v=1&task=sync&models.base=scratch&rollout.batchSize=1&rollout.groupSize=2&eval.every=0';

describe('lab train session folders', () => {
  it('never overwrites a run: --out onto one is refused, --force moves it aside; --resume keeps its --steps', () => {
    const root = mkdtempSync(join(tmpdir(), 'agentwise-out-'));
    const dir = join(root, 'run');
    const first = lab([
      'train',
      '--config',
      hash,
      '--steps',
      '2',
      '--checkpoint-every',
      '1',
      '--out',
      dir,
      '--quiet',
    ]);
    expect(first.status, first.stderr).toBe(0);
    const recorded = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).steps).toBe(2); // the run's own count

    const again = lab(['train', '--config', hash, '--steps', '1', '--out', dir, '--quiet']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /run already holds a run \(config\.json, metrics\.jsonl, checkpoints\): --resume .* --force moves it aside/,
    );
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(recorded);

    const forced = lab(['train', '--config', hash, '--steps', '1', '--out', dir, '--force', '--quiet']);
    expect(forced.status, forced.stderr).toBe(0);
    const aside = readdirSync(root).find((f) => f.startsWith('run.old-'))!;
    expect(forced.stderr).toContain(`is now in ${join(root, aside)}`);
    expect(readFileSync(join(root, aside, 'metrics.jsonl'), 'utf8')).toBe(recorded);
    expect(lines(dir)).toHaveLength(2);

    // Resumed without --steps: the run's own 2 steps, not the config's 200 (probe 7).
    const resumed = lab(['train', '--resume', join(root, aside), '--quiet']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(readFileSync(join(root, aside, 'metrics.jsonl'), 'utf8')).toBe(recorded);
    expect(JSON.parse(readFileSync(join(root, aside, 'summary.json'), 'utf8'))[0].steps).toBe(2);
    const lower = lab(['train', '--resume', join(root, aside), '--steps', '1', '--quiet']);
    expect(lower.status).toBe(2);
    expect(lower.stderr).toMatch(/was started with --steps 2; --resume may raise it, not lower it/);
  }, 180_000);

  it('recomputes the lines missing before a saved state, says so, and takes over a dead process lock (probe 6)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-gap-'));
    const a = lab([
      'train',
      '--config',
      hash,
      '--steps',
      '3',
      '--checkpoint-every',
      '1',
      '--out',
      dir,
      '--quiet',
    ]);
    expect(a.status, a.stderr).toBe(0);
    const straight = lines(dir).map(science);
    expect(straight).toHaveLength(6);

    // Step 0's lines only, while both states are at step 3; a lock left by a killed process.
    writeFileSync(
      join(dir, 'metrics.jsonl'),
      readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n') + '\n',
    );
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(dir, '.lock'), `${dead}\n`);
    const r = lab(['train', '--resume', dir, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /resume GRPO: metrics\.jsonl lacks steps 1–2 before its state at step 3; starts over from step 0 to recompute them/,
    );
    expect(lines(dir).map(science)).toEqual(straight);
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'))[1].steps).toBe(3);
    expect(existsSync(join(dir, '.lock'))).toBe(false); // released at the end

    // Deleted altogether: the same.
    rmSync(join(dir, 'metrics.jsonl'));
    const d = lab(['train', '--resume', dir, '--quiet']);
    expect(d.status, d.stderr).toBe(0);
    expect(d.stderr).toMatch(/resume Dr\. MAS: metrics\.jsonl lacks steps 0–2/);
    expect(lines(dir).map(science)).toEqual(straight);

    // A live process holding the folder: refused.
    writeFileSync(join(dir, '.lock'), `${process.pid}\n`);
    const busy = lab(['train', '--resume', dir, '--steps', '4', '--quiet']);
    expect(busy.status).toBe(1);
    expect(busy.stderr).toMatch(new RegExp(`is in use by another lab process \\(pid ${process.pid}`));
    expect(lines(dir).map(science)).toEqual(straight);
  }, 180_000);

  it('names what is wrong with a missing, foreign or read-only folder', () => {
    const none = lab(['report', '/nonexistent']);
    expect(none.status).toBe(1);
    expect(none.stderr.trim()).toBe('error: no such folder: /nonexistent');
    const empty = mkdtempSync(join(tmpdir(), 'agentwise-empty-'));
    writeFileSync(join(empty, 'notes.txt'), '');
    expect(lab(['report', empty]).stderr).toMatch(
      /has no config\.json: not a folder written by lab train \(it holds notes\.txt\)/,
    );

    const ro = mkdtempSync(join(tmpdir(), 'agentwise-ro-'));
    mkdirSync(join(ro, 'existing'));
    chmodSync(ro, 0o555);
    chmodSync(join(ro, 'existing'), 0o555);
    // root ignores modes: an immutable folder is read-only for root too.
    const root = process.getuid?.() === 0;
    if (root) spawnSync('chattr', ['+i', ro, join(ro, 'existing')]);
    try {
      const r = lab(['train', '--config', hash, '--steps', '1', '--out', join(ro, 'run'), '--quiet']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /error: cannot create the output folder .*run: (permission denied \(EACCES\)|operation not permitted \(EPERM\))/,
      );
      const inside = lab([
        'train',
        '--config',
        hash,
        '--steps',
        '1',
        '--out',
        join(ro, 'existing'),
        '--quiet',
      ]);
      expect(inside.stderr).toMatch(
        /error: cannot write the lock file .*existing\/\.lock: (permission denied|operation not permitted)/,
      );
    } finally {
      if (root) spawnSync('chattr', ['-i', ro, join(ro, 'existing')]);
    }
  }, 180_000);
});
