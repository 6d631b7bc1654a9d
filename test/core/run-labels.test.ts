import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT, type Experiment } from '../../src/core/config';
import { validateExperiment } from '../../src/core/config-validate';
import { withEstimator, withStoredLabels } from '../../src/core/run-labels';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';

const labels = (c: Experiment) => c.runs.map((r) => [r.label, r.estimator]);

describe('a run given an estimator and no label is labelled by its estimator', () => {
  it('in a link: runs.0.estimator=mars2 is a MARS2 run called MARS2, and the link stays one pair', () => {
    const r = decodeExperiment('#v=1&runs.0.estimator=mars2');
    expect(r.ok && labels(r.config)).toEqual([
      ['MARS2', 'mars2'],
      ['Dr. MAS', 'drmas'],
    ]);
    if (r.ok) expect(encodeExperiment(r.config)).toBe('v=1&runs.0.estimator=mars2');
  });

  it('keeps a label the link gives, and writes a kept default label so the link reads back exactly', () => {
    const r = decodeExperiment('#v=1&runs.0.label=Mine&runs.0.estimator=mars2');
    expect(r.ok && labels(r.config)[0]).toEqual(['Mine', 'mars2']);
    const kept = structuredClone(DEFAULT_EXPERIMENT);
    kept.runs[0].estimator = 'mars2'; // still called GRPO, as a user may choose
    const link = encodeExperiment(kept);
    expect(link).toBe('v=1&runs.0.label=GRPO&runs.0.estimator=mars2');
    const back = decodeExperiment(link);
    expect(back.ok && back.config).toEqual(kept);
  });

  it('numbers a label another run has, and says so; swapped estimators swap labels', () => {
    const r = decodeExperiment('#v=1&runs.1.estimator=grpo');
    expect(r.ok && labels(r.config)).toEqual([
      ['GRPO', 'grpo'],
      ['GRPO 2', 'grpo'],
    ]);
    expect(r.ok && r.note).toMatch(/run 1 is labelled "GRPO 2" \("GRPO" is another run's label\)/);
    if (r.ok)
      expect(decodeExperiment(encodeExperiment(r.config))).toMatchObject({ ok: true, config: r.config });
    const swapped = decodeExperiment('#v=1&runs.0.estimator=drmas&runs.1.estimator=grpo');
    expect(swapped.ok && labels(swapped.config)).toEqual([
      ['Dr. MAS', 'drmas'],
      ['GRPO', 'grpo'],
    ]);
  });

  it('in a JSON config: runs without labels take their estimators’ labels, numbered when alike', () => {
    const r = validateExperiment({
      runs: [{ estimator: 'mars2' }, { estimator: 'mars2' }, { estimator: 'custom' }],
    });
    expect(r.ok && labels(r.config)).toEqual([
      ['MARS2', 'mars2'],
      ['MARS2 2', 'mars2'],
      ['custom', 'custom'],
    ]);
  });

  it("in the page's estimator menu: the estimator's own label follows, a chosen one stays", () => {
    const moved = validateExperiment(withEstimator(DEFAULT_EXPERIMENT, 0, 'mars2'));
    expect(moved.ok && labels(moved.config)[0]).toEqual(['MARS2', 'mars2']);
    const named = structuredClone(DEFAULT_EXPERIMENT);
    named.runs[1].label = 'baseline';
    const kept = validateExperiment(withEstimator(named, 1, 'mars2'));
    expect(kept.ok && labels(kept.config)[1]).toEqual(['baseline', 'mars2']);
    // Run 1 to GRPO while run 0 is GRPO: numbered, never two alike.
    const taken = validateExperiment(withEstimator(DEFAULT_EXPERIMENT, 1, 'grpo'));
    expect(taken.ok && labels(taken.config)).toEqual([
      ['GRPO', 'grpo'],
      ['GRPO 2', 'grpo'],
    ]);
  });

  it('a session stored under the old reading keeps its stored labels (its lines and saved states go by them)', () => {
    // Stored when runs.1.estimator=global-step left run 1 called "Dr. MAS"; that link now reads "Step-level".
    const r = decodeExperiment('#v=1&runs.1.estimator=global-step&seeds=2');
    if (!r.ok) throw new Error('bad test link');
    const stored = [
      { label: 'GRPO #0', runIndex: 0 },
      { label: 'GRPO #1', runIndex: 0 },
      { label: 'Dr. MAS #0', runIndex: 1 },
      { label: 'Dr. MAS #1', runIndex: 1 },
    ];
    const kept = withStoredLabels(r.config, stored)!;
    expect(labels(kept)).toEqual([
      ['GRPO', 'grpo'],
      ['Dr. MAS', 'global-step'],
    ]);
    expect(withStoredLabels(kept, stored)).toBeNull(); // already as stored
    const back = decodeExperiment(encodeExperiment(kept));
    expect(back.ok && back.config).toEqual(kept);
  });
});
