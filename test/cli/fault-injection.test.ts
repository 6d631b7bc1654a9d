// Fault injection: a CLI run killed with SIGKILL at seeded random moments, five times,
// resumed after each, ends with the same metrics.jsonl as an uninterrupted run, line for line,
// apart from wall-clock and memory readings; so does one stopped with Ctrl-C (SIGINT), which saves
// every run's state where it stands. Real processes, real files.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prng } from '../../src/core/prng';
import { lines, science, sleep } from './metrics-lines';

const ARGS = ['--import', 'tsx', 'src/cli/main.ts', 'train'];
const hash =
  'v=1&task=sync&models.base=scratch&rollout.batchSize=1&rollout.groupSize=2&eval.every=4&eval.questions=2&eval.k=2';
const STEPS = 24; // 2 runs → 48 lines: enough that the fifth kill still finds the run going

/**
 * Starts `lab train args` and SIGKILLs it once metrics.jsonl has been written by it and holds at
 * least `target` lines, `extraMs` later; resolves with the line count at the kill (null if the
 * process ended first).
 */
async function killAt(args: string[], dir: string, target: number, extraMs: number): Promise<number | null> {
  const started = Date.now();
  const child = spawn(process.execPath, [...ARGS, ...args], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let ended = false;
  void exited.then(() => (ended = true));
  for (;;) {
    if (ended) return null;
    const path = join(dir, 'metrics.jsonl');
    if (existsSync(path) && statSync(path).mtimeMs >= started && lines(dir).length >= target) break;
    await sleep(20);
  }
  await sleep(extraMs);
  if (ended) return null;
  const at = lines(dir).length;
  child.kill('SIGKILL');
  await exited;
  return at;
}

describe('lab train under SIGKILL and SIGINT', () => {
  let expected: string[] = [];
  let lineMs = 0; // the uninterrupted run's time between two lines: kills are timed in these
  beforeAll(() => {
    const straight = mkdtempSync(join(tmpdir(), 'agentwise-straight-'));
    const a = spawnSync(
      process.execPath,
      [...ARGS, '--config', hash, '--steps', String(STEPS), '--out', straight, '--quiet'],
      { encoding: 'utf8' },
    );
    expect(a.status, a.stderr).toBe(0);
    expected = lines(straight);
    expect(expected).toHaveLength(2 * STEPS);
    const times = expected.map((l) => JSON.parse(l).time_s as number);
    lineMs = (1000 * (Math.max(...times) - Math.min(...times))) / (expected.length - 1);
  }, 300_000);

  it('killed five times at seeded random moments and resumed, records what an uninterrupted run records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-killed-'));
    const rng = new Prng(13);
    // Five kills, the i-th once the file holds a random count of lines in [8i + 1, 8i + 8], then a
    // random 0–3 lines' time later: mid-step, mid-line, mid-state, between two runs' saves. The
    // delay is in the run's own pace (a fixed 0–600 ms outlasted the whole run once steps took
    // 60 ms), so the kills land inside the run on a fast machine and a loaded one alike.
    const targets = Array.from({ length: 5 }, (_, i) => 8 * i + 1 + Math.floor(rng.next() * 8));
    const delays = targets.map(() => Math.floor(rng.next() * 3 * lineMs));
    const kills: (number | null)[] = [];
    for (const [i, target] of targets.entries()) {
      const args =
        i === 0
          ? ['--config', hash, '--steps', String(STEPS), '--checkpoint-every', '2', '--out', dir, '--quiet']
          : ['--resume', dir, '--checkpoint-every', '2', '--quiet'];
      kills.push(await killAt(args, dir, target, delays[i]));
    }
    console.info(
      `killed with ${kills.join(', ')} lines recorded (targets ${targets.join(', ')}; delays ${delays.join(', ')} ms; ${lineMs.toFixed(0)} ms per line)`,
    );
    expect(kills.filter((k) => k !== null).length).toBeGreaterThanOrEqual(4); // the run was still going

    const last = spawnSync(process.execPath, [...ARGS, '--resume', dir, '--quiet'], { encoding: 'utf8' });
    expect(last.status, last.stderr).toBe(0);
    const got = lines(dir);
    expect(got.map((l) => JSON.parse(l).run + ' ' + JSON.parse(l).step)).toEqual(
      expected.map((l) => JSON.parse(l).run + ' ' + JSON.parse(l).step),
    );
    expect(got.map(science)).toEqual(expected.map(science));
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.map((s: { steps: number }) => s.steps)).toEqual([STEPS, STEPS]);
  }, 600_000);

  it('Ctrl-C stops after the step in flight, saves every run where it stands, and a resume records what an uninterrupted run records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-sigint-'));
    // --checkpoint-every 100: no periodic state before the end, so only the stop can have saved one.
    const child = spawn(
      process.execPath,
      [
        ...ARGS,
        '--config',
        hash,
        '--steps',
        String(STEPS),
        '--checkpoint-every',
        '100',
        '--out',
        dir,
        '--quiet',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 240_000;
    while (lines(dir).length < 5) {
      if (Date.now() > deadline) throw new Error(`no 5 lines in 240 s; stderr: ${stderr}`);
      await sleep(20);
    }
    child.kill('SIGINT');
    const code = await exited;
    expect(code, stderr).toBe(130);
    const atStop = lines(dir);
    expect(atStop.length).toBeLessThan(2 * STEPS); // it stopped early …
    const perRun = (run: string) => atStop.filter((l) => JSON.parse(l).run === run).length;
    const states = readdirSync(join(dir, 'checkpoints')).filter((f) => f.endsWith('.run'));
    expect(states).toHaveLength(2); // … and each run saved its own state
    expect(stderr).toMatch(/SIGINT: stopping after the step in flight/);
    expect(stderr).toContain(
      `stopped at step${perRun('GRPO') === perRun('Dr. MAS') ? ` ${perRun('GRPO')}` : 's'}`,
    );
    expect(stderr).toContain(`--resume ${dir} goes on from there`);
    expect(existsSync(join(dir, 'summary.json'))).toBe(false); // the experiment did not finish

    const rest = spawnSync(process.execPath, [...ARGS, '--resume', dir, '--quiet'], { encoding: 'utf8' });
    expect(rest.status, rest.stderr).toBe(0);
    // Resumed from the states: the lines up to the stop were kept, not recomputed (no 'starts over').
    expect(rest.stderr).not.toMatch(/starts over/);
    const got = lines(dir);
    expect(got.slice(0, atStop.length)).toEqual(atStop);
    expect(got.map(science)).toEqual(expected.map(science));
  }, 600_000);
});
