// `npm run studies`'s manifest and table header (scripts/studies-manifest.ts): every study's
// command is one the lab accepts, states the steps and seeds it runs, and is the command
// docs/findings.md gives; the units cover every sweep cell once across shards; the header names
// the commit, the machines and a smoke run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Machine } from '../../src/cli/machine';
import { decodeExperiment } from '../../src/core/url';
import { splitSweep } from '../../src/core/url-sweep';
import { planCells, parseDial } from '../../src/rl/sweep';
import { balanceRefusal, callsPerTrajectory } from '../../scripts/studies-calls';
import {
  asRun,
  cellCount,
  shardUnits,
  STUDIES,
  studyCommands,
  tableHeader,
  units,
  withField,
} from '../../scripts/studies-manifest';
import { compareVerdicts, comparisonText, readVerdicts, verdictWord } from '../../scripts/studies-compare';

const findings = readFileSync('docs/findings.md', 'utf8');
const decode = (link: string) => {
  const r = decodeExperiment(link);
  if (!r.ok) throw new Error(`${link}: ${JSON.stringify(r.errors)}`);
  return r.config;
};

describe('the studies manifest', () => {
  it("every study's config and grid are accepted, with the seeds it states, and the names are unique", () => {
    expect(new Set(STUDIES.map((s) => s.name)).size).toBe(STUDIES.length);
    for (const s of STUDIES) {
      expect(splitSweep(s.config).sweep, s.name).toEqual([]);
      const config = decode(s.config);
      expect(config.seeds, s.name).toBe(s.seeds);
      if (s.kind === 'sweep') {
        const cells = planCells({ ...config, steps: s.steps }, s.grid.map(parseDial));
        expect(cells.length, s.name).toBe(cellCount(s));
      } else expect(s.grid).toEqual([]);
    }
  });

  it("a tabled train study's config is the one docs/findings.md prints, pair for pair", () => {
    // findings.md prints `--config '<link>'`: the manifest's link must be among them (as a set of
    // pairs, so the same experiment), or the regenerated table is another study's.
    const printed = [...findings.matchAll(/--config '([^']+)'/g)].map((m) => new Set(m[1].split('&')));
    for (const s of STUDIES.filter((x) => x.tabled && x.kind === 'train')) {
      const pairs = s.config.split('&');
      expect(
        printed.some((p) => p.size === pairs.length && pairs.every((q) => p.has(q))),
        s.name,
      ).toBe(true);
    }
    // The dial studies' CFG and grids, as the page's command block gives them.
    const cfg = /CFG='([^']+)'/.exec(findings)![1];
    for (const s of STUDIES.filter((x) => x.kind === 'sweep' && x.name.match(/^(scale|offset)/)))
      expect(s.config.startsWith(cfg), s.name).toBe(true);
    expect(findings).toContain(
      '--grid models.assignment=shared,per-agent --grid reward.scale.alice=1,2,4,8,16,32',
    );
    expect(findings).toContain('--grid reward.offset.alice=0,0.25,0.5,1,2,4');
  });

  it('a smoke run overrides steps and seeds in the commands it runs', () => {
    const sync = STUDIES.find((s) => s.name === 'sync')!;
    const smoke = asRun(sync, { steps: 2, seeds: 1 });
    expect(decode(smoke.config).seeds).toBe(1);
    const [u] = units([smoke], 'o');
    expect(u.args).toEqual([
      'train',
      '--config',
      smoke.config,
      '--steps',
      '2',
      '--out',
      'o/sync/run',
      '--quiet',
    ]);
    expect(asRun(sync, { steps: null, seeds: null })).toEqual(sync);
    expect(withField('v=1&seeds=5&x=1', 'seeds', '2')).toBe('v=1&seeds=2&x=1');
    expect(withField('v=1', 'seeds', '2')).toBe('v=1&seeds=2');
  });

  it('shards cover every unit once: a train folder each, a sweep cell each as --shard c/cells', () => {
    const all = units(STUDIES, 'o');
    const cells = STUDIES.reduce((n, s) => n + (s.kind === 'train' ? 1 : cellCount(s)), 0);
    expect(all).toHaveLength(cells);
    const sliced = [0, 1, 2].flatMap((index) => shardUnits(all, { index, count: 3 }));
    expect(sliced.map((u) => u.dir).sort()).toEqual(all.map((u) => u.dir).sort());
    expect(new Set(all.map((u) => u.dir)).size).toBe(all.length);
    const check = all.filter((u) => u.study.name === 'scale-check');
    expect(check.map((u) => [u.dir, u.args.slice(-5)])).toEqual([
      ['o/scale-check/cell-0', ['--shard', '0/2', '--out', 'o/scale-check/cell-0', '--quiet']],
      ['o/scale-check/cell-1', ['--shard', '1/2', '--out', 'o/scale-check/cell-1', '--quiet']],
    ]);
  });

  it('the table header names the study, the commit it was written at, each machine once and a smoke run', () => {
    const machine = (cpu: string, simd: Machine['simd']): Machine => ({
      date: '2026-01-01T00:00:00.000Z',
      commit: '0123456789abcdef',
      dirty: false,
      cpu,
      cores: 2,
      platform: 'linux x64',
      node: 'v20.19.0',
      backend: 'wasm',
      simd,
    });
    const a = machine('AMD EPYC 7B13', 'relaxed');
    const s = STUDIES.find((x) => x.name === 'scale-check')!;
    const header = tableHeader(
      s,
      'sweeps/studies',
      { date: '2026-02-02T00:00:00.000Z', commit: 'fedcba9876543210', dirty: true },
      [[a], [a, a], [machine('Intel Xeon', 'plain')], []],
      { steps: null, seeds: null },
    );
    expect(header).toEqual([
      '# scale-check: The dial studies: per-agent ρ = 1 and 8 again at the new weights (docs/findings.md), 2 sweep cells, 100 steps, 5 seeds',
      '# written 2026-02-02T00:00:00.000Z by npm run studies at fedcba9 (tree dirty)',
      '# ran at 0123456 on AMD EPYC 7B13, 2 cores, linux x64, Node 20.19.0, backend wasm, relaxed SIMD on (2 folders)',
      '# ran at 0123456 on Intel Xeon, 2 cores, linux x64, Node 20.19.0, backend wasm, relaxed SIMD off (1 folder)',
      '# ran at: not recorded (1 folder without machine.json)',
      ...studyCommands(s, 'sweeps/studies').map((c) => `# ${c}`),
    ]);
    const smoke = tableHeader(
      asRun(s, { steps: 2, seeds: 1 }),
      'o',
      { date: 'd', commit: null, dirty: null },
      [],
      {
        steps: 2,
        seeds: 1,
      },
    );
    expect(smoke.slice(0, 3)).toEqual([
      '# scale-check: The dial studies: per-agent ρ = 1 and 8 again at the new weights (docs/findings.md), 2 sweep cells, 2 steps, 1 seed',
      "# SMOKE RUN (--steps 2 --seeds 1): not the study's numbers",
      '# written d by npm run studies at no git commit',
    ]);
  });
});

describe('which verdicts hold across machines (npm run studies -- --compare)', () => {
  const map = readFileSync('docs/studies/scale-check.txt', 'utf8');
  const train = readFileSync('docs/studies/mars2-drmas.txt', 'utf8');

  it("reads every verdict of lab report's tables as one word, per figure and cell", () => {
    const verdicts = readVerdicts(map);
    expect(verdicts).toHaveLength(24 * 2); // 12 figures × 2 cells, 2 comparisons
    expect(verdicts.slice(0, 2)).toEqual([
      { row: 'eval avg@8 · 1', comparison: 'Dr. MAS − GRPO', word: 'same' },
      { row: 'eval avg@8 · 1', comparison: 'global-step − GRPO', word: 'same' },
    ]);
    expect(verdicts.find((v) => v.row === 'bob |g| median · 8')?.word).toBe('lower');
    expect(readVerdicts(train).map((v) => v.comparison)).toContain('Dr. MAS − MARS2 (paired)');
    expect(
      [
        'identical on all 5 seeds',
        'no difference beyond seed spread',
        'Step-level higher by 0.045 [0.040, 0.051]',
        'lower',
        'no paired values yet', // an older report's words for the same
        'no paired values',
      ].map(verdictWord),
    ).toEqual(['identical', 'same', 'higher', 'lower', 'none', 'none']);
  });

  it('a table against itself holds every verdict; a verdict that changed is named, a CI that drifted is not', () => {
    expect(comparisonText('scale-check', map, map)).toEqual(['scale-check: 48 verdicts hold, 0 changed']);
    const other = map
      .replace(
        'eval avg@8                   8                   100    5      0.007 ± 0.021   same ',
        'eval avg@8                   8                   100    5      0.027 ± 0.011   higher',
      )
      .replace('-0.002 ± 0.004', '-0.003 ± 0.005');
    expect(other).not.toBe(map);
    expect(comparisonText('scale-check', map, other)).toEqual([
      'scale-check: 47 verdicts hold, 1 changed',
      '  eval avg@8 · 8: Dr. MAS − GRPO: same → higher',
    ]);
    expect(compareVerdicts(readVerdicts(map), readVerdicts(train)).unmatched).toBeGreaterThan(0);
  });
});

describe('a loss-balance study’s calls', () => {
  it('counts calls per trajectory and refuses a folder whose agents act equally often', () => {
    const lines = [
      { run: 'GRPO', 'agent/solver/calls': 32, 'agent/verifier/calls': 32 },
      { run: 'GRPO', 'agent/solver/calls': 32, 'agent/verifier/calls': 32, 'agent/verifier/reward/mean': 1 },
    ];
    const equal = callsPerTrajectory(lines, 32);
    expect(equal).toEqual({ solver: 1, verifier: 1 });
    expect(balanceRefusal(equal)).toMatch(
      /^its agents act about equally often \(solver 1\.00, verifier 1\.00 calls per trajectory/,
    );
    const loop = callsPerTrajectory(
      [
        { 'agent/solver/calls': 44, 'agent/verifier/calls': 32 },
        { 'agent/solver/calls': 44, 'agent/verifier/calls': 32 },
      ],
      32,
    );
    expect(loop.solver).toBeCloseTo(1.375, 12);
    expect(balanceRefusal(loop)).toBeNull();
    expect(balanceRefusal({ solver: 1.2, verifier: 1 })).not.toBeNull();
  });

  it('is asked of the loss-balance ablation, and of no other study', () => {
    expect(STUDIES.filter((s) => s.balance).map((s) => s.name)).toEqual(['ablation-loss-balance']);
  });
});
