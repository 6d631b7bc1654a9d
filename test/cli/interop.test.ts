import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { metricsCsv, metricsJson, readRunCard } from '../../src/interop/lab-exports';
import { readEventFile, writeEventFile } from '../../src/interop/tensorboard';
import { taskOf } from '../../src/tasks/registry';
import { bytesOf, event, record, simple } from '../interop/hand-assembled';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });

/** A train --out folder as the CLI writes it (two runs, two steps, eval only at step 1). */
function runFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-interop-'));
  writeFileSync(join(dir, 'config.json'), '{}\n');
  const lines = [
    {
      run: 'GRPO',
      step: 0,
      time_s: 1.5,
      'reward/mean': 0.3,
      'agent/verifier/grad_norm': 0.123456789,
      'eval/avg@8': null,
    },
    {
      run: 'Dr. MAS',
      step: 0,
      time_s: 1.6,
      'reward/mean': 0.4,
      'agent/verifier/grad_norm': 2.5,
      'eval/avg@8': null,
    },
    {
      run: 'GRPO',
      step: 1,
      time_s: 3.0,
      'reward/mean': 0.35,
      'agent/verifier/grad_norm': 1e-9,
      'eval/avg@8': 0.625,
    },
    {
      run: 'Dr. MAS',
      step: 1,
      time_s: 3.2,
      'reward/mean': 0.45,
      'agent/verifier/grad_norm': 3,
      'eval/avg@8': 0.7,
    },
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
    expect(scan).toMatchObject({ records: 4, skipped: 0, truncatedBytes: 0 }); // version, card, 2 steps
    // The card names the run from the folder's config (config.json `{}`: the default experiment).
    expect(readRunCard(scan.card!)).toEqual({
      label: 'GRPO',
      seed: DEFAULT_EXPERIMENT.seed,
      agents: taskOf(DEFAULT_EXPERIMENT).agents.map((a) => a.role),
      markers: [],
    });
    expect(scan.rows.map(({ time_s: _t, ...rest }) => rest)).toEqual([
      { step: 0, 'reward/mean': Math.fround(0.3), 'agent/verifier/grad_norm': Math.fround(0.123456789) },
      {
        step: 1,
        'reward/mean': Math.fround(0.35),
        'agent/verifier/grad_norm': Math.fround(1e-9),
        'eval/avg@8': 0.625,
      },
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

describe('npm run lab -- import', () => {
  it('reads exported lab runs back to their float32 values, and a damaged cluster file up to the damage', () => {
    const dir = runFolder();
    const tb = join(dir, 'tb');
    expect(lab(['export', 'tensorboard', dir, '--out', tb]).status).toBe(0);
    const damaged = join(dir, 'cluster', 'drmas');
    mkdirSync(damaged, { recursive: true });
    const bad = record(event(2, 1002, [simple('critic/score/mean', 9)]));
    bad[bad.length - 1] ^= 1;
    writeFileSync(
      join(damaged, 'events.out.tfevents.1.node0'),
      bytesOf(
        record(event(1, 1001, [simple('critic/score/mean', 0.5)])),
        bad,
        record(event(3, 1003, [simple('critic/score/mean', 1)])).slice(0, 20),
      ),
    );
    const out = join(dir, 'imported');
    const r = lab(['import', tb, join(damaged, 'events.out.tfevents.1.node0'), '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'drmas: 1 steps from 1 file(s), 1 records; damaged: 1 records skipped, 20 bytes of a cut-off tail',
    );

    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const original = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const o of original) {
      const back = lines.find((l) => l.run === o.run && l.step === o.step);
      for (const [k, v] of Object.entries(o)) {
        if (k === 'run' || k === 'step' || k === 'time_s') continue;
        if (v === null) expect(back).not.toHaveProperty([k]);
        else expect(back[k], `${o.run} ${k}`).toBe(Math.fround(v as number));
      }
    }
    expect(lines.find((l) => l.run === 'drmas')).toEqual({
      run: 'drmas',
      step: 1,
      time_s: 0,
      'reward/mean': 0.5,
    });
    const summary = JSON.parse(readFileSync(join(out, 'import.json'), 'utf8'));
    expect(summary.runs.map((x: { label: string; steps: number }) => [x.label, x.steps])).toEqual([
      ['Dr. MAS', 2],
      ['GRPO', 2],
      ['drmas', 1],
    ]);
  });

  it('reads every export of a run folder back as its runs and seeds: TensorBoard as a folder or loose, CSV, JSON', () => {
    const dir = runFolder();
    const tb = join(dir, 'tb');
    expect(lab(['export', 'tensorboard', dir, '--out', tb]).status).toBe(0);
    const original = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number | string | null>);
    // The page's CSV and JSON of the same runs (seed: the default experiment's, as the card says).
    const seed = DEFAULT_EXPERIMENT.seed;
    const runs = ['GRPO', 'Dr. MAS'].map((label) => {
      const rows = original
        .filter((o) => o.run === label)
        .map(({ run: _r, ...row }) =>
          Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)),
        ) as Record<string, number>[];
      const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
      return { label, seed, agents: ['verifier'], markers: [], keys, rows };
    });
    writeFileSync(join(dir, 'm.csv'), metricsCsv(runs));
    writeFileSync(join(dir, 'm.json'), metricsJson(DEFAULT_EXPERIMENT, '#', runs));
    const [file] = readdirSync(join(tb, 'GRPO'));
    const cases: [string, string[], (v: number) => number][] = [
      ['tb-folder', [tb], Math.fround],
      ['tb-loose', [join(tb, 'GRPO', file), join(tb, 'Dr. MAS', file)], Math.fround],
      ['csv', [join(dir, 'm.csv')], (v) => v],
      ['json', [join(dir, 'm.json')], (v) => v],
    ];
    for (const [name, inputs, value] of cases) {
      const out = join(dir, name);
      const r = lab(['import', ...inputs, '--out', out]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, name).toBe('');
      const back = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(back.length, name).toBe(original.length);
      for (const o of original) {
        const b = back.find((l) => l.run === o.run && l.step === o.step);
        for (const [k, v] of Object.entries(o)) {
          if (k === 'run' || k === 'step' || (k === 'time_s' && name.startsWith('tb'))) continue;
          if (v === null) expect(b).not.toHaveProperty([k]);
          else expect(b[k], `${name}: ${o.run} ${k}`).toBe(value(v as number));
        }
      }
      const summary = JSON.parse(readFileSync(join(out, 'import.json'), 'utf8'));
      const seen = summary.runs.map((x: { label: string; seed: number }) => [x.label, x.seed]).sort();
      expect(seen, name).toEqual([
        ['Dr. MAS', seed],
        ['GRPO', seed],
      ]);
    }
    // Two exports of one run are never merged: the second is refused, saying why.
    const both = lab(['import', join(dir, 'm.csv'), join(dir, 'm.json'), '--out', join(dir, 'both')]);
    expect(both.status).toBe(0);
    expect(both.stderr).toContain(
      `${join(basename(dir), 'm.json')}: refused: holds run "GRPO", as does ${join(basename(dir), 'm.csv')}`,
    );
  });

  it('never writes over a run: --out onto a train or import folder is refused, --force moves it aside', () => {
    const dir = runFolder();
    const tb = join(dir, 'tb');
    expect(lab(['export', 'tensorboard', dir, '--out', tb]).status).toBe(0);
    const recorded = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');

    const onto = lab(['import', tb, '--out', dir]);
    expect(onto.status).toBe(1);
    expect(onto.stderr.trim()).toBe(
      `error: ${dir} already holds a run (config.json, metrics.jsonl): --resume ${dir} goes on with it, --force moves it aside, or choose another --out`,
    );
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(recorded);
    expect(existsSync(join(dir, 'import.json'))).toBe(false);
    // train refuses it before it picks a backend and loads models (a minute on a big config): after
    // the memory estimate, the error is all it prints.
    const train = lab(['train', '--preset', 'sync', '--steps', '1', '--out', dir]);
    expect(train.status).toBe(1);
    expect(train.stderr.trim().split('\n').at(-1)).toBe(onto.stderr.trim());
    expect(train.stderr).not.toContain('backend:');
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(recorded);

    const out = join(dir, 'imported');
    expect(lab(['import', tb, '--out', out]).status).toBe(0);
    const imported = readFileSync(join(out, 'metrics.jsonl'), 'utf8');
    const again = lab(['import', join(tb, 'GRPO'), '--out', out]);
    expect(again.status).toBe(1);
    expect(again.stderr.trim()).toBe(
      `error: ${out} already holds a run (metrics.jsonl, import.json): --force moves it aside, or choose another --out`,
    );
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toBe(imported);

    const forced = lab(['import', join(tb, 'GRPO'), '--out', out, '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    const aside = readdirSync(dir).find((f) => f.startsWith('imported.old-'))!;
    expect(forced.stderr).toContain(`--force: the run that was in ${out} is now in ${join(dir, aside)}`);
    expect(readFileSync(join(dir, aside, 'metrics.jsonl'), 'utf8')).toBe(imported);
    expect(
      readFileSync(join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).run),
    ).toEqual(['GRPO', 'GRPO']);
  });
});

describe('npm run lab -- report on an import folder', () => {
  it('summarizes imported runs with their own agents and eval K, and compares groups over the seeds in their folder names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-report-'));
    const evals = { grpo: [0.5, 0.625, 0.75], drmas: [0.75, 0.875, 1] };
    for (const [group, finals] of Object.entries(evals)) {
      finals.forEach((final, i) => {
        const folder = join(dir, 'logs', group, `seed${i + 1}`);
        mkdirSync(folder, { recursive: true });
        const rows = [0, 1].map((step) => ({
          step,
          'val/avg@16': step ? final : 0,
          'actor/Qwen3-4B_SolverAgent/grad_norm': 2 + step,
          'critic/score/mean': 0.5,
        }));
        writeFileSync(join(folder, 'events.out.tfevents.1.node0'), writeEventFile(rows, 1e9));
      });
    }
    const out = join(dir, 'imported');
    expect(lab(['import', join(dir, 'logs'), '--out', out]).status).toBe(0);
    const r = lab(['report', out]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`${out}: imported, 2 steps per run`); // once "2–2"
    expect(lines[1]).toMatch(
      /^run\s+avg@16\s+pass@16\s+reward\s+skipped\s+solver \|g\| med\/max\/spikes\s*$/,
    );
    expect(lines.find((l) => l.startsWith('grpo #2 '))).toMatch(
      /^grpo #2\s+0\.625\s+—\s+0\.500\s+0\s+2\.500\/3\.000\/0\s*$/,
    );
    expect(r.stdout).toContain('over 3 seeds');
    // Runs in folder order (drmas first, the baseline); 0.875 ± t(2)·0.125/√3 = 0.311; grpo − drmas = −0.25 on every seed.
    expect(lines.find((l) => l.startsWith('eval avg@16'))).toMatch(
      /^eval avg@16\s+0\.875 ± 0\.311\s+0\.625 ± 0\.311\s+-0\.250 ± 0\.000\s+grpo lower by 0\.250 \[0\.250, 0\.250\]$/,
    );
    expect(lines.some((l) => l.startsWith('reward (last 10)'))).toBe(true);
    const tail = lab(['report', out, '--tail', '1']);
    expect(tail.status, tail.stderr).toBe(0);
    expect(tail.stdout.split('\n').find((l) => l.startsWith('reward (last 1)'))).toMatch(
      /^reward \(last 1\)\s+0\.500 ± 0\.000\s+0\.500 ± 0\.000\s+0\.000 ± 0\.000\s+identical on all 3 seeds$/,
    );
  });

  it('refuses a folder that is neither a train nor an import folder, naming what it holds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-report-'));
    writeFileSync(join(dir, 'notes.txt'), 'x');
    const r = lab(['report', dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${dir} has no config.json`);
  });
});

describe('npm run lab -- export drmas', () => {
  it('writes a launch script per run, wg_ids.json and a README saying how to prepare, run and read back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwise-drmas-'));
    const r = lab(['export', 'drmas', '--config', 'v=1&task=math', '--out', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([
      'README.md',
      'run_math_dr_mas.sh',
      'run_math_grpo.sh',
      'wg_ids.json',
    ]);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    for (const needle of [
      'python examples/data_preprocess/drmas_math.py',
      'ray job submit --working-dir <DrMAS checkout> -- bash run_math_grpo.sh',
      'examples/slurm/ray_on_slurm.slurm',
      '4 × H100',
      'Qwen/Qwen3-4B',
      'npm run lab -- import <DrMAS checkout>/tensorboard_log/DrMAS_math --wg-map wg_ids.json',
    ]) {
      expect(readme).toContain(needle);
    }
    expect(JSON.parse(readFileSync(join(dir, 'wg_ids.json'), 'utf8'))).toEqual({
      'Qwen3-4B_SolverAgent': ['solver'],
      'Qwen3-4B_VerifierAgent': ['verifier'],
    });
  });

  it('refuses an estimator Dr. MAS cannot run, naming the field', () => {
    const r = lab([
      'export',
      'drmas',
      '--config',
      'v=1&task=math&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Step&runs.1.estimator=global-step',
      '--out',
      mkdtempSync(join(tmpdir(), 'agentwise-drmas-')),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /Dr\. MAS cannot run this experiment:\n\s+runs\.1\.estimator: 'global-step' has no Dr\. MAS counterpart/,
    );
  });
});
