// The sweep map: the table `lab report` prints and the Map's CSV holds (a row per figure and
// cell), its lines against one dial (the Map's charts), and a sweep folder read from its files'
// text (how the page opens one).
import { describe, expect, it } from 'vitest';
import { csvText } from '../../src/report/findings';
import { summarize } from '../../src/report/summary';
import { parseDial, SweepRefused } from '../../src/rl/sweep';
import { defaultMapX, loadSweep, mapCharts, sweepMapCells } from '../../src/report/sweep-map';

// One step per run: reward r, eval r/2, alice's own success o, a gradient norm of 1.
const run = (label: string, seed: number, r: number, o: number) =>
  summarize(
    label,
    seed,
    [{ 'reward/mean': r, 'eval/avg@2': r / 2, 'agent/alice/own_success': o, 'agent/alice/grad_norm': 1 }],
    ['alice'],
    2,
    1,
  );
const grid = [parseDial('models.assignment=shared,per-agent'), parseDial('reward.scale.alice=1,4')];
const cell = (assignment: string, scale: number, dr: number[]) => ({
  params: { 'models.assignment': assignment, 'reward.scale.alice': scale },
  summaries: [run('GRPO #0', 1, 0.5, 0.5), run('GRPO #1', 2, 0.4, 0.6)].concat(
    dr.length ? [run('Dr. MAS #0', 1, 0.5 + dr[0], 0.5 + dr[0]), run('Dr. MAS #1', 2, 0.4 + dr[1], 0.6)] : [],
  ),
});
const cells = [
  cell('shared', 1, [0.2, 0.4]),
  cell('shared', 4, [0, 0]),
  cell('per-agent', 1, [0.1, 0.1]),
  { params: { 'models.assignment': 'per-agent', 'reward.scale.alice': 4 }, summaries: [] },
];

describe('the sweep map table', () => {
  it('a row per figure and cell: dials, steps, seeds, then each later run − the first with CI and verdict', () => {
    const [head, ...rows] = sweepMapCells(grid, cells);
    expect(head).toEqual([
      'figure',
      'models.assignment',
      'reward.scale.alice',
      'steps',
      'seeds',
      'Dr. MAS − GRPO',
      'verdict',
    ]);
    const figure = (name: string) => rows.filter((r) => r[0] === name);
    // Differences 0.2 and 0.4: mean 0.3, std 0.1414, t(1) 12.706 → half-width 1.271.
    expect(figure('reward (last 1)')).toEqual([
      ['reward (last 1)', 'shared', '1', '1', '2', '0.300 ± 1.271', 'same'],
      ['reward (last 1)', 'shared', '4', '1', '2', '0.000 ± 0.000', 'identical'],
      // 0.1 on both seeds: no spread, the interval is the point 0.1, which excludes 0.
      ['reward (last 1)', 'per-agent', '1', '1', '2', '0.100 ± 0.000', 'higher'],
      ['reward (last 1)', 'per-agent', '4', '0', '—', '—', '—'],
    ]);
    expect(figure('eval avg@2')[0]).toEqual(['eval avg@2', 'shared', '1', '1', '2', '0.150 ± 0.635', 'same']);
    // alice's own success moved on seed 0 only: 0.2 and 0 → mean 0.1, half-width 12.706 × 0.1414/√2.
    expect(figure('alice own success (last 1)')[0]).toEqual([
      'alice own success (last 1)',
      'shared',
      '1',
      '1',
      '2',
      '0.100 ± 1.271',
      'same',
    ]);
    // Figures in the seed comparison's order, each over every cell in grid order.
    expect([...new Set(rows.map((r) => r[0]))]).toEqual([
      'eval avg@2',
      'eval pass@2',
      'reward (last 1)',
      'alice own success (last 1)',
      'alice |g| median',
      'alice |g| max',
      'alice spike frac',
      'skipped updates',
    ]);
    expect(rows).toHaveLength(8 * 4);
  });

  it('no own-success row where the task does not tell an agent its part', () => {
    const plain = (label: string, seed: number) =>
      summarize(label, seed, [{ 'reward/mean': 1 }], ['alice'], 2, 1);
    const [, ...rows] = sweepMapCells(
      [grid[1]],
      [
        {
          params: { 'reward.scale.alice': 1 },
          summaries: [plain('A #0', 1), plain('A #1', 2), plain('B #0', 1)],
        },
      ],
    );
    expect(rows.some((r) => r[0].includes('own success'))).toBe(false);
  });
});

describe('the pairs against a baseline run picked (the Map’s Baseline)', () => {
  // GRPO, Dr. MAS and global-step on seeds 1 and 2, one dial: rewards 0.5/0.4, 0.7/0.8, 0.8/0.9.
  const three = [
    {
      params: { 'reward.scale.alice': 1 },
      summaries: [
        ...[run('GRPO #0', 1, 0.5, 0.5), run('GRPO #1', 2, 0.4, 0.5)],
        ...[run('Dr. MAS #0', 1, 0.7, 0.5), run('Dr. MAS #1', 2, 0.8, 0.5)],
        ...[run('global-step #0', 1, 0.8, 0.5), run('global-step #1', 2, 0.9, 0.5)],
      ],
    },
  ];
  const reward = (table: string[][]) => table.find((r) => r[0] === 'reward (last 1)')!.slice(3);

  it('every other run is paired with the baseline, same seed: global-step − Dr. MAS', () => {
    const [head, ...rows] = sweepMapCells([grid[1]], three, 'Dr. MAS');
    expect(head.slice(4)).toEqual(['GRPO − Dr. MAS', 'verdict', 'global-step − Dr. MAS', 'verdict']);
    // GRPO − Dr. MAS: −0.2 and −0.4, mean −0.3, half-width 12.706 × 0.1414/√2; global-step − Dr. MAS:
    // 0.1 on both seeds, an interval that excludes 0.
    expect(reward([head, ...rows])).toEqual(['2', '-0.300 ± 1.271', 'same', '0.100 ± 0.000', 'higher']);
    const [chart] = mapCharts([grid[1]], three, 'reward.scale.alice', 'Dr. MAS').filter(
      (c) => c.figure === 'reward (last 1)',
    );
    expect(chart.lines.map((l) => [l.run, l.pair])).toEqual([
      ['GRPO', 'GRPO − Dr. MAS'],
      ['global-step', 'global-step − Dr. MAS'],
    ]);
    expect(chart.lines[1].points[0].mean).toBeCloseTo(0.1, 12);
    expect(chart.lines[1].points[0].verdict).toBe('higher');
  });

  it('without a baseline, or with a label no run has, the first run is it', () => {
    for (const baseline of [undefined, 'MAGRPO']) {
      const table = sweepMapCells([grid[1]], three, baseline);
      expect(table[0].slice(4)).toEqual(['Dr. MAS − GRPO', 'verdict', 'global-step − GRPO', 'verdict']);
      // Dr. MAS − GRPO: 0.2 and 0.4; global-step − GRPO: 0.3 and 0.5.
      expect(reward(table)).toEqual(['2', '0.300 ± 1.271', 'same', '0.400 ± 1.271', 'same']);
    }
  });
});

describe('the map as charts', () => {
  it('x along one dial, a chart per figure and facet of the other dials, a line per later run', () => {
    expect(defaultMapX(grid)).toBe('reward.scale.alice');
    expect(defaultMapX([parseDial('runs.1.estimator=drmas,grpo')])).toBe('runs.1.estimator');
    const agents = [parseDial('workflow.args.agents=2,3,4,6,8'), parseDial('workflow.args.mix=0,0.5,1')];
    expect(defaultMapX(agents)).toBe('workflow.args.agents');
    expect(defaultMapX([parseDial('optim.lr=0.001,0.002'), parseDial('reward.scale.alice=1,4')])).toBe(
      'reward.scale.alice',
    );
    const charts = mapCharts(grid, cells, 'reward.scale.alice');
    const reward = charts.filter((c) => c.figure === 'reward (last 1)');
    expect(reward.map((c) => c.facet)).toEqual([
      'models.assignment = shared',
      'models.assignment = per-agent',
    ]);
    expect(reward[0].lines.map((l) => l.pair)).toEqual(['Dr. MAS − GRPO']);
    const [one, four] = reward[0].lines[0].points;
    expect([one.x, one.verdict]).toEqual(['1', 'same']);
    expect(one.mean).toBeCloseTo(0.3, 12);
    expect(one.hi - one.mean).toBeCloseTo(1.2706, 3);
    expect([four.x, four.mean, four.lo, four.hi, four.verdict]).toEqual(['4', 0, 0, 0, 'identical']);
    // The cell not yet run is a gap, not a zero.
    const gap = reward[1].lines[0].points[1];
    expect([gap.x, gap.mean, gap.verdict]).toEqual(['4', NaN, null]);
    // Along the other dial: facets by scale, x the assignment.
    const byModel = mapCharts(grid, cells, 'models.assignment').filter((c) => c.figure === 'reward (last 1)');
    expect(byModel.map((c) => c.facet)).toEqual(['reward.scale.alice = 1', 'reward.scale.alice = 4']);
    expect(byModel[0].lines[0].points.map((p) => [p.x, p.mean.toFixed(6)])).toEqual([
      ['shared', '0.300000'],
      ['per-agent', '0.100000'],
    ]);
    expect(() => mapCharts(grid, cells, 'optim.lr')).toThrow(
      'optim.lr is not a dial of this sweep (its dials: models.assignment, reward.scale.alice)',
    );
  });

  it('with the lines by a dial: a chart per other run, a line per value of that dial (the agents map, one line per mix)', () => {
    const charts = mapCharts(grid, cells, 'reward.scale.alice', undefined, 'models.assignment');
    const reward = charts.filter((c) => c.figure === 'reward (last 1)');
    // One other run and no dial left over: one chart, named by its pair.
    expect(reward.map((c) => c.facet)).toEqual(['Dr. MAS − GRPO']);
    expect(reward[0].lines.map((l) => [l.run, l.pair])).toEqual([
      ['Dr. MAS', 'models.assignment = shared'],
      ['Dr. MAS', 'models.assignment = per-agent'],
    ]);
    // The same numbers as the runs' lines, regrouped: shared at 1 and 4, per-agent at 1 and a gap at 4.
    const [shared, perAgent] = reward[0].lines;
    expect(shared.points.map((p) => [p.x, p.mean.toFixed(6), p.verdict])).toEqual([
      ['1', '0.300000', 'same'],
      ['4', '0.000000', 'identical'],
    ]);
    expect(perAgent.points.map((p) => [p.x, p.mean.toFixed(6), p.verdict])).toEqual([
      ['1', '0.100000', 'higher'],
      ['4', 'NaN', null],
    ]);
    expect(() => mapCharts(grid, cells, 'reward.scale.alice', undefined, 'reward.scale.alice')).toThrow(
      'the lines cannot go by reward.scale.alice: it is along x',
    );
    expect(() => mapCharts(grid, cells, 'reward.scale.alice', undefined, 'workflow.mix')).toThrow(
      'workflow.mix is not a dial of this sweep',
    );
  });
});

describe('a sweep folder read from its files', () => {
  const sweepJson = (config: unknown) =>
    JSON.stringify({
      version: 1,
      config,
      grid: [{ key: 'reward.scale.alice', values: ['1', '4'] }],
      shard: null,
      cells: [
        { params: { 'reward.scale.alice': 1 }, dir: 'cells/0_a' },
        { params: { 'reward.scale.alice': 4 }, dir: 'cells/1_b' },
      ],
    });
  const config = {
    task: 'sync-own',
    seeds: 2,
    runs: [
      { label: 'GRPO', estimator: 'grpo' },
      { label: 'Dr. MAS', estimator: 'drmas' },
    ],
  };
  const line = (run: string, r: number) => JSON.stringify({ run, step: 0, 'reward/mean': r });
  const files: Record<string, string> = {
    'sweep.json': sweepJson(config),
    'cells/0_a/config.json': JSON.stringify(config),
    'cells/0_a/metrics.jsonl':
      [line('GRPO #0', 0.5), line('GRPO #1', 0.4), line('Dr. MAS #0', 0.7), line('Dr. MAS #1', 0.8)].join(
        '\n',
      ) + '\n{"run": "GRPO #0", "st',
  };
  const agents = () => ['alice', 'bob'];

  it('summarizes each cell from its metrics lines, a torn line warned of, a cell not started empty', () => {
    const warnings: string[] = [];
    const { file, cells } = loadSweep(
      'scale',
      (p) => files[p],
      agents,
      1,
      (m) => warnings.push(m),
    );
    expect(file.grid).toEqual([{ key: 'reward.scale.alice', values: ['1', '4'] }]);
    expect(cells[0].summaries.map((s) => [s.run, s.seed, s.finalReward])).toEqual([
      ['GRPO #0', 0, 0.5],
      ['GRPO #1', 1, 0.4],
      ['Dr. MAS #0', 0, 0.7],
      ['Dr. MAS #1', 1, 0.8],
    ]);
    expect(cells[1].summaries).toEqual([]);
    expect(warnings).toEqual([
      'scale/cells/0_a/metrics.jsonl: line 5 is not a metrics record (cut off by a crash, or edited); skipped',
    ]);
    const [, , reward] = sweepMapCells(file.grid, cells).filter((r) => r[0].startsWith('reward'));
    expect(reward).toBeUndefined(); // two cells: rows 0 and 1 only
  });

  it("reads a cell's metric keys under its task's old role names as today's (plan: solver → planner)", () => {
    const plan = { ...config, task: 'plan', runs: [{ label: 'GRPO', estimator: 'grpo' }], seeds: 1 };
    const old = JSON.stringify({ run: 'GRPO', step: 0, 'reward/mean': 1, 'agent/solver/own_success': 0.25 });
    const folder: Record<string, string> = {
      'sweep.json': sweepJson(plan),
      'cells/0_a/config.json': JSON.stringify(plan),
      'cells/0_a/metrics.jsonl': old + '\n',
    };
    const { cells } = loadSweep(
      'plan',
      (p) => folder[p],
      () => ['planner', 'executor'],
      1,
    );
    expect(cells[0].summaries[0].agents.planner.ownSuccess).toBe(0.25);
  });

  it('refuses a folder without sweep.json and a cell whose config is not an experiment, naming it', () => {
    expect(() => loadSweep('x', () => undefined, agents, 1)).toThrow(SweepRefused);
    expect(() => loadSweep('x', () => undefined, agents, 1)).toThrow(
      'x has no sweep.json: not a folder written by lab sweep or lab merge',
    );
    const bad: Record<string, string> = {
      ...files,
      'cells/0_a/config.json': JSON.stringify({ ...config, task: 'chess' }),
    };
    expect(() => loadSweep('x', (p) => bad[p], agents, 1)).toThrow(
      /^x\/cells\/0_a\/config\.json: task must be one of: search, /,
    );
    expect(() => loadSweep('x', (p) => (p === 'sweep.json' ? '{' : undefined), agents, 1)).toThrow(
      /^x\/sweep\.json: not valid JSON/,
    );
  });

  it('its CSV is the table, RFC 4180 quoted', () => {
    const { file, cells } = loadSweep('scale', (p) => files[p], agents, 1);
    const csv = csvText(sweepMapCells(file.grid, cells));
    expect(csv.split('\n')[0]).toBe('figure,reward.scale.alice,steps,seeds,Dr. MAS − GRPO,verdict');
    expect(csv).toContain('\nreward (last 1),1,1,2,0.300 ± 1.271,same\n');
  });
});
