/**
 * Every loss-aggregation mode is linear in the per-token values: agg(L) = Σ_{i,t} w_{i,t}·L_{i,t}
 * with weights that depend only on the mask. The trainer computes w here, on the CPU, and the
 * device loss is one weighted sum, so (a) splitting a batch into per-agent terms is exact —
 * Σ_k Σ_{rows of k} w·L = agg(L) — and (b) the tfjs loss cannot drift from the reference modes
 * (a test checks Σ w·v = aggregate(mode, v) for every mode). Pure: no tfjs.
 */
import { AGG_MODES, type AggMode, type MaskedValues } from './aggregate';

/** w (B·T) with Σ w·values = aggregate(mode, {values, mask, B, T, lMax}) for every `values`. */
export function aggregationWeights(mode: AggMode, b: Omit<MaskedValues, 'values'>): Float64Array {
  const { mask, B, T, lMax } = b;
  const w = new Float64Array(B * T);
  const rowCount = (i: number) => {
    let c = 0;
    for (let t = 0; t < T; t++) c += mask[i * T + t];
    return c;
  };
  let perToken: (i: number) => number;
  switch (mode) {
    case 'token-mean': {
      let total = 0;
      for (let j = 0; j < B * T; j++) total += mask[j];
      perToken = () => 1 / Math.max(total, 1);
      break;
    }
    case 'seq-mean-token-sum':
      perToken = () => 1 / B;
      break;
    case 'seq-mean-token-mean':
      perToken = (i) => 1 / (B * Math.max(rowCount(i), 1));
      break;
    case 'seq-mean-token-sum-norm':
      perToken = () => 1 / lMax;
      break;
    case 'seq-mean-token-sum-norm-oat':
      perToken = () => 1 / (B * lMax);
      break;
    default: {
      const never: never = mode;
      throw new Error(`no weights for aggregation mode ${String(never)}; valid: ${AGG_MODES.join(', ')}`);
    }
  }
  for (let i = 0; i < B; i++) {
    const c = perToken(i);
    for (let t = 0; t < T; t++) w[i * T + t] = mask[i * T + t] * c;
  }
  return w;
}
