/**
 * The preset offered beside the sync control is the setting where the mechanism map found the
 * estimators part (docs/findings.md#the-dial-studies-where-does-agent-wise-normalization-start-to-matter):
 * its config must be the map's cell, or the figures its line quotes are not about it.
 */
import { describe, expect, it } from 'vitest';
import { PRESETS, presetById } from '../../src/core/presets';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';

describe('presets', () => {
  it('are named for what they compare, and a former id still opens its preset', () => {
    expect(PRESETS.map((p) => p.id).filter((id) => /issue/.test(id))).toEqual([]);
    expect(presetById('issue81')).toBe(presetById('step-vs-agent'));
    expect(presetById('step-vs-agent')!.config.runs.map((r) => r.estimator)).toEqual([
      'grpo',
      'global-step',
      'drmas',
    ]);
  });

  it('offers the map’s parting setting right after the sync control, as the map ran it', () => {
    const ids = PRESETS.map((p) => p.id);
    expect(ids.indexOf('sync-own-scaled')).toBe(ids.indexOf('sync') + 1);
    const c = presetById('sync-own-scaled')!.config;
    expect(c.task).toBe('sync-own');
    expect(c.models.assignment).toBe('per-agent');
    expect(c.reward.scale).toEqual({ alice: 8 });
    expect(c.runs.map((r) => r.estimator)).toEqual(['grpo', 'global-step', 'drmas']);
    // Its link carries the dial: a recipient trains the same cell.
    const back = decodeExperiment(encodeExperiment(c));
    expect(back.ok).toBe(true);
    expect(back.config.reward.scale).toEqual({ alice: 8 });
  });

  it('mars2-team: the same search for both runs, a team of two coders against the small coder alone', () => {
    const c = presetById('mars2-team')!.config;
    expect(c.task).toBe('coder-tester');
    expect(c.rollout).toMatchObject({ sampling: 'mcts', nodes: 8, filter: 'mixed' });
    expect(c.models.perAgent).toEqual({ coder: 'small' });
    expect(c.models.from).toEqual({ tester: 'coder' });
    expect(c.runs.map((r) => [r.estimator, r.rollout.arms])).toEqual([
      ['mars2', undefined],
      ['mars2', 'coder'],
    ]);
    const back = decodeExperiment(encodeExperiment(c));
    expect(back.ok && back.config).toEqual(c);
  });
});
