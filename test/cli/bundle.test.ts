/**
 * `npm run lab -- bundle RUN_DIR --out FILE` (docs/sharing.md#making-one): a real train folder, a
 * real sweep folder and an import folder, each bundled and read back with the page's reader: every
 * recorded value to the last bit, the repeats' seeds and the live change, the same Findings table
 * `lab report` prints and, for the sweep, the same Map; and the refusals.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeEventFile } from '../../src/interop/tensorboard';
import { comparisonTable, nanAsNull, textTable } from '../../src/report/findings';
import { readResult } from '../../src/report/result-file';
import { cli, tinyScaleSweep } from './map-sweep';

const TINY_SEEDS =
  'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=2&eval.questions=2&eval.k=2&seeds=2' +
  '&runs.1.live.1.optim.lr=0.002';

const bundled = (dir: string) => {
  const out = join(dir, '..', `${Date.now()}-${Math.random()}.lab.json.gz`);
  const r = cli(['bundle', dir, '--out', out]);
  expect(r.status, r.stderr).toBe(0);
  return { out, stdout: r.stdout, result: readResult(readFileSync(out)) };
};

describe('npm run lab -- bundle', () => {
  it('a train folder: every line of metrics.jsonl to the last bit, seeds, the live change, machine.json, and lab report’s Findings', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentwise-bundle-')), 'run');
    const trained = cli(['train', '--config', TINY_SEEDS, '--steps', '3', '--out', dir, '--quiet']);
    expect(trained.status, trained.stderr).toBe(0);
    const { out, stdout, result } = bundled(dir);
    const { body, sha256 } = result;
    expect(stdout).toBe(`${out}: 4 runs, 12 frames, ${stdout.match(/[\d.]+ MB/)![0]}; sha256 ${sha256}\n`);
    expect(body.runs.map((r) => [r.label, r.seed, r.runIndex, r.frames.length])).toEqual([
      ['GRPO #0', 0, 0, 3],
      ['GRPO #1', 1, 0, 3],
      ['Dr. MAS #0', 0, 1, 3],
      ['Dr. MAS #1', 1, 1, 3],
    ]);
    expect(body.runs[2].markers).toEqual([{ step: 1, param: 'lr', value: 0.002 }]);
    expect(body.experiments[0].experiment?.runs[1].live).toEqual({ 1: { optim: { lr: 0.002 } } });
    // Every value of every line, bit for bit (JSON's null: no value, NaN in the frame).
    const lines = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const line of lines) {
      const run = body.runs.find((r) => r.label === line.run)!;
      const frame = run.frames.find((f) => f[run.keys.indexOf('step')] === line.step)!;
      for (const [k, v] of Object.entries(line)) {
        if (k === 'run') continue;
        const got = frame[run.keys.indexOf(k)];
        if (v === null) expect(got, `${line.run} ${k}`).toBeNaN();
        else expect(got, `${line.run} ${k}`).toBe(v);
      }
    }
    const machines = JSON.parse(readFileSync(join(dir, 'machine.json'), 'utf8'));
    expect(body.machines).toEqual([
      {
        ...{ date: machines[0].date, commit: machines[0].commit, dirty: machines[0].dirty },
        ...{ cpu: machines[0].cpu, cores: machines[0].cores, platform: machines[0].platform },
        ...{ runtime: `node ${machines[0].node}`, backend: machines[0].backend },
        kernels: `wasm SIMD: ${machines[0].simd}`,
      },
    ]);
    const report = cli(['report', dir]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toContain(comparisonTable(body.experiments[0].findings));
    expect(body.experiments[0].whatDiffers?.run).toBe('GRPO #0');
    // Each run's latest rollouts, as lab train wrote them at its end: the last step's one group of
    // two trajectories, each turn of the sync task's agents.
    expect(body.runs.map((r) => r.rollouts.map((x) => [x.step, x.trajectories.length]))).toEqual([
      [[2, 2]],
      [[2, 2]],
      [[2, 2]],
      [[2, 2]],
    ]);
    for (const r of body.runs)
      for (const t of r.rollouts[0].trajectories) {
        expect(t.turns.map((u) => u.agent)).toEqual(['alice', 'bob']);
        for (const u of t.turns) expect(u.logp.length, r.label).toBeGreaterThan(0);
      }
    const written = JSON.parse(readFileSync(join(dir, 'rollouts', '2-Dr_MAS_0.json'), 'utf8'));
    expect(JSON.parse(JSON.stringify(body.runs[2].rollouts[0], nanAsNull))).toEqual(written);
  });

  it('a train folder whose rollout sample is damaged: said, and bundled without that one', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentwise-bundle-')), 'run');
    expect(cli(['train', '--config', TINY_SEEDS, '--steps', '1', '--out', dir, '--quiet']).status).toBe(0);
    const damaged = join(dir, 'rollouts', '1-GRPO_1.json');
    writeFileSync(damaged, '{"step": 0, "trajectories": [{"__proto__": 1}]}');
    const out = join(dir, '..', 'damaged.lab.json.gz');
    const r = cli(['bundle', dir, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: ${damaged}: not a rollout sample this lab writes; GRPO #1 is bundled without one`,
    );
    const { body } = readResult(readFileSync(out));
    expect(body.runs.map((x) => x.rollouts.length)).toEqual([1, 0, 1, 1]);
  });

  it('a sweep folder: each cell an experiment with its runs, and the Map lab report prints', () => {
    const sweep = tinyScaleSweep();
    expect(sweep.status, sweep.stderr).toBe(0);
    const { stdout, result } = bundled(sweep.out);
    const { body } = result;
    expect(stdout).toContain(': 4 cells, 16 runs, 48 frames,');
    expect(body.experiments.map((e) => e.params)).toEqual([
      { 'models.assignment': 'shared', 'reward.scale.alice': 1 },
      { 'models.assignment': 'shared', 'reward.scale.alice': 4 },
      { 'models.assignment': 'per-agent', 'reward.scale.alice': 1 },
      { 'models.assignment': 'per-agent', 'reward.scale.alice': 4 },
    ]);
    expect(body.runs.map((r) => r.experiment)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    const report = cli(['report', sweep.out]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toContain(textTable(body.sweep!.map));
  });

  it('an import folder: its runs and seeds as import.json names them, no experiment', () => {
    const root = mkdtempSync(join(tmpdir(), 'agentwise-bundle-'));
    for (const [group, seed] of [
      ['grpo', 1],
      ['grpo', 2],
      ['drmas', 1],
      ['drmas', 2],
    ] as const) {
      mkdirSync(join(root, 'logs', group, `seed${seed}`), { recursive: true });
      const rows = [0, 1, 2].map((step) => ({ step, 'critic/score/mean': step / 4 + seed / 10 }));
      writeFileSync(
        join(root, 'logs', group, `seed${seed}`, 'events.out.tfevents.1.h'),
        writeEventFile(rows, 1e9),
      );
    }
    expect(cli(['import', join(root, 'logs'), '--out', join(root, 'imported')]).status).toBe(0);
    const { body } = bundled(join(root, 'imported')).result;
    expect(body.runs.map((r) => [r.label, r.seed, r.runIndex, r.frames.length])).toEqual([
      ['drmas #1', 1, -1, 3],
      ['drmas #2', 2, -1, 3],
      ['grpo #1', 1, -1, 3],
      ['grpo #2', 2, -1, 3],
    ]);
    expect(body.experiments[0].experiment).toBeNull();
    expect(body.experiments[0].findings.runs).toEqual(['drmas', 'grpo']);
    const report = cli(['report', join(root, 'imported')]);
    expect(report.stdout).toContain(comparisonTable(body.experiments[0].findings));
  });

  it('refuses a folder it cannot bundle, and keeps an existing --out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-bundle-'));
    const empty = cli(['bundle', dir, '--out', join(dir, 'x.lab.json.gz')]);
    expect(empty.status).toBe(1);
    expect(empty.stderr.trim()).toBe(
      `error: ${dir} holds no sweep.json, import.json or config.json: not a folder lab sweep, import or train wrote`,
    );
    writeFileSync(join(dir, 'kept.lab.json.gz'), 'mine');
    writeFileSync(join(dir, 'config.json'), '{}');
    const kept = cli(['bundle', dir, '--out', join(dir, 'kept.lab.json.gz')]);
    expect(kept.status).toBe(1);
    expect(kept.stderr.trim()).toBe(
      `error: ${join(dir, 'kept.lab.json.gz')} exists: --force replaces it, or choose another --out`,
    );
    expect(readFileSync(join(dir, 'kept.lab.json.gz'), 'utf8')).toBe('mine');
    expect(cli(['bundle', '--out', 'x']).stderr.trim()).toBe(
      'error: usage: npm run lab -- bundle RUN_DIR --out FILE [--force]',
    );
  });
});
