/**
 * Thompson sampling for the MARS2 search (src/tasks/mcts.ts): Beta posteriors on node scores in
 * [0, 1] and seeded Beta draws from the run's PRNG (core/prng.ts). Pure: no tfjs, no DOM.
 *
 * A score s in [0, 1] updates Beta(α, β) to Beta(α + s, β + 1 − s): a fractional Bernoulli
 * observation, so a node passing 3 of 4 tests counts as 0.75 of a success. The prior is
 * Beta(1, 1), uniform: an arm with no node yet is drawn as likely high as low.
 */
import type { Prng } from '../core/prng';

export interface Beta {
  a: number;
  b: number;
}

/** Beta(1, 1) updated with every score (each clamped to [0, 1]). */
export function posterior(scores: readonly number[]): Beta {
  let a = 1;
  let b = 1;
  for (const s of scores) {
    const c = Math.min(1, Math.max(0, s));
    a += c;
    b += 1 - c;
  }
  return { a, b };
}

export const posteriorMean = (p: Beta): number => p.a / (p.a + p.b);

/** A standard normal draw (Box–Muller, one of the pair). */
function normal(rng: Prng): number {
  const u = 1 - rng.next(); // (0, 1]: log is finite
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** A Gamma(shape, 1) draw, shape ≥ 1 (Marsaglia and Tsang's squeeze); below 1 by the U^(1/k) boost. */
function gamma(rng: Prng, shape: number): number {
  if (shape < 1) return gamma(rng, shape + 1) * Math.pow(1 - rng.next(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - rng.next();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A draw from Beta(a, b), as X/(X + Y) with X ~ Gamma(a), Y ~ Gamma(b). */
export function drawBeta(rng: Prng, p: Beta): number {
  const x = gamma(rng, p.a);
  const y = gamma(rng, p.b);
  return x / (x + y);
}

/**
 * Thompson sampling: one draw per arm from its posterior, in arm order; the index of the highest
 * draw (the first on an exact tie).
 */
export function thompsonPick(rng: Prng, arms: readonly Beta[]): number {
  let best = -1;
  let top = -Infinity;
  arms.forEach((p, i) => {
    const d = drawBeta(rng, p);
    if (d > top) {
      top = d;
      best = i;
    }
  });
  return best;
}
