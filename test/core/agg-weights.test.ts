import { describe, expect, it } from 'vitest';
import { LOSS_AGG_MODES as AGG_MODES } from '../../src/core/losses';
import { aggregate, aggregationWeights } from '../rl/reference-loss';

describe('aggregation weights', () => {
  // Ragged rows, one empty row, padding holding garbage.
  const B = 4;
  const T = 5;
  const mask = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
  const values = Array.from({ length: B * T }, (_, j) => (mask[j] ? Math.sin(j + 1) * 3 : 1e6));

  it.each(AGG_MODES)('%s: Σ w·L equals the reference aggregate', (mode) => {
    const w = aggregationWeights(mode, { mask, B, T, lMax: 7 });
    const viaWeights = w.reduce((acc, wj, j) => acc + wj * (mask[j] ? values[j] : 0), 0);
    expect(viaWeights).toBeCloseTo(aggregate(mode, { values, mask, B, T, lMax: 7 }), 12);
    expect(w.every((wj, j) => mask[j] || wj === 0)).toBe(true);
  });

  it('token-mean weights are 1/Σm on every response token', () => {
    const w = aggregationWeights('token-mean', { mask, B, T, lMax: T });
    expect(w[0]).toBeCloseTo(1 / 9, 15);
    expect(w.reduce((a, x) => a + x, 0)).toBeCloseTo(1, 15);
  });
});
