/**
 * What a loss-balance study must check before its table is written: balancing the loss by 1/n_k
 * only weighs something where the agents act unequally often. Each agent's calls per trajectory
 * (agent/<a>/calls, its rows in a step's batch, over the batch's B × G trajectories), and the
 * refusal of a folder whose agents act about equally often (the first math run of the reviewers'
 * 2 × 2 had 1.00 solver and 1.00 verifier calls per trajectory: nothing to balance). Pure.
 */

/** The least ratio of the busiest agent's calls to the least busy one's for balancing to weigh anything. */
export const BALANCE_RATIO = 1.3;

/** Each agent's mean calls per trajectory over every recorded step of every repeat. */
export function callsPerTrajectory(
  lines: readonly Record<string, unknown>[],
  trajectoriesPerStep: number,
): Record<string, number> {
  const sums = new Map<string, { total: number; steps: number }>();
  for (const line of lines)
    for (const [key, value] of Object.entries(line)) {
      const m = /^agent\/([^/]+)\/calls$/.exec(key);
      if (!m || typeof value !== 'number' || !Number.isFinite(value)) continue;
      const s = sums.get(m[1]) ?? { total: 0, steps: 0 };
      sums.set(m[1], { total: s.total + value, steps: s.steps + 1 });
    }
  return Object.fromEntries([...sums].map(([a, s]) => [a, s.total / s.steps / trajectoriesPerStep]));
}

/** Why a folder with these calls per trajectory cannot show a loss-balance effect, or null if it can. */
export function balanceRefusal(calls: Readonly<Record<string, number>>): string | null {
  const values = Object.values(calls);
  if (values.length < 2) return 'one agent: there is nothing to balance';
  const [most, least] = [Math.max(...values), Math.min(...values)];
  if (least > 0 && most / least >= BALANCE_RATIO) return null;
  return `its agents act about equally often (${callsText(calls)} calls per trajectory; the busiest needs ${BALANCE_RATIO}× the least busy): 1/n_k balancing has nothing to weigh down`;
}

/** `solver 1.37, verifier 1.00`. */
export const callsText = (calls: Readonly<Record<string, number>>): string =>
  Object.entries(calls)
    .map(([a, c]) => `${a} ${c.toFixed(2)}`)
    .join(', ');
