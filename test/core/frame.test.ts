import { describe, expect, it } from 'vitest';
import { FrameCodec } from '../../src/core/frame';
import { FrameRing, debiasedEma, downsampleMinMax } from '../../src/core/series';
import { metricKeys, agentKey, parseAgentKey, M } from '../../src/core/metrics';

describe('metric frames', () => {
  const keys = metricKeys(['verifier', 'search'], ['m0'], 8);

  it('lists every docs/metrics.md key once, per agent and model', () => {
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('agent/search/adv/sq_mean');
    expect(keys).toContain('model/m0/grad_norm');
    expect(keys).toContain('eval/pass@8');
    expect(keys).toContain('perf/tokens_per_s');
    expect(parseAgentKey('agent/search/adv/sq_mean')).toEqual({ agent: 'search', stat: 'adv/sq_mean' });
    expect(parseAgentKey('agent/search/bogus')).toBeNull();
  });

  it('round-trips present values and leaves absent ones out', () => {
    const codec = new FrameCodec(keys);
    const values = { [M.step]: 3, [agentKey('search', 'grad_norm')]: 0.25, [M.rewardMean]: -0.01 };
    const frame = codec.encode(values);
    expect(frame.length).toBe(keys.length);
    expect(codec.decode(frame)).toEqual(values);
  });

  it('refuses unknown keys and frames of the wrong width', () => {
    const codec = new FrameCodec(keys);
    expect(() => codec.encode({ 'agent/search/grad_nrom': 1 })).toThrow(/not in the frame's key table/);
    expect(() => codec.decode(new Float64Array(3))).toThrow(/3 values/);
    expect(() => new FrameCodec(['a', 'a'])).toThrow(/unique/);
  });
});

describe('series', () => {
  it('keeps the last `capacity` frames in order', () => {
    const ring = new FrameRing(2, 3);
    for (let s = 0; s < 5; s++) ring.push(new Float64Array([s, s * 10]));
    expect(ring.length).toBe(3);
    expect(Array.from(ring.column(0))).toEqual([2, 3, 4]);
    expect(Array.from(ring.column(1))).toEqual([20, 30, 40]);
  });

  it('grows its storage with the frames it holds, keeping every one until capacity', () => {
    const ring = new FrameRing(3, 1000, 4);
    expect(ring.allocated).toBe(4);
    for (let s = 0; s < 600; s++) ring.push(new Float64Array([s, -s, s / 2]));
    expect(ring.length).toBe(600);
    expect(ring.allocated).toBe(1000); // 4 → 8 → … → 512 → 1000 (capped), never more
    expect(Array.from(ring.column(0))).toEqual(Array.from({ length: 600 }, (_, s) => s));
    expect(ring.at(599, 1)).toBe(-599);
    for (let s = 600; s < 1500; s++) ring.push(new Float64Array([s, -s, s / 2]));
    expect(ring.length).toBe(1000);
    expect(ring.allocated).toBe(1000);
    expect(ring.at(0, 0)).toBe(500); // the oldest 500 dropped only past capacity
    expect(ring.at(999, 2)).toBe(1499 / 2);
    expect(Array.from(ring.column(0))).toEqual(Array.from({ length: 1000 }, (_, i) => 500 + i));
  });

  it('downsamples to the budget while keeping the spike', () => {
    const n = 10_000;
    const x = Float64Array.from({ length: n }, (_, i) => i);
    const y = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 100));
    y[7777] = 50;
    const d = downsampleMinMax(x, y, 300);
    expect(d.x.length).toBeLessThanOrEqual(300);
    expect(d.x.length).toBeGreaterThan(200);
    expect(Math.max(...d.y)).toBe(50);
    expect(d.x[d.y.indexOf(50)]).toBe(7777);
    expect(d.at.map((i) => x[i])).toEqual(d.x);
    expect(d.x).toEqual([...d.x].sort((a, b) => a - b));
  });

  it('skips NaN and returns short series unchanged', () => {
    const d = downsampleMinMax(new Float64Array([0, 1, 2]), new Float64Array([5, NaN, 7]), 100);
    expect(d).toEqual({ x: [0, 2], y: [5, 7], at: [0, 2] });
  });

  it('debiases the EMA: a constant series stays constant, first point unsmoothed', () => {
    expect(Array.from(debiasedEma([4, 4, 4], 0.9))).toEqual([4, 4, 4].map(() => expect.closeTo(4, 12)));
    const s = debiasedEma([0, 10, NaN, 10], 0.5);
    expect(s[0]).toBe(0);
    expect(s[1]).toBeCloseTo((10 * 0.5) / 0.75, 12); // last = 5; 5 / (1 − 0.25)
    expect(s[2]).toBeNaN();
    expect(s[3]).toBeCloseTo(7.5 / 0.875, 12); // last = 2.5 + 5
  });
});
