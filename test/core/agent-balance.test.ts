import { describe, expect, it } from 'vitest';
import { aggregate, aggregationWeights } from '../rl/reference-loss';

describe('agent-token-mean: loss balancing by 1/n_k', () => {
  // Agent a acts three times (4, 2 and 3 tokens), agent b once (5 tokens).
  const B = 4;
  const T = 5;
  const lengths = [4, 2, 3, 5];
  const agents = ['a', 'a', 'a', 'b'];
  const mask = lengths.flatMap((n) => Array.from({ length: T }, (_, t) => (t < n ? 1 : 0)));
  const values = mask.map((m, j) => (m ? Math.cos(j) * 2 : 1e6));

  it("each agent's tokens weigh 1/K in all, however often it acts", () => {
    const w = aggregationWeights('agent-token-mean', { mask, B, T, lMax: T, agents });
    const share = (agent: string) =>
      w.reduce((acc, wj, j) => acc + (agents[Math.floor(j / T)] === agent ? wj : 0), 0);
    expect(share('a')).toBeCloseTo(0.5, 15);
    expect(share('b')).toBeCloseTo(0.5, 15);
    // token-mean gives a its 9 tokens of 14: the weight balancing removes
    const plain = aggregationWeights('token-mean', { mask, B, T, lMax: T });
    expect(plain.slice(0, 3 * T).reduce((a, x) => a + x, 0)).toBeCloseTo(9 / 14, 15);
  });

  it('Σ w·L is the mean over agents of their token means', () => {
    const w = aggregationWeights('agent-token-mean', { mask, B, T, lMax: T, agents });
    const viaWeights = w.reduce((acc, wj, j) => acc + wj * (mask[j] ? values[j] : 0), 0);
    const tokenMean = (rows: number[]) => {
      const vs = rows.flatMap((i) => values.slice(i * T, i * T + lengths[i]));
      return vs.reduce((a, x) => a + x, 0) / vs.length;
    };
    const expected = (tokenMean([0, 1, 2]) + tokenMean([3])) / 2;
    expect(aggregate('agent-token-mean', { values, mask, B, T, lMax: T, agents })).toBeCloseTo(expected, 12);
    expect(viaWeights).toBeCloseTo(expected, 12);
  });
});
