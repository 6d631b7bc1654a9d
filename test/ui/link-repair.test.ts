// "Open it with …" (src/ui/link-repair.ts): a refused link mended, each suggestion taken with the
// link's own value and every other bad field left out, read again as the page reads any link.
import { describe, expect, it } from 'vitest';
import { decodeExperiment } from '../../src/core/url';
import type { Experiment } from '../../src/core/config';
import { decodeSweepLink } from '../../src/rl/sweep';
import { fieldReason } from '../../src/ui/field-labels';
import { repairLink, repairWords } from '../../src/ui/link-repair';

const refused = (hash: string) => {
  const r = decodeSweepLink(hash);
  if (r.ok) throw new Error(`${hash} opened`);
  return r.errors;
};

const opened = (hash: string) => {
  const r = decodeExperiment(hash);
  if (!r.ok) throw new Error(`${hash} refused`);
  return r.config as Experiment;
};

describe('a refused link mended', () => {
  it('drops each refused key without a suggestion and keeps the rest of the link', () => {
    const hash = '#v=1&task=sync&steps=7&optim.lr=banana&rollout.groupSize=999';
    const fixed = repairLink(hash, refused(hash))!;
    expect(fixed).toMatchObject({
      hash: '#v=1&task=sync&steps=7',
      renamed: [],
      revalued: [],
      dropped: ['optim.lr', 'rollout.groupSize'],
    });
    const config = opened(fixed.hash);
    expect([config.task, config.steps]).toEqual(['sync', 7]);
    expect(repairWords(fixed)).toBe(
      'Open it with Learning rate (optim.lr) and Group size G (rollout.groupSize) at their defaults',
    );
  });

  it('drops an unknown key, a sweep dial refused and a run’s bad live change', () => {
    const hash = '#v=1&colour=red&runs.0.live.179.optim.lr=banana&steps=9';
    const fixed = repairLink(hash, refused(hash))!;
    expect(fixed.dropped).toEqual(['colour', 'runs.0.live.179.optim.lr']);
    expect(decodeSweepLink(fixed.hash).ok).toBe(true);
  });

  it('gives a misspelt key’s value to the field it most likely meant, not the default', () => {
    const hash = '#v=1&task=sync&optim.lrr=0.02&G=4&runs.1.lr=0.005';
    const fixed = repairLink(hash, refused(hash))!;
    expect(fixed.renamed).toEqual([
      { from: 'optim.lrr', to: 'optim.lr' },
      { from: 'G', to: 'rollout.groupSize' },
      { from: 'runs.1.lr', to: 'runs.1.optim.lr' },
    ]);
    expect(fixed.dropped).toEqual([]);
    const config = opened(fixed.hash);
    expect([config.optim.lr, config.rollout.groupSize, config.runs[1].optim?.lr]).toEqual([0.02, 4, 0.005]);
    expect(repairWords(fixed)).toBe(
      'Open it with optim.lrr as Learning rate (optim.lr), G as Group size G (rollout.groupSize) and runs.1.lr as Dr. MAS run: Learning rate (runs.1.optim.lr)',
    );
  });

  it('gives a field the value it most likely meant, and says what it left at defaults beside it', () => {
    const hash = '#v=1&task=serch&runs.1.estimator=DrMAS&colour=red';
    const fixed = repairLink(hash, refused(hash))!;
    expect(fixed.revalued).toEqual([
      { key: 'task', value: 'search' },
      { key: 'runs.1.estimator', value: 'drmas' },
    ]);
    expect(fixed.dropped).toEqual(['colour']);
    const config = opened(fixed.hash);
    expect([config.task, config.runs[1].estimator]).toEqual(['search', 'drmas']);
    expect(repairWords(fixed)).toMatch(
      'Open it with Task (task) as search and Dr. MAS run: Estimator (runs.1.estimator) as drmas; colour at its default',
    );
  });

  it('names a mended run’s field as the alert’s list does, not by the label the mended run takes', () => {
    // The list says "Dr. MAS run: Estimator (runs.1.estimator) … got 'gpro'"; the button said
    // "GRPO 2 run: Estimator (runs.1.estimator) as grpo", one field named two ways in one alert.
    const hash = '#v=1&task=serch&runs.1.estimator=gpro';
    const errors = refused(hash);
    expect(fieldReason(errors.find((e) => e.path === 'runs.1.estimator')!)).toMatch(
      /^Dr\. MAS run: Estimator /,
    );
    const fixed = repairLink(hash, errors)!;
    expect(opened(fixed.hash).runs[1].estimator).toBe('grpo');
    expect(repairWords(fixed)).toBe(
      'Open it with Task (task) as search and Dr. MAS run: Estimator (runs.1.estimator) as grpo',
    );
  });

  it('drops a suggestion the field refuses in turn, and a key whose field the link already gives', () => {
    // G's suggestion is Group size G, which does not take 'banana'; optim.lrr's field is in the link.
    const hash = '#v=1&task=sync&G=banana&optim.lr=0.03&optim.lrr=0.02';
    const fixed = repairLink(hash, refused(hash))!;
    expect(fixed.renamed).toEqual([]);
    expect(fixed.dropped.sort()).toEqual(['G', 'optim.lrr']);
    const config = opened(fixed.hash);
    expect(config.optim.lr).toBe(0.03);
    expect(fixed.hash).not.toContain('groupSize');
  });

  it('offers nothing where no key of the link is to blame: too long, no version, an unknown one', () => {
    for (const hash of [`#v=1&optim.lr=${'1'.repeat(50_000)}`, '#task=sync', '#v=7&task=sync'])
      expect(repairLink(hash, refused(hash)), hash.slice(0, 30)).toBeNull();
  });
});
