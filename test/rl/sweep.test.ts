import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSweep } from '../../src/cli/sweep-args';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import {
  decodeSweepLink,
  MAX_LINK_RUNS,
  mergeShards,
  parseDial,
  parseShard,
  planCells,
  planLinkSweep,
  shardCells,
  sweepFile,
} from '../../src/rl/sweep';

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
      /^--grid optim\.lr=-1: refused: optim\.lr must be more than 0/,
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

describe('a sweep in a link', () => {
  it('never throws on any sweep keys and values: it opens, or refuses naming keys (property)', () => {
    const text = fc.string({ maxLength: 10 });
    const dial = fc.tuple(
      fc.constantFrom('optim.lr', 'rollout.groupSize', 'runs.1.estimator', '__proto__', 'x'),
      text,
    );
    fc.assert(
      fc.property(fc.array(dial, { maxLength: 3 }), (dials) => {
        const hash = `v=1&task=sync&${dials.map(([k, v]) => `sweep.${k}=${encodeURIComponent(v)}`).join('&')}`;
        const r = decodeSweepLink(hash);
        if (!r.ok) expect(r.errors.every((e) => e.path !== '' && e.message !== '')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  const link =
    'v=1&task=sync&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&steps=3&sweep.optim.lr=0.001,0.002';

  it('opens the experiment with its dials, planned into the cells lab sweep plans for the same grid', () => {
    const r = decodeSweepLink(`#${link}`);
    const experiment = decodeExperiment(
      'v=1&task=sync&rollout.batchSize=2&rollout.groupSize=4&eval.every=0&steps=3',
    );
    expect(r).toEqual({ ...experiment, sweep: [{ key: 'optim.lr', values: ['0.001', '0.002'] }] });
    const planned = planLinkSweep(r.config, r.ok ? r.sweep : []);
    expect(planned).toEqual({ ok: true, cells: planCells(r.config, [parseDial('optim.lr=0.001,0.002')]) });
    expect(planned.ok && planned.cells.map((c) => [c.params, c.config.optim.lr, c.config.steps])).toEqual([
      [{ 'optim.lr': 0.001 }, 0.001, 3],
      [{ 'optim.lr': 0.002 }, 0.002, 3],
    ]);
  });

  it('opens a link without sweep keys exactly as decodeExperiment does', () => {
    for (const hash of [
      '',
      '#v=1',
      'v=1&task=math&optim.lr=0.001',
      'v=1&optim.lr=banana',
      'v=2',
      'v=1&sweep=1',
    ])
      expect(decodeSweepLink(hash)).toEqual({ ...decodeExperiment(hash), sweep: [] });
  });

  it("refuses a value its field refuses, under the dial's key with the value, and opens the defaults", () => {
    const r = decodeSweepLink(`${link}&sweep.rollout.groupSize=4,2.5,64`);
    expect(r.ok).toBe(false);
    expect(r.config).toBe(decodeExperiment('').config);
    expect(r.sweep).toEqual([]);
    expect(!r.ok && r.errors).toEqual([
      { path: 'sweep.rollout.groupSize', message: 'expected a whole number', got: '2.5' },
      {
        path: 'sweep.rollout.groupSize',
        message: 'Too big: expected number to be <=32',
        got: '64',
      },
    ]);
    // Another dial's bad value is said once, under its own key.
    const other = decodeSweepLink(`${link}&sweep.runs.0.label=A;B+C;D,E`);
    expect(!other.ok && other.errors).toEqual([
      {
        path: 'sweep.runs.0.label',
        message: 'letters, digits, spaces and _ . + ( ) - only',
        got: 'D,E',
      },
    ]);
    // The sweep's own form is refused too, and so is the experiment's, all at once.
    const both = decodeSweepLink('v=1&optim.lr=banana&sweep.optim.lr=1,1');
    expect(!both.ok && both.errors.map((e) => e.path)).toEqual(['optim.lr', 'sweep.optim.lr']);
  });

  it(`refuses more than ${MAX_LINK_RUNS} cells × runs × seeds, naming the keys and giving the lab sweep command`, () => {
    const big = 'v=1&task=sync&seeds=8&steps=50&sweep.optim.lr=0.001,0.002&sweep.rollout.groupSize=2,4';
    const r = decodeSweepLink(big);
    expect(!r.ok && r.errors).toHaveLength(1);
    const [e] = r.ok ? [] : r.errors;
    expect(e.path).toBe('sweep.optim.lr, sweep.rollout.groupSize');
    expect(e.message).toMatch(
      new RegExp(
        `^4 cells × 2 runs × 8 seeds is 64 runs; the page trains at most ${MAX_LINK_RUNS}: run it with lab sweep \\(npm run lab -- sweep `,
      ),
    );
    // The command it gives runs this very sweep.
    const words = e.message
      .slice(e.message.indexOf('sweep --config'), -1)
      .match(/'[^']*'|\S+/g)!
      .map((w) => w.replace(/^'(.*)'$/, '$1'));
    const args = parseSweep(words.slice(1))!;
    expect(args.grid).toEqual([
      { key: 'optim.lr', values: ['0.001', '0.002'] },
      { key: 'rollout.groupSize', values: ['2', '4'] },
    ]);
    expect(args.config).toBe(encodeExperiment(decodeExperiment(big.replace(/&sweep.*$/, '')).config));
    expect(args.steps).toBe(50);
    // At the limit it opens.
    expect(decodeSweepLink('v=1&task=sync&seeds=8&sweep.optim.lr=0.001,0.002').ok).toBe(true);
    // A link over the length limit is refused whole, unread, as any long link is.
    const long = decodeSweepLink(`v=1&sweep.optim.lr=${'0.001,'.repeat(400)}0.002`);
    expect(!long.ok && long.errors.map((e) => e.path)).toEqual(['(hash)']);
    // Many dials of many values (10^8 cells in a short link) are refused before any cell is planned.
    const values = Array.from({ length: 10 }, (_, i) => `${i + 1}`).join(',');
    const keys = ['steps', 'batchSize', 'groupSize', 'nodes', 'questions', 'k', 'every', 'epochs'];
    const huge = decodeSweepLink(`v=1&${keys.map((k, i) => `sweep.x${i}.${k}=${values}`).join('&')}`);
    expect(!huge.ok && huge.errors.map((e) => e.message.split(';')[0])).toEqual([
      '100000000 cells, each of one run or more',
    ]);
  });
});
