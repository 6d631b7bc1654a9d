/**
 * The end-of-run summary: final evaluation, final reward, and per-agent gradient-norm median, max
 * and spikes (steps above 3× the run's running median, src/rl/stats.ts). Computed from the
 * recorded metric history, so the CLI and the UI report the same numbers.
 */
import { agentKey, M } from '../core/metrics';
import { gradSpikes } from '../rl/stats';

export interface AgentSummary {
  gradNormMedian: number;
  gradNormMax: number;
  spikes: number;
}

export interface RunSummary {
  run: string;
  seed: number;
  steps: number;
  /** Last recorded eval/avg@k and eval/pass@k (NaN if never evaluated). */
  evalAvg: number;
  evalPass: number;
  /** Mean of reward/mean over the last 10 steps. */
  finalReward: number;
  skippedUpdates: number;
  envErrors: number;
  agents: Record<string, AgentSummary>;
}

function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

export function summarize(
  run: string,
  seed: number,
  history: readonly Record<string, number>[],
  agents: readonly string[],
  evalK: number,
): RunSummary {
  const col = (key: string) => history.map((m) => m[key] ?? NaN);
  const last = (key: string) => col(key).filter(Number.isFinite).at(-1) ?? NaN;
  const tail = col(M.rewardMean).slice(-10).filter(Number.isFinite);
  const sum = (key: string) => col(key).filter(Number.isFinite).reduce((a, x) => a + x, 0);
  return {
    run,
    seed,
    steps: history.length,
    evalAvg: last(`eval/avg@${evalK}`),
    evalPass: last(`eval/pass@${evalK}`),
    finalReward: tail.length ? tail.reduce((a, x) => a + x, 0) / tail.length : NaN,
    skippedUpdates: sum(M.updateSkipped),
    envErrors: sum(M.envErrors),
    agents: Object.fromEntries(
      agents.map((a) => {
        const g = col(agentKey(a, 'grad_norm'));
        const finite = g.filter(Number.isFinite);
        return [a, { gradNormMedian: median(g), gradNormMax: finite.length ? Math.max(...finite) : NaN, spikes: gradSpikes(g).length }];
      }),
    ),
  };
}
