import { describe, expect, it } from 'vitest';
import { decodeExperiment } from '../../src/core/url';
import { mergeShards, parseDial, parseShard, planCells, shardCells, sweepFile } from '../../src/rl/sweep';

const base = (() => {
  const r = decodeExperiment('v=1&task=sync&optim.lr=0.002&seeds=2');
  if (!r.ok) throw new Error('bad test config');
  return { ...r.config, steps: 3 };
})();
const grid = [parseDial('optim.lr=0.001,0.003'), parseDial('rollout.groupSize=2,4,8')];

describe('sweep cells', () => {
  it('are the cartesian product, first dial slowest, each a valid experiment with the field set', () => {
    const cells = planCells(base, grid);
    expect(cells.map((c) => c.params)).toEqual([
      { 'optim.lr': 0.001, 'rollout.groupSize': 2 },
      { 'optim.lr': 0.001, 'rollout.groupSize': 4 },
      { 'optim.lr': 0.001, 'rollout.groupSize': 8 },
      { 'optim.lr': 0.003, 'rollout.groupSize': 2 },
      { 'optim.lr': 0.003, 'rollout.groupSize': 4 },
      { 'optim.lr': 0.003, 'rollout.groupSize': 8 },
    ]);
    expect(cells[4].config).toEqual({
      ...base,
      optim: { ...base.optim, lr: 0.003 },
      rollout: { ...base.rollout, groupSize: 4 },
    });
    expect(cells[4].dir).toBe('cells/4_optim.lr-0.003_rollout.groupSize-4');
    expect(cells.every((c) => c.config.steps === 3 && c.config.seeds === 2)).toBe(true);
  });

  it("keep a run's label across a dial over its estimator (the map's columns name runs by label)", () => {
    const cells = planCells(base, [parseDial('runs.1.estimator=drmas,global-step,grpo')]);
    expect(cells.map((c) => c.config.runs.map((r) => [r.label, r.estimator]))).toEqual([
      [
        ['GRPO', 'grpo'],
        ['Dr. MAS', 'drmas'],
      ],
      [
        ['GRPO', 'grpo'],
        ['Dr. MAS', 'global-step'],
      ],
      [
        ['GRPO', 'grpo'],
        ['Dr. MAS', 'grpo'],
      ],
    ]);
  });

  it('a per-run field and values holding a comma (separated by ;)', () => {
    expect(parseDial('runs.0.label=a,b;c')).toEqual({ key: 'runs.0.label', values: ['a,b', 'c'] });
    const cells = planCells(base, [parseDial('runs.1.estimator=global-step,magrpo')]);
    expect(cells.map((c) => c.config.runs.map((r) => r.estimator))).toEqual([
      ['grpo', 'global-step'],
      ['grpo', 'magrpo'],
    ]);
  });

  it('refuses a value, key or dial the config refuses, naming it', () => {
    expect(() => planCells(base, [parseDial('optim.lr=0.001,-1')])).toThrow(
      /^--grid optim\.lr=-1: refused: optim\.lr: /,
    );
    expect(() => planCells(base, [parseDial('optim.nope=1')])).toThrow(
      /^--grid optim\.nope=1: refused: optim\.nope/,
    );
    expect(() => planCells(base, [parseDial('optim.lr=1'), parseDial('optim.lr=2')])).toThrow(
      /optim\.lr is given twice/,
    );
    expect(() => parseDial('optim.lr=1,1')).toThrow('optim.lr=1 is given twice');
    expect(() => parseDial('optim.lr')).toThrow('expected KEY=v1,v2,…');
  });

  it('shards are disjoint and together the whole grid', () => {
    const cells = planCells(base, grid);
    const slices = [0, 1, 2, 3].map((index) => shardCells(cells, { index, count: 4 }).map((c) => c.index));
    expect(slices).toEqual([[0, 4], [1, 5], [2], [3]]);
    expect(parseShard('3/4')).toEqual({ index: 3, count: 4 });
    for (const bad of ['4/4', '1', '-1/2', '0/0']) expect(() => parseShard(bad)).toThrow(/--shard/);
  });

  it('merge joins shards into the unsharded sweep.json; refuses overlap and other sweeps, naming them', () => {
    const shards = [0, 1].map((index) => ({
      name: `s${index}`,
      sweep: sweepFile(base, grid, { index, count: 2 }),
    }));
    const m = mergeShards(shards);
    expect(m.sweep).toEqual(sweepFile(base, grid, null));
    expect(m.missing).toEqual([]);
    expect(m.from.get('cells/1_optim.lr-0.001_rollout.groupSize-4')).toBe('s1');
    expect(mergeShards([shards[0]]).missing).toHaveLength(3);
    expect(() => mergeShards([shards[0], { ...shards[0], name: 'again' }])).toThrow(
      'cell cells/0_optim.lr-0.001_rollout.groupSize-2 is in both s0 and again',
    );
    const other = { name: 'other', sweep: sweepFile({ ...base, steps: 5 }, grid, { index: 1, count: 2 }) };
    expect(() => mergeShards([shards[0], other])).toThrow(
      's0 and other are shards of different sweeps (they differ in steps 3 vs 5)',
    );
    const otherGrid = { name: 'g', sweep: sweepFile(base, [grid[0]], { index: 1, count: 2 }) };
    expect(() => mergeShards([shards[0], otherGrid])).toThrow('(they differ in grid)');
  });
});
