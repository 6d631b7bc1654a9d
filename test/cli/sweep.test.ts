// lab sweep, merge and report on real training (tiny sync runs): two shards merged equal the
// unsharded sweep, a sweep SIGKILLed mid-cell resumes to the same lines, report prints the map,
// and a grid value the config refuses is refused before anything runs.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lines, science, sleep } from './metrics-lines';

const LAB = ['--import', 'tsx', 'src/cli/main.ts'];
const lab = (args: string[]) =>
  spawnSync(process.execPath, [...LAB, ...args], { encoding: 'utf8', timeout: 300_000 });
const labAsync = (args: string[]) =>
  new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...LAB, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stderr }));
  });
const hash =
  'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=2&eval.questions=2&eval.k=2&seeds=2';
const STEPS = 3;
// Run 1's estimator, and its sampling (tree rollouts give it other rewards from step 0 on).
const SWEEP = [
  '--config',
  hash,
  '--grid',
  'runs.1.estimator=drmas,global-step',
  '--grid',
  'runs.1.rollout.sampling=parallel,tree',
  '--steps',
  String(STEPS),
];
const PARAMS = [
  ['drmas', 'parallel'],
  ['drmas', 'tree'],
  ['global-step', 'parallel'],
  ['global-step', 'tree'],
];
const CELLS = PARAMS.map(([e, s], i) => `cells/${i}_runs.1.estimator-${e}_runs.1.rollout.sampling-${s}`);
const LINES = 2 * 2 * STEPS; // 2 runs × 2 seeds × steps
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `agentwise-sweep-${name}-`));

describe('npm run lab -- sweep, merge, report', () => {
  let straight = '';
  beforeAll(() => {
    straight = tmp('straight');
    const r = lab(['sweep', ...SWEEP, '--out', straight, '--workers', '2', '--quiet']);
    expect(r.status, r.stderr).toBe(0);
  }, 600_000);

  it('writes sweep.json and one train folder per cell, in grid order', () => {
    const file = JSON.parse(readFileSync(join(straight, 'sweep.json'), 'utf8'));
    expect(file.cells).toEqual(
      PARAMS.map(([e, s], i) => ({
        params: { 'runs.1.estimator': e, 'runs.1.rollout.sampling': s },
        dir: CELLS[i],
      })),
    );
    expect(file.grid).toEqual([
      { key: 'runs.1.estimator', values: ['drmas', 'global-step'] },
      { key: 'runs.1.rollout.sampling', values: ['parallel', 'tree'] },
    ]);
    for (const [i, dir] of CELLS.entries()) {
      const config = JSON.parse(readFileSync(join(straight, dir, 'config.json'), 'utf8'));
      expect([config.runs[1].estimator, config.runs[1].rollout.sampling]).toEqual(PARAMS[i]);
      expect(config.steps).toBe(STEPS);
      expect(lines(join(straight, dir))).toHaveLength(LINES);
      expect(existsSync(join(straight, dir, 'summary.json'))).toBe(true);
    }
  });

  it('two shards merged equal the unsharded sweep, line for line apart from time, perf/ and mem/', async () => {
    const [a, b] = [tmp('shard0'), tmp('shard1')];
    const runs = await Promise.all(
      [a, b].map((out, i) => labAsync(['sweep', ...SWEEP, '--shard', `${i}/2`, '--out', out, '--quiet'])),
    );
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    expect(
      JSON.parse(readFileSync(join(a, 'sweep.json'), 'utf8')).cells.map((c: { dir: string }) => c.dir),
    ).toEqual([CELLS[0], CELLS[2]]);
    const merged = join(tmp('merged'), 'out');
    const m = lab(['merge', a, b, '--out', merged]);
    expect(m.status, m.stderr).toBe(0);
    expect(m.stdout).toContain('4 of 4 cells finished');
    expect(readFileSync(join(merged, 'sweep.json'), 'utf8')).toBe(
      readFileSync(join(straight, 'sweep.json'), 'utf8'),
    );
    for (const dir of CELLS) {
      const [got, want] = [lines(join(merged, dir)), lines(join(straight, dir))];
      expect(got.map(science)).toEqual(want.map(science));
      expect(readFileSync(join(merged, dir, 'config.json'), 'utf8')).toBe(
        readFileSync(join(straight, dir, 'config.json'), 'utf8'),
      );
    }

    // The same shard twice overlaps; a shard of another sweep (other steps) is refused by name.
    const twice = lab(['merge', a, a, '--out', join(tmp('twice'), 'out')]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain(`cell ${CELLS[0]} is in both ${a} and ${a}`);
    const other = JSON.parse(readFileSync(join(b, 'sweep.json'), 'utf8'));
    writeFileSync(join(b, 'sweep.json'), JSON.stringify({ ...other, config: { ...other.config, steps: 9 } }));
    const differ = lab(['merge', a, b, '--out', join(tmp('differ'), 'out')]);
    expect(differ.status).toBe(2);
    expect(differ.stderr).toContain(
      `${a} and ${b} are shards of different sweeps (they differ in steps 3 vs 9)`,
    );
  }, 600_000);

  it("a --config link's sweep keys are its dials, --grid adds more: the same sweep as --grid alone; a key in both is refused", () => {
    // The page's link sweep for the first dial, --grid for the second: one cell of it (shard 0/4) run.
    const link = `http://localhost:5173/#${hash}&sweep.runs.1.estimator=drmas,global-step`;
    const out = tmp('link');
    const args = ['sweep', '--config', link, '--grid', 'runs.1.rollout.sampling=parallel,tree'];
    const r = lab([...args, '--steps', String(STEPS), '--shard', '0/4', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const [got, want] = [join(out, 'sweep.json'), join(straight, 'sweep.json')].map((f) =>
      JSON.parse(readFileSync(f, 'utf8')),
    );
    expect(got.config).toEqual(want.config);
    expect(got.grid).toEqual(want.grid);
    expect(got.cells).toEqual([want.cells[0]]);
    expect(lines(join(out, CELLS[0])).map(science)).toEqual(lines(join(straight, CELLS[0])).map(science));

    const clash = join(tmp('clash'), 'out');
    const both = lab([...args, '--grid', 'runs.1.estimator=drmas', '--steps', '1', '--out', clash]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain(
      'error: --grid runs.1.estimator is also in the --config link as sweep.runs.1.estimator: give its values in one place',
    );
    expect(existsSync(clash)).toBe(false);
  }, 300_000);

  it('a sweep SIGKILLed mid-cell, run again, keeps finished cells and records no line twice or never', async () => {
    const out = tmp('killed');
    const args = ['sweep', ...SWEEP, '--out', out, '--workers', '1', '--checkpoint-every', '1', '--quiet'];
    const child = spawn(process.execPath, [...LAB, ...args], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let ended = false;
    void exited.then(() => (ended = true));
    // Killed once the second cell has recorded 3 of its lines: mid-step or mid-state.
    while (!ended && lines(join(out, CELLS[1])).length < 3) await sleep(20);
    expect(ended).toBe(false);
    child.kill('SIGKILL');
    await exited;
    const cut = lines(join(out, CELLS[1])).length;
    expect(cut).toBeLessThan(LINES);
    expect(existsSync(join(out, CELLS[0], 'summary.json'))).toBe(true);
    const doneAt = statSync(join(out, CELLS[0], 'metrics.jsonl')).mtimeMs;

    const again = lab(args);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain('sweep: 4 cells, 1 done earlier');
    expect(again.stderr).toContain(`${CELLS[1].slice('cells/'.length)}: resume`);
    expect(statSync(join(out, CELLS[0], 'metrics.jsonl')).mtimeMs).toBe(doneAt); // kept, not rerun
    for (const dir of CELLS)
      expect(lines(join(out, dir)).map(science)).toEqual(lines(join(straight, dir)).map(science));
  }, 600_000);

  it('Ctrl-C stops every cell in flight after its step, saving its state; the same command goes on to the same lines', async () => {
    const out = tmp('sigint');
    // --checkpoint-every 100: no periodic state before a cell's end, so only the stop can have saved one.
    const args = ['sweep', ...SWEEP, '--out', out, '--workers', '2', '--checkpoint-every', '100', '--quiet'];
    const child = spawn(process.execPath, [...LAB, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    while (lines(join(out, CELLS[0])).length < 1 || lines(join(out, CELLS[1])).length < 1) await sleep(20);
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(/SIGINT: stopping after the step in flight/);
    expect(stderr).toContain('the same command goes on from there');
    // Every run of a cell cut off that has run a step saved its state where it stood (a run
    // still at step 0 has nothing to save: it starts from step 0 again).
    const cut = CELLS.filter(
      (d) => existsSync(join(out, d, 'config.json')) && !existsSync(join(out, d, 'summary.json')),
    );
    expect(cut.length).toBeGreaterThanOrEqual(1);
    for (const dir of cut) {
      const ran = new Set(lines(join(out, dir)).map((l) => JSON.parse(l).run));
      const states = readdirSync(join(out, dir, 'checkpoints')).filter((f) => f.endsWith('.run'));
      expect(states.length).toBe(ran.size);
    }

    const again = lab(args);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/starts over/); // resumed from the saved states
    for (const dir of CELLS)
      expect(lines(join(out, dir)).map(science)).toEqual(lines(join(straight, dir)).map(science));
  }, 600_000);

  it('report on a sweep folder prints the map: a row per figure and cell, the paired difference with its CI and verdict', () => {
    const r = lab(['report', straight]);
    expect(r.status, r.stderr).toBe(0);
    const [title, head, rule, ...rows] = r.stdout.trim().split('\n');
    expect(title).toContain(`sweep of 4 cells × 2 runs × 2 seeds, ${STEPS} steps`);
    expect(head).toMatch(
      /^figure\s+runs\.1\.estimator\s+runs\.1\.rollout\.sampling\s+steps\s+seeds\s+Dr\. MAS − GRPO\s+verdict$/,
    );
    expect(rule).toMatch(/^-+ +-+/);
    const of = (figure: string) => rows.filter((row) => row.startsWith(`${figure} `));
    expect(of('eval avg@2')).toHaveLength(4);
    const reward = of('reward (last 10)');
    expect(reward).toHaveLength(4);
    // Parallel sampling on sync: drmas and global-step record GRPO's numbers exactly (one
    // broadcast reward); tree sampling draws other rollouts, so the reward differs.
    for (const i of [0, 2])
      expect(reward[i]).toMatch(
        new RegExp(
          `^reward \\(last 10\\)\\s+${PARAMS[i][0]}\\s+parallel\\s+3\\s+2\\s+0\\.000 ± 0\\.000\\s+identical$`,
        ),
      );
    for (const i of [1, 3]) {
      const m =
        /^reward \(last 10\)\s+[\w-]+\s+tree\s+3\s+2\s+(-?\d\.\d{3} ± \d\.\d{3})\s+(higher|lower|same)$/.exec(
          reward[i],
        );
      expect(m, reward[i]).not.toBeNull();
      expect(m![1]).not.toBe('0.000 ± 0.000');
      // The same numbers as the cell's own seed comparison (lab report on the cell folder).
      const cell = lab(['report', join(straight, CELLS[i])]).stdout;
      expect(cell).toMatch(new RegExp(`^reward \\(last 10\\).*  ${m![1].replace(/[.]/g, '\\.')}  `, 'm'));
    }
  }, 300_000);

  it('refuses a grid key or value the config refuses, naming it, before writing anything', () => {
    const out = join(tmp('bad'), 'out');
    const value = lab([
      'sweep',
      '--config',
      hash,
      '--grid',
      'rollout.groupSize=2,2.5',
      '--steps',
      '1',
      '--out',
      out,
    ]);
    expect(value.status).toBe(2);
    expect(value.stderr).toContain(
      'error: --grid rollout.groupSize=2.5: refused: rollout.groupSize must be a whole number',
    );
    const key = lab([
      'sweep',
      '--config',
      hash,
      '--grid',
      'optim.learningRate=0.1',
      '--steps',
      '1',
      '--out',
      out,
    ]);
    expect(key.status).toBe(2);
    expect(key.stderr).toMatch(/error: --grid optim\.learningRate=0\.1: refused: optim.*learningRate/);
    const estimator = lab([
      'sweep',
      '--config',
      hash,
      '--grid',
      'runs.1.estimator=drmas,nope',
      '--steps',
      '1',
      '--out',
      out,
    ]);
    expect(estimator.status).toBe(2);
    expect(estimator.stderr).toContain('--grid runs.1.estimator=nope: refused: runs.1.estimator');
    expect(existsSync(out)).toBe(false);
  }, 300_000);

  it('sweep --help and merge --help say how; help lists both', () => {
    expect(lab(['sweep', '--help']).stdout).toContain('--shard i/n');
    expect(lab(['merge', '--help']).stdout).toContain('npm run lab -- merge SHARD_DIR… --out DIR');
    const help = lab(['help']).stdout;
    expect(help).toMatch(/^ {2}sweep {5}trains the experiment once per cell/m);
    expect(help).toMatch(/^ {2}merge {5}joins the folders/m);
    expect(lab(['help', 'all']).stdout).toMatch(/^ {2}sweep {3}Runs the experiment once per cell/m);
  }, 300_000);
});
