// "Open it with these fields at their defaults" (src/ui/link-repair.ts): a refused link without
// its bad fields, read again as the page reads any link.
import { describe, expect, it } from 'vitest';
import { decodeExperiment } from '../../src/core/url';
import { decodeSweepLink } from '../../src/rl/sweep';
import { withoutBadFields } from '../../src/ui/link-repair';

const refused = (hash: string) => {
  const r = decodeSweepLink(hash);
  if (r.ok) throw new Error(`${hash} opened`);
  return r.errors;
};

describe('a refused link without its bad fields', () => {
  it('drops each refused key and keeps the rest of the link', () => {
    const hash = '#v=1&task=sync&steps=7&optim.lr=banana&rollout.groupSize=999';
    const fixed = withoutBadFields(hash, refused(hash))!;
    expect(fixed).toEqual({ hash: '#v=1&task=sync&steps=7', dropped: ['optim.lr', 'rollout.groupSize'] });
    const config = (decodeExperiment(fixed.hash) as { config: { task: string; steps: number } }).config;
    expect([config.task, config.steps]).toEqual(['sync', 7]);
  });

  it('drops an unknown key, a sweep dial refused and a run’s bad live change', () => {
    const hash = '#v=1&colour=red&runs.0.live.179.optim.lr=banana&steps=9';
    const fixed = withoutBadFields(hash, refused(hash))!;
    expect(fixed.dropped).toEqual(['colour', 'runs.0.live.179.optim.lr']);
    expect(decodeSweepLink(fixed.hash).ok).toBe(true);
  });

  it('offers nothing where no key of the link is to blame: too long, no version, an unknown one', () => {
    for (const hash of [`#v=1&optim.lr=${'1'.repeat(50_000)}`, '#task=sync', '#v=7&task=sync'])
      expect(withoutBadFields(hash, refused(hash)), hash.slice(0, 30)).toBeNull();
  });
});
