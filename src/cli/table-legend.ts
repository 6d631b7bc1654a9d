/**
 * The legend under the CLI's summary table (`lab train`, `lab report`): what its reward, skipped
 * and |g| med/max/spikes columns hold, which their headers are too short to say. Each clause
 * states what src/report/summary.ts computes.
 */
import type { RunSummary } from '../report/summary';
import { REWARD_TAIL } from '../report/summary';
import { SPIKE_FACTOR } from '../rl/stats';
import { stepsCount } from '../core/step-words';

/**
 * Two lines: the run-wide columns, then the per-agent gradient-norm columns. The reward tail is
 * the summaries' own (`lab report --tail N`), REWARD_TAIL where there are none.
 */
export function tableLegend(summaries: readonly RunSummary[]): string {
  const tail = summaries[0]?.rewardTail ?? REWARD_TAIL;
  return [
    // summarize's 'tail' figure of reward/mean, and the sum of update/skipped (model/update.ts's reasons).
    `reward: training reward (reward/mean) averaged over the last ${stepsCount(tail)} (all, if fewer); ` +
      'skipped: model updates skipped (non-finite loss, gradient or weights)',
    // gradSpikes (src/rl/stats.ts) at its default factor.
    '|g| med/max/spikes: pre-clip gradient norm, median and max over steps; ' +
      `spikes: steps above ${SPIKE_FACTOR}x the median of all earlier ones`,
  ].join('\n');
}
