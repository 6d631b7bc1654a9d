// Demonstrator success at known error rates against closed forms derived from each task's
// workflow (independent of the task code): a per-call mistake probability e, of which a share
// MALFORMED_SHARE are malformed outputs; a malformed verdict counts as approve / yes.
import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import { sampleInstances, TASKS } from '../../src/tasks/registry';
import type { SearchInstance } from '../../src/tasks/search';
import { MALFORMED_SHARE as M } from '../../src/tasks/types';
import { demoRollout } from './helpers';

/** |measured − expected| within 4.5 binomial standard errors (plus a hair for p near 0 or 1). */
function expectRate(successes: number, n: number, p: number): void {
  const tol = 4.5 * Math.sqrt((p * (1 - p)) / n) + 1e-3;
  expect(Math.abs(successes / n - p), `measured ${successes / n}, expected ${p}`).toBeLessThanOrEqual(tol);
}

/**
 * Search success for a question needing `hops` facts within 4 steps. f(t, k): at step t with
 * k facts found. Verifier says yes (correctly iff k = hops); a malformed verdict is yes. Search
 * finds the next fact w.p. 1 − e. With all facts the answerer is right w.p. 1 − e, malformed w.p.
 * e·M (the step passes), else wrong; without them it guesses wrong or is malformed (e·M).
 */
function searchSuccess(e: number, hops: number, T = 4): number {
  const q = 1 - e;
  const f = (t: number, k: number): number => {
    if (t === T) return 0;
    const cont = (kk: number) => f(t + 1, kk);
    if (k === hops) {
      const yes = q + e * M; // a malformed verdict routes like the right one
      const answer = q + e * M * cont(k);
      return yes * answer + (1 - yes) * cont(k);
    }
    const answer = e * M * cont(k); // answering without the facts only survives if malformed
    return e * answer + q * (t === T - 1 ? 0 : q * cont(k + 1) + e * cont(k));
  };
  return f(0, 0);
}

describe('demonstrator success at known error rates', () => {
  const N = 2000;

  it.each([0.2, 0.5])('math at e = %f: q(1 − 3e/4 + 3eq/4) + e·q²', async (e) => {
    const q = 1 - e;
    const { trajectories } = await demoRollout('math', e, N / 8, 8, 101);
    expectRate(
      trajectories.filter((t) => t.success).length,
      N,
      q * (1 - (1 - M) * e + (1 - M) * e * q) + e * q * q,
    );
  });

  it.each([0.2, 0.5])('sync at e = %f: (1 − e)²', async (e) => {
    const { trajectories } = await demoRollout('sync', e, N / 8, 8, 102);
    expectRate(trajectories.filter((t) => t.success).length, N, (1 - e) ** 2);
  });

  it.each([0.2, 0.5])('coder-tester at e = %f: 1 − e, tester consistency 1 − e', async (e) => {
    const { trajectories } = await demoRollout('coder-tester', e, N / 8, 8, 103);
    expectRate(trajectories.filter((t) => t.success).length, N, 1 - e);
    const consistency = trajectories.map((t) => t.agentRewards.tester! - t.agentRewards.coder! / 2);
    expectRate(
      consistency.reduce((a, b) => a + b, 0),
      N,
      1 - e,
    );
  });

  it.each([0.2, 0.5])('search at e = %f: the step-by-step closed form per hop count', async (e) => {
    const seed = 104;
    const instances = sampleInstances(TASKS.search, new Prng(seed), 'train', N / 8) as SearchInstance[];
    const { trajectories } = await demoRollout('search', e, N / 8, 8, seed);
    for (const hops of [1, 2]) {
      const ts = trajectories.filter((t) => instances[t.group].hops.length === hops);
      expect(ts.length).toBeGreaterThan(N / 4);
      expectRate(ts.filter((t) => t.success).length, ts.length, searchSuccess(e, hops));
    }
  });

  it('closed forms hit the corners', () => {
    expect(searchSuccess(0, 1)).toBe(1);
    expect(searchSuccess(0, 2)).toBe(1);
    expect(searchSuccess(1, 2)).toBe(0);
  });
});
