/**
 * "What differs": per agent, in plain words, how GRPO and Dr. MAS (and the other runs' estimators,
 * what-differs.ts's `others`) weigh the same batches. The
 * sentences come from report/what-differs.ts, read from the recorded history of one run (the first whose
 * own estimator is GRPO or Dr. MAS, so the two estimators' correlation was measured): its same-batch
 * diagnostics weigh its rows by both estimators, which is why one seed is enough. It follows
 * training every couple of seconds, like Findings.
 */
import { useMemo } from 'react';
import { ESTIMATORS } from '../../core/estimators';
import { presetOf } from '../../core/presets';
import { DIFFERS_WINDOW, differsKeys, differsPick, whatDiffers } from '../../report/what-differs';
import { listed } from '../../core/config-words';
import type { AgentDifference } from '../../report/what-differs';
import { historyOf } from '../run-data';
import { boardConfig, boardRuns, useLab } from '../session/store';
import type { LabState } from '../session/store';
import { useThrottledLab } from '../throttled';

const FOLLOW_MS = 2000;
const versionOf = (s: LabState) => s.frameVersion;

const PAIR = ['grpo', 'drmas'] as const;

/** One bar: an estimator's advantage scale for the agent (√E[A²]). */
interface Bar {
  name: string;
  label: string;
  color: string;
  rms: number;
}

/** The bars of an agent: GRPO's and Dr. MAS's, then each other run's estimator weighed on the same rows. */
const barsOf = (a: AgentDifference): Bar[] => [
  ...PAIR.map((e) => ({ name: e, label: ESTIMATORS[e].label, color: ESTIMATORS[e].color, rms: a.rms[e] })),
  ...(a.others ?? []).map((o) => ({
    name: o.estimator,
    label: ESTIMATORS[o.estimator].label,
    color: ESTIMATORS[o.estimator].color,
    rms: o.rms,
  })),
];

/**
 * The agent's advantage scales (√E[A²]) as bars in the estimators' colours, against `max`, the
 * largest on the card: what the sentence says, read without it. Three decimals: the sentence's
 * ratio is of the unrounded scales, and at two, bars of 0.87 and 0.89 sat beside "1.03×".
 */
const scaleText = (rms: number) => rms.toFixed(3);

function ScaleBars({ bars, max }: { bars: Bar[]; max: number }) {
  if (!(max > 0) || !bars.every((b) => Number.isFinite(b.rms))) return null;
  const words = bars.map((b) => `${b.label} ${scaleText(b.rms)}`).join(', ');
  return (
    <div className="differs-bars" role="img" aria-label={`Advantage scale: ${words}`}>
      {bars.map((b) => (
        <div key={b.name} className="differs-bar-row" data-estimator={b.name}>
          <span>{b.label}</span>
          <span className="differs-track">
            <span className="differs-bar" style={{ width: `${(100 * b.rms) / max}%`, background: b.color }} />
          </span>
          <span className="num">{scaleText(b.rms)}</span>
        </div>
      ))}
    </div>
  );
}

export function WhatDiffers() {
  const version = useThrottledLab(versionOf, null, FOLLOW_MS);
  const runsKey = useLab((s) =>
    boardRuns(s)
      .map((r) => `${r.id}:${r.agents.join('+')}`)
      .join(','),
  );
  const card = useMemo(() => {
    void version;
    void runsKey;
    const s = useLab.getState();
    const picked = differsPick(boardConfig(s), boardRuns(s));
    if (!picked) return null;
    const { r, estimator, trajectories, trees, groupSize, others } = picked;
    const history = historyOf(r.id, differsKeys(r.agents, others), DIFFERS_WINDOW);
    const differs = whatDiffers(history, r.agents, estimator, {
      trajectories,
      groupSize,
      trees,
      run: r.label,
      others,
    });
    // differsPick prefers a GRPO or Dr. MAS run; with neither on screen the pair weighs another’s rows.
    if (!differs) return null;
    const reference = estimator === 'grpo' || estimator === 'drmas' ? null : `the ${r.label} run`;
    const maxRms = Math.max(
      ...differs.agents.flatMap((a) => barsOf(a).map((b) => b.rms)).filter(Number.isFinite),
    );
    // The estimators the card weighs the rows by: the pair, then the other runs' (the heading names them).
    const weighed = [
      ...PAIR.map((e) => ESTIMATORS[e].label),
      ...(differs.agents[0]?.others ?? []).map((o) => ESTIMATORS[o.estimator].label),
    ];
    // What a study measured on this setting, read beside what this one run shows.
    const story = presetOf(boardConfig(s))?.story;
    return { ...differs, reference, maxRms, story, weighed };
  }, [version, runsKey]);
  if (!card) return null;
  return (
    <section className="panel what-differs" aria-labelledby="what-differs-title" data-testid="what-differs">
      <h2 id="what-differs-title">What differs: {listed(card.weighed)} on the same batches</h2>
      {/* The two estimators are the lab's reference pair, whatever the runs train with: say so when neither run does. */}
      {card.reference && (
        <p className="muted" data-testid="what-differs-reference">
          Neither is an estimator a run on screen trains with: both weigh the rows of {card.reference}, as
          references.
        </p>
      )}
      {card.story && (
        <p className="differs-story" data-testid="what-differs-story">
          {card.story}
        </p>
      )}
      <p data-testid="what-differs-summary">{card.summary}</p>
      {card.runs && (
        <p className="muted" data-testid="what-differs-runs">
          {card.runs}
        </p>
      )}
      {!card.identical && (
        <p className="muted">
          Bars: each estimator’s advantage scale for the agent (root mean square advantage).
        </p>
      )}
      <ul>
        {card.agents.map((a) => (
          <li key={a.agent} data-agent={a.agent}>
            {!card.identical && <ScaleBars bars={barsOf(a)} max={card.maxRms} />}
            <span>
              <strong>{a.agent}</strong>: {a.sentence}
            </span>
          </li>
        ))}
      </ul>
      <details className="muted">
        <summary>How these numbers are measured</summary>
        Every estimator on the card weighs this run’s own rows, so the differences are the estimators’ alone
        and one seed is enough. Advantage scale: the root mean square of the agent’s advantages. Correlation:
        1 when the two order and space its rows alike. Amplification: how far the agent’s rewards sit from,
        and spread around, {card.scores}, relative to their spread. It is GRPO’s E[A²] for the agent only
        where each of its rows carries its trajectory’s reward, since GRPO weighs every row by its
        trajectory’s score; where rows carry rewards of their own (their own part, a dial, a penalty) it
        describes the rewards and predicts nothing, so the card leaves it out. The charts under “Same batch,
        every estimator” show each number step by step.
      </details>
    </section>
  );
}
