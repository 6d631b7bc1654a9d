import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRESETS, presetById } from '../../src/core/presets';
import { decodeExperiment } from '../../src/core/url';
import * as metrics from './metrics-lines';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 240_000,
  });

describe('npm run lab -- train', () => {
  it('runs every run headless and writes config.json, metrics.jsonl and summary.json', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-train-'));
    const hash =
      'v=1&task=sync&models.base=scratch&models.preset=nano&rollout.batchSize=2&rollout.groupSize=4&eval.every=2&eval.questions=4&eval.k=2';
    const r = lab(['train', '--config', hash, '--steps', '2', '--backend', 'wasm', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^backend: wasm/m);
    expect(r.stdout).toMatch(/run\s+avg@2\s+pass@2\s+reward\s+skipped\s+alice \|g\| med\/max\/spikes/);
    expect(r.stdout).not.toContain('no evaluation'); // evaluated after step 2: no "—" to explain

    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.task).toBe('sync');
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
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
    // Where it ran: this checkout's commit, this machine, the backend line and the kernels' SIMD.
    const [machine, ...more] = JSON.parse(readFileSync(join(out, 'machine.json'), 'utf8'));
    expect(more).toEqual([]);
    expect(machine).toMatchObject({
      commit: execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
      cores: cpus().length,
      node: process.version,
      backend: expect.stringMatching(/^wasm/),
      simd: 'relaxed', // npm run lab turns relaxed SIMD on in Node 20
    });
    expect(typeof machine.dirty).toBe('boolean');

    // `report` prints the same table again from the folder.
    const again = lab(['report', out]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(r.stdout.split('\n').find((l) => l.startsWith('GRPO')));
  });

  it('runs the plain-SIMD kernels under LAB_SIMD=plain, says so, warns a resume that switches, and refuses a bad value', () => {
    const hash =
      'v=1&task=sync&models.base=scratch&models.preset=nano&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&runs.0.estimator=grpo';
    const labWith = (simd: string, args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        encoding: 'utf8',
        timeout: 240_000,
        env: { ...process.env, LAB_SIMD: simd },
      });
    const train = (simd: string) => {
      const out = mkdtempSync(join(tmpdir(), `agentwise-simd-${simd}-`));
      const r = labWith(simd, ['train', '--config', hash, '--steps', '1', '--out', out, '--quiet']);
      return { r, out };
    };
    const plain = train('plain');
    const relaxed = train(''); // empty is unset: relaxed
    for (const { r } of [plain, relaxed]) expect(r.status, r.stderr).toBe(0);
    expect(plain.r.stderr).toMatch(/^backend: wasm.*; kernels: plain SIMD$/m);
    expect(relaxed.r.stderr).toMatch(/^backend: wasm.*; kernels: relaxed SIMD$/m);
    const read = (out: string) => ({
      simd: JSON.parse(readFileSync(join(out, 'machine.json'), 'utf8'))[0].simd,
      line: JSON.parse(readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n')[0]),
    });
    const [p, q] = [read(plain.out), read(relaxed.out)];
    expect([p.simd, q.simd]).toEqual(['plain', 'relaxed']);
    // Another kernel set: the fused multiply-add rounds once where plain SIMD rounds twice, so the
    // same seed's KL to the reference (read through the fused kernels) is another float, the seed
    // of the drift docs/findings.md#tables-drift-across-machines describes.
    const kl = (l: Record<string, number>) => l['agent/alice/kl'];
    expect(Number.isFinite(kl(p.line))).toBe(true);
    expect(kl(p.line)).not.toBe(kl(q.line));
    expect(p.line['reward/mean']).toBe(q.line['reward/mean']); // the same step 0 otherwise

    // Going on with the plain folder on the relaxed kernels: said, and recorded as a second session.
    const on = labWith('relaxed', ['train', '--resume', plain.out, '--steps', '2', '--quiet']);
    expect(on.status, on.stderr).toBe(0);
    expect(on.stderr).toMatch(
      /^warning: this folder's last session ran the plain-SIMD kernels and this one runs the relaxed ones \(LAB_SIMD\)/m,
    );
    const sessions = JSON.parse(readFileSync(join(plain.out, 'machine.json'), 'utf8'));
    expect(sessions.map((m: { simd: string }) => m.simd)).toEqual(['plain', 'relaxed']);

    const bad = train('fma');
    expect(bad.r.status).toBe(2);
    expect(bad.r.stderr).toMatch(/LAB_SIMD must be relaxed or plain \(unset or empty: relaxed\); got "fma"/);
    expect(existsSync(join(bad.out, 'config.json'))).toBe(false);
  });

  it('trains task=plan from its shipped base models and writes eval avg@k and pass@k', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-plan-'));
    const hash =
      'v=1&task=plan&rollout.batchSize=2&rollout.groupSize=4&eval.every=2&eval.questions=4&eval.k=2';
    const r = lab(['train', '--config', hash, '--steps', '2', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    // The shipped plan models under today's names, migrated on disk: nothing to migrate on load.
    expect(r.stderr).toMatch(/model planner: shipped base \(val success 0\.45\)$/m);
    expect(r.stderr).toMatch(/model executor: shipped base \(val success 0\.45\)$/m);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.run, l.step])).toEqual([
      ['GRPO', 0],
      ['Dr. MAS', 0],
      ['GRPO', 1],
      ['Dr. MAS', 1],
    ]);
    for (const l of lines.slice(2)) {
      for (const k of ['eval/avg@2', 'eval/pass@2']) {
        expect(l[k]).toBeGreaterThanOrEqual(0);
        expect(l[k]).toBeLessThanOrEqual(1);
      }
      expect(l['eval/pass@2']).toBeGreaterThanOrEqual(l['eval/avg@2']);
      for (const agent of ['planner', 'executor'])
        expect(l[`agent/${agent}/grad_norm`]).toBeGreaterThanOrEqual(0);
      expect(Object.keys(l).filter((k) => /\/(solver|coder)\//.test(k))).toEqual([]);
    }

    // A folder written before the rename (solver/coder in config.json and metrics.jsonl) still
    // reports, under today's names, and says so once.
    const old = (text: string) => text.replaceAll('planner', 'solver').replaceAll('executor', 'coder');
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    config.reward.scale = { executor: 2 };
    config.optim.perAgent = { planner: { lr: 0.002 } };
    writeFileSync(join(out, 'config.json'), old(JSON.stringify(config)));
    writeFileSync(join(out, 'metrics.jsonl'), old(readFileSync(join(out, 'metrics.jsonl'), 'utf8')));
    const rep = lab(['report', out]);
    expect(rep.status, rep.stderr).toBe(0);
    expect(
      rep.stderr.match(/plan's agents were renamed: read coder → executor, solver → planner/g),
    ).toHaveLength(1);
    expect(rep.stdout).toMatch(/planner \|g\| med\/max\/spikes/);
    expect(rep.stdout).not.toMatch(/solver|coder/);
  });

  it('compares runs over seeds: mean ± CI per run, the paired difference and its verdict', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-seeds-'));
    const hash =
      'v=1&task=sync&models.base=scratch&rollout.batchSize=1&rollout.groupSize=2&eval.every=0&seeds=2';
    const r = lab(['train', '--config', hash, '--steps', '1', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^GRPO #1\s/m);
    expect(r.stdout).toMatch(/over 2 seeds/);
    // sync is the control: every agent acts once on the shared reward, so the runs are identical.
    expect(r.stdout).toMatch(
      /reward \(last 10\)\s+\S+ ± \S+\s+\S+ ± \S+\s+0\.000 ± 0\.000\s+identical on all 2 seeds/,
    );
  });

  it('emits every metric key for every agent, finite where defined, and is deterministic on cpu', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-det-'));
    // The same run twice under two labels: everything but wall-clock figures must match exactly.
    const hash =
      'v=1&task=math&rollout.batchSize=1&rollout.groupSize=4&eval.every=0' +
      '&runs.0.label=A&runs.0.estimator=drmas&runs.1.label=B&runs.1.estimator=drmas';
    const r = lab(['train', '--config', hash, '--steps', '2', '--backend', 'cpu', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const perStat = [
      'calls',
      'reward/mean',
      'adv/mean',
      'adv/sq_mean',
      'grad_norm',
      'pg_loss',
      'clipfrac',
      'kl',
      'entropy',
      'resp_len',
    ];
    for (const line of lines) {
      for (const agent of ['solver', 'verifier']) {
        expect(line).toHaveProperty(`model/${agent}/grad_norm`);
        for (const stat of perStat) expect(line).toHaveProperty(`agent/${agent}/${stat}`);
      }
      // The solver acts in every trajectory: its statistics are always defined and finite.
      for (const stat of perStat) expect(Number.isFinite(line[`agent/solver/${stat}`]), stat).toBe(true);
      for (const k of [
        'reward/mean',
        'success/rate',
        'groups/singleton_frac',
        'perf/tokens_per_s',
        'mem/tensors',
      ]) {
        expect(Number.isFinite(line[k]), k).toBe(true);
      }
    }
    const science = (l: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(l).filter(
          ([k]) => k !== 'run' && k !== 'time_s' && !k.startsWith('perf/') && !k.startsWith('mem/'),
        ),
      );
    expect(lines.map((l) => l.run)).toEqual(['A', 'B', 'A', 'B']);
    expect(science(lines[0])).toEqual(science(lines[1]));
    expect(science(lines[2])).toEqual(science(lines[3]));
  });

  it('lists the presets (the page’s list) and trains one by id', () => {
    const listed = JSON.parse(lab(['presets', '--json']).stdout) as {
      id: string;
      task: string;
      hash: string;
    }[];
    expect(listed.map((p) => p.id)).toEqual(PRESETS.map((p) => p.id));
    expect(listed.map((p) => p.id)).toEqual(
      expect.arrayContaining(['sync', 'step-vs-agent', 'heterogeneous']),
    );
    for (const p of listed) {
      const decoded = decodeExperiment(p.hash);
      expect(decoded.ok && decoded.config).toEqual(presetById(p.id)!.config);
    }
    const out = mkdtempSync(join(tmpdir(), 'agentwise-preset-'));
    const r = lab(['train', '--preset', 'search-routing', '--steps', '1', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'))).toEqual({
      ...presetById('search-routing')!.config,
      steps: 1,
    });
    expect(r.stderr).toMatch(/model verifier: shipped base/);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.run)).toEqual(['GRPO', 'Step-level', 'Dr. MAS']);
    for (const agent of ['verifier', 'search', 'answer']) {
      for (const key of ['grad_norm', 'amplification', 'amplification_rows', 'shadow/drmas/corr']) {
        expect(Number.isFinite(lines[0][`agent/${agent}/${key}`]), `agent/${agent}/${key}`).toBe(true);
      }
    }
    const bad = lab(['train', '--preset', 'nope', '--steps', '1', '--out', out]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--preset: no preset "nope"; one of: drmas-vs-grpo, step-vs-agent, sync/);
  });

  it('starts from --init checkpoints and refuses one that fits no model', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-init-'));
    const hash = 'v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=0';
    const ok = lab([
      'train',
      '--config',
      hash,
      '--steps',
      '1',
      '--init',
      'models/sync/per-agent/bob.ckpt',
      '--out',
      out,
      '--quiet',
    ]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/model bob: checkpoint file bob\.ckpt/);
    expect(ok.stderr).toMatch(/model alice: shipped base/);
    const other = mkdtempSync(join(tmpdir(), 'agentwise-init-'));
    const bad = lab([
      'train',
      '--config',
      hash,
      '--steps',
      '1',
      '--init',
      'models/search/per-agent/answer.ckpt',
      '--out',
      other,
      '--quiet',
    ]);
    expect(bad.status).toBe(2); // a bad --init is a bad command line
    expect(bad.stderr).toMatch(/answer\.ckpt fits no model of this experiment \(models: alice, bob\)/);
  });

  it('resumes after a crash from the saved states and recomputes the lost steps identically', () => {
    const hash = 'v=1&task=sync&models.base=scratch&rollout.batchSize=2&rollout.groupSize=4&eval.every=0';
    const read = (dir: string) => metrics.lines(dir).map((l) => JSON.parse(l));

    const straight = mkdtempSync(join(tmpdir(), 'agentwise-straight-'));
    const a = lab([
      'train',
      '--config',
      hash,
      '--steps',
      '4',
      '--checkpoint-every',
      '0',
      '--out',
      straight,
      '--quiet',
    ]);
    expect(a.status, a.stderr).toBe(0);
    expect(existsSync(join(straight, 'checkpoints'))).toBe(false);

    // A run that saved its states at step 2, recorded step 2 too, then died mid-line.
    const crashed = mkdtempSync(join(tmpdir(), 'agentwise-crashed-'));
    const b = lab([
      'train',
      '--config',
      hash,
      '--steps',
      '2',
      '--checkpoint-every',
      '2',
      '--out',
      crashed,
      '--quiet',
    ]);
    expect(b.status, b.stderr).toBe(0);
    expect(existsSync(join(crashed, 'checkpoints', '1-Dr_MAS.run'))).toBe(true);
    const upToStep2 = readFileSync(join(straight, 'metrics.jsonl'), 'utf8').trim().split('\n').slice(0, 6);
    writeFileSync(join(crashed, 'metrics.jsonl'), upToStep2.join('\n') + '\n{"run":"GRPO","st');

    const r = lab(['train', '--resume', crashed, '--steps', '4', '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resume GRPO: resumes at step 2 \(saved on wasm\)/);
    const got = read(crashed);
    expect(got.map((l) => [l.run, l.step])).toEqual(read(straight).map((l) => [l.run, l.step]));
    expect(metrics.lines(crashed).map(metrics.science)).toEqual(metrics.lines(straight).map(metrics.science));
    const summary = JSON.parse(readFileSync(join(crashed, 'summary.json'), 'utf8'));
    expect(summary[1].steps).toBe(4); // the summary covers the steps before the crash too
    // Each session that trained the folder says where it ran: the first and the resume.
    expect(JSON.parse(readFileSync(join(crashed, 'machine.json'), 'utf8'))).toHaveLength(2);

    // Two runs' states swapped: refused, naming the file and the run it holds.
    const [s0, s1] = ['0-GRPO.run', '1-Dr_MAS.run'].map((f) => readFileSync(join(crashed, 'checkpoints', f)));
    writeFileSync(join(crashed, 'checkpoints', '0-GRPO.run'), s1);
    writeFileSync(join(crashed, 'checkpoints', '1-Dr_MAS.run'), s0);
    const swapped = lab(['train', '--resume', crashed, '--quiet']);
    expect(swapped.status).toBe(1);
    expect(swapped.stderr).toMatch(
      /0-GRPO\.run: holds run 1 \(Dr\. MAS, seed 0\); expected run 0 \(GRPO, seed 0\)/,
    );

    // A damaged state is refused, naming the file.
    writeFileSync(join(crashed, 'checkpoints', '0-GRPO.run'), 'AGWRUN01 nothing here');
    const bad = lab(['train', '--resume', crashed, '--quiet']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/0-GRPO\.run: Agentwise run state truncated/);
  }, 180_000); // six CLI processes

  it('exits 2 naming the bad field of a bad config, and prints help', () => {
    const bad = lab(['train', '--config', 'v=1&rollout.groupSize=1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/rollout\.groupSize must be at least 2; got '1'/);
    const help = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--help'], {
      encoding: 'utf8',
    });
    // --help is the summary: train's line names its three ways in; help train has the rest (suggest.test.ts).
    expect(help).toMatch(
      /^ {2}train +trains an experiment's runs: --preset ID, --config <file \| URL \| hash>, or --workflow F$/m,
    );
  });
});
