import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import {
  counterfactualPlan,
  creditPlan,
  shapleyExactPlan,
  shapleyPermutationPlan,
  type Coalition,
} from '../../src/rl/credit';

/** A game as its value table over coalitions (bitmasks). */
const table = (v: Record<number, number>) => (s: Coalition) => {
  if (!(s in v)) throw new Error(`coalition ${s} not in the game`);
  return v[s];
};

describe('per-agent credit from coalition outcomes', () => {
  // Agent 0 alone decides: v = 1 exactly when agent 0 is in the coalition.
  const dictator = table({ 0b00: 0, 0b01: 1, 0b10: 0, 0b11: 1 });

  it('counterfactual: the deciding agent gets all the credit, the other none', () => {
    const plan = counterfactualPlan(2);
    expect(plan.coalitions.sort()).toEqual([0b01, 0b10, 0b11]);
    expect(plan.credit(dictator)).toEqual({ credit: [1, 0], se: [0, 0] });
  });

  it('Shapley (exact): efficient and symmetric', () => {
    expect(shapleyExactPlan(2).credit(dictator).credit).toEqual([1, 0]);
    // 3 agents: 0 and 1 interchangeable (each worth 1, 2 more together), 2 worth 3 alone, 1 with anyone.
    const v = (s: Coalition) => {
      const has = (k: number) => (s >> k) & 1;
      return has(0) + has(1) + 2 * has(0) * has(1) + 3 * has(2) - 2 * has(2) * (has(0) | has(1));
    };
    const { credit } = shapleyExactPlan(3).credit(v);
    expect(credit[0] + credit[1] + credit[2]).toBeCloseTo(v(0b111) - v(0), 12);
    expect(credit[0]).toBeCloseTo(credit[1], 12);
    // By hand: v(∅)=0, v(0)=v(1)=1, v(2)=3, v(01)=4, v(02)=v(12)=2, v(012)=5;
    // φ2 = ⅓(3 − 0) + ⅙(2 − 1) + ⅙(2 − 1) + ⅓(5 − 4) = 5/3, and φ0 = φ1 = (5 − 5/3)/2 = 5/3.
    expect(credit[2]).toBeCloseTo(5 / 3, 12);
    expect(credit[0]).toBeCloseTo(5 / 3, 12);
  });

  it('Monte-Carlo permutations converge to the exact value on a 4-agent game, within their standard error', () => {
    // A weighted game with synergy: v(S) = (Σ_{k∈S} w_k)², w = 1, 2, 3, 0.5 (no two alike).
    const w = [1, 2, 3, 0.5];
    const v = (s: Coalition) => w.reduce((a, wk, k) => a + (s & (1 << k) ? wk : 0), 0) ** 2;
    const exact = shapleyExactPlan(4).credit(v).credit;
    expect(exact.reduce((a, b) => a + b, 0)).toBeCloseTo(v(0b1111), 10);
    const few = shapleyPermutationPlan(4, 64, new Prng(7)).credit(v);
    const many = shapleyPermutationPlan(4, 4096, new Prng(7)).credit(v);
    for (let k = 0; k < 4; k++) {
      expect(Math.abs(many.credit[k] - exact[k])).toBeLessThan(3 * many.se[k]);
      expect(Math.abs(few.credit[k] - exact[k])).toBeLessThan(3 * few.se[k]);
      expect(many.se[k]).toBeLessThan(few.se[k] / 4); // ~1/√M: 64× the samples, 8× smaller
      expect(many.se[k]).toBeGreaterThan(0);
    }
    // Seeded: the same stream gives the same estimate.
    expect(shapleyPermutationPlan(4, 64, new Prng(7)).credit(v)).toEqual(few);
  });

  it('picks the plan by mode and agent count: none for shared, exact up to 3 agents, permutations beyond', () => {
    const rng = new Prng(1);
    expect(creditPlan('shared', 3, { samples: 8, rng })).toBeNull();
    expect(creditPlan('counterfactual', 3, { samples: 8, rng })!.coalitions).toHaveLength(4);
    expect(creditPlan('shapley', 3, { samples: 8, rng })!.coalitions).toHaveLength(8);
    const mc = creditPlan('shapley', 5, { samples: 8, rng })!;
    expect(mc.coalitions.length).toBeLessThanOrEqual(1 + 8 * 5);
    expect(mc.coalitions).toContain(0);
    expect(mc.coalitions).toContain(0b11111);
  });
});
