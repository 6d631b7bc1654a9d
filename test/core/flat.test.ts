import { describe, expect, it } from 'vitest';
import { boardCharts, CHARTS } from '../../src/core/charts';
import { FLAT_MIN_STEPS, flatLines, flatReason } from '../../src/core/flat';
import { ExperimentSchema } from '../../src/core/config';

const steps = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

describe('the flat-chart rule', () => {
  it('a KL of float noise around 0, on two lines, is constant 0', () => {
    const a = steps(200, (i) => (i % 3) * 1e-7);
    const b = steps(200, (i) => -((i % 5) * 2e-8));
    expect(flatLines([a, b])).toEqual({ value: 0, steps: 200 });
    expect(flatReason(flatLines([a, b])!, 'because')).toBe('constant 0 over 200 steps: because');
  });

  it('a line that moves is not flat, however little the rest moves', () => {
    expect(flatLines([steps(200, () => 0), steps(200, (i) => (i === 150 ? 0.01 : 0))])).toBeNull();
    expect(flatLines([steps(50, (i) => 0.5 + i * 1e-3)])).toBeNull();
  });

  it('two lines each constant at a different value differ, so they carry information', () => {
    expect(flatLines([steps(50, () => 3), steps(50, () => 4)])).toBeNull();
  });

  it('a non-zero constant keeps its value; gaps (NaN) are not changes', () => {
    const line = steps(40, (i) => (i % 4 === 0 ? NaN : 12));
    expect(flatLines([line])).toEqual({ value: 12, steps: 30 });
    expect(flatReason(flatLines([line])!)).toBe('constant 12 over 30 steps');
  });

  it('too few steps, no values, or an infinite value: not judged flat', () => {
    expect(flatLines([steps(FLAT_MIN_STEPS - 1, () => 0)])).toBeNull();
    expect(flatLines([steps(FLAT_MIN_STEPS, () => 0)])).toEqual({ value: 0, steps: FLAT_MIN_STEPS });
    expect(flatLines([steps(100, () => NaN)])).toBeNull();
    expect(flatLines([steps(100, (i) => (i === 3 ? Infinity : 1))])).toBeNull();
  });
});

describe('the chart registry', () => {
  const optim = ExperimentSchema.parse({}).optim;

  it('KL and clip fraction say why they are flat under one optimizer step per batch, not under two', () => {
    const kl = CHARTS.find((c) => c.id === 'kl')!;
    expect(kl.flatBecause?.([optim])).toMatch(/^one optimizer step per batch/);
    expect(kl.flatBecause?.([optim, { ...optim, epochs: 2 }])).toBeUndefined();
  });

  it('every heavy-tailed chart offers a log scale, and no other: amplification, grad norms and E[A²], every estimator', () => {
    // Heavy tails by what the metric is: a ratio of variances, a gradient norm, a second moment.
    // One spike (an amplification of 2e5 on plan) flattens the rest of a linear axis.
    const heavy = /\/(amplification|grad_norm|sq_mean)$/;
    const estimators = (['grpo', 'drmas', 'mars2', 'custom'] as const).map((name) => ({
      name,
      label: name,
      doc: '',
    }));
    const all = boardCharts(
      { eval: true, credit: true, shadowGradNorm: true, mcts: true, ownSuccess: true },
      estimators,
    );
    const metric = (c: (typeof all)[number]) =>
      c.series.per === 'agent'
        ? c.series.key('a')
        : c.series
            .keys([4])
            .map((k) => k.key)
            .join(' ');
    for (const c of all) expect(c.log === true, `${c.id}: ${metric(c)}`).toBe(heavy.test(metric(c)));
    expect(all.filter((c) => c.log).map((c) => c.id)).toEqual([
      'adv-sq',
      'amplification',
      'grad-norm',
      ...estimators.flatMap((e) => [`same-batch-${e.name}-sq`, `same-batch-${e.name}-grad`]),
    ]);
  });

  it('every chart has a one-sentence explanation and a formula', () => {
    const all = boardCharts(
      { eval: true, credit: true, shadowGradNorm: true, mcts: true, ownSuccess: true },
      [{ name: 'grpo', label: 'GRPO', doc: '' }],
    );
    for (const c of all) {
      expect(c.doc, c.id).toMatch(/^[A-Z].*\.$/);
      expect(c.formula.length, c.id).toBeGreaterThan(2);
    }
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    const plain = boardCharts({ eval: false, credit: false, shadowGradNorm: false }, []);
    expect(plain.map((c) => c.id)).not.toContain('eval-avg');
    // The search's charts only where a run samples by mcts.
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining(['mcts-tree', 'mcts-nodes', 'mcts-arm']));
    expect(plain.map((c) => c.id)).not.toContain('mcts-nodes');
    // Each agent's own success only on a task that tells it.
    expect(plain.map((c) => c.id)).not.toContain('own-success');
    const told = boardCharts({ eval: false, credit: false, shadowGradNorm: false, ownSuccess: true }, []);
    expect(told.map((c) => c.id)).toContain('own-success');
  });
});
