/**
 * Rollout inspector: the latest trajectories of each run. Per trajectory, every agent turn with
 * its prompt (special tokens shown as ⟨bos⟩, ⟨env⟩…⟨/env⟩ feedback highlighted), the response
 * shaded by each token's probability under the sampling policy (log-prob on hover), the reward
 * and the row's advantage under the run's estimator (red negative, green positive) with what it was
 * computed from (the estimator's own words, core/estimators.ts advantageBasis); with per-agent credit,
 * the agent's credit and the counterfactual outcome (the replay without the agent).
 */
import { memo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { resolveRun } from '../../core/config-run';
import { type EstimatorChoice, advantageBasis } from '../../core/estimators';
import type { AdvantageOptions, RewardOptions } from '../../core/config-sections';
import { dialReward, dialsOf } from '../../rl/rows';
import { showTokens } from '../../core/vocab';
import type { InspectedSibling, InspectedTrajectory, InspectedTurn, RunId } from '../../workers/protocol';
import { noRolloutsNote, runData } from '../run-data';
import { boardConfig, boardRuns, useLab } from '../session/store';
import type { LabState } from '../session/store';
import { useThrottledLab } from '../throttled';
import { SearchTree } from './SearchTree';

/** How often the inspector follows new rollouts: it is read, not watched. */
const FOLLOW_MS = 1000;
const rolloutStepOf = (s: LabState, id: RunId | undefined) => s.runs.find((r) => r.id === id)?.rolloutStep;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
/** A value as the page writes numbers: d decimals, a minus sign (−0.72) rather than a hyphen, – for none. */
const num = (v: number, d = 3) => (Number.isFinite(v) ? v.toFixed(d).replace(/^-/, '−') : '–');

/** Red for negative, green for positive, stronger with |A| (saturating at 2). */
function advColor(a: number): string {
  if (!Number.isFinite(a) || a === 0) return 'rgba(120,128,140,0.15)';
  const alpha = 0.15 + 0.6 * Math.min(1, Math.abs(a) / 2);
  return a > 0 ? `rgba(26,127,55,${alpha})` : `rgba(207,34,46,${alpha})`;
}

/** Prompt text with environment feedback segments highlighted. */
function Prompt({ text }: { text: string }) {
  const shown = showTokens(text);
  const parts = shown.split(/(⟨env⟩[\s\S]*?⟨\/env⟩)/);
  return (
    <code className="prompt">
      {parts.map((p, i) =>
        p.startsWith('⟨env⟩') ? (
          <mark key={i} className="env">
            {p}
          </mark>
        ) : (
          <span key={i}>{p}</span>
        ),
      )}
    </code>
  );
}

/** One span per response token (the vocabulary is characters), shaded by 1 − p. */
function Response({ turn }: { turn: InspectedTurn }) {
  const chars = [...turn.response];
  const tokens = chars.length < turn.logp.length ? [...chars, '\uE002'] : chars;
  return (
    <code className="response">
      {tokens.map((ch, i) => {
        const lp = turn.logp[i];
        const p = Number.isFinite(lp) ? Math.exp(lp) : 1;
        return (
          <span
            key={i}
            className="tok"
            style={{ background: `rgba(230,120,20,${(0.75 * (1 - p)).toFixed(3)})` }}
            title={`${JSON.stringify(showTokens(ch))}  log p = ${num(lp)}  (p = ${num(p, 2)})`}
          >
            {showTokens(ch)}
          </span>
        );
      })}
    </code>
  );
}

/**
 * Tree sampling: the G candidates sampled from one state, with their rewards and advantages under
 * the run's estimator; the chosen one (its state was copied into every branch) is marked.
 */
function Siblings({ siblings }: { siblings: InspectedSibling[] }) {
  return (
    <table className="siblings" aria-label="Siblings">
      <thead>
        <tr>
          <th>branch</th>
          <th>response</th>
          <th>reward</th>
          <th>A</th>
          <th>chosen</th>
        </tr>
      </thead>
      <tbody>
        {siblings.map((s) => (
          <tr key={s.branch} data-chosen={s.chosen} data-valid={s.valid}>
            <td>{s.branch}</td>
            <td>
              <code>{showTokens(s.response)}</code>
            </td>
            <td title={`reward ${s.reward}`}>{num(s.reward, 2)}</td>
            <td>
              <span className="adv" style={{ background: advColor(s.advantage) }}>
                {num(s.advantage, 2)}
              </span>
            </td>
            <td>{s.chosen ? '✓ copied forward' : s.valid ? '' : 'invalid'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The run's estimator and whether it divides by the std: what its advantages were computed from. */
interface Basis {
  estimator: EstimatorChoice;
  normalizeStd: boolean;
  /** A custom estimator's sets (advantage.unit, .meanOver, .stdOver); the named ones ignore them. */
  algebra: AdvantageOptions;
  /** The run's reward settings: the joint reward, credit's weight and the dials the estimator's reward went through. */
  reward: RewardOptions;
}

/**
 * A turn's reward, named: the row's raw reward, and where the run changes it before the estimator
 * weighs it (the trainer's order: the joint reward, + λ × credit, then the dials ρ·r + b), the
 * reward the estimator and the agent's μk saw, with each change. In `sync-own-scaled` alice's
 * row reads "raw reward 1.00 → 8.00 after ×8", where "reward 1.00" sat beside a μk of about 6.
 */
function TurnReward({
  turn,
  outcome,
  reward,
}: {
  turn: InspectedTurn;
  outcome: number;
  reward: RewardOptions;
}) {
  const { scale, offset } = dialsOf(reward, turn.agent);
  const changes = [
    reward.joint ? `the trajectory’s joint reward ${num(outcome, 2)}` : '',
    turn.credit ? `+ ${turn.credit.weight} × credit` : '',
    scale !== 1 ? `×${scale}` : '',
    offset !== 0 ? `${offset > 0 ? '+' : '−'} ${Math.abs(offset)}` : '',
  ].filter(Boolean);
  if (changes.length === 0)
    return (
      <span title="The row’s reward: the estimator weighs it as it is (no dial, joint reward or credit).">
        reward {num(turn.reward, 2)}
      </span>
    );
  const base =
    (reward.joint ? outcome : turn.reward) + (turn.credit ? turn.credit.weight * turn.credit.credit : 0);
  const seen = dialReward(reward, turn.agent, base);
  return (
    <span
      data-testid="turn-reward"
      title="The row’s raw reward, then the reward the estimator weighed (and the agent’s μk counts) after the run’s changes."
    >
      raw reward {num(turn.reward, 2)} → {num(seen, 2)} after {changes.join(', ')}
    </span>
  );
}

/** Each turn's call index within its agent's turns of the trajectory (the estimators' `turn`). */
const callIndices = (turns: readonly InspectedTurn[]) => {
  const seen = new Map<string, number>();
  return turns.map((t) => {
    const n = seen.get(t.agent) ?? 0;
    seen.set(t.agent, n + 1);
    return n;
  });
};

const Trajectory = memo(function Trajectory({
  t,
  estimator,
  normalizeStd,
  algebra,
  reward,
}: { t: InspectedTrajectory } & Basis) {
  const calls = callIndices(t.turns);
  // One box: the inspector's grid gives its second column to one child, so a tree and its node
  // list side by side would put the list under the trajectory table, in its narrow column.
  return (
    <div className="trajectory">
      <SearchTree turns={t.turns} />
      <ol className="turns">
        {t.turns.map((turn, i) => (
          <li key={i} className="turn" data-valid={turn.valid}>
            <div className="turn-head">
              <span className="agent-chip">{turn.agent}</span>
              {turn.node && (
                <span>
                  node {turn.node.index} ·{' '}
                  {turn.node.parent < 0 ? 'fresh answer' : `refines node ${turn.node.parent}`}
                </span>
              )}
              <TurnReward turn={turn} outcome={t.reward} reward={reward} />
              <span
                className="adv"
                style={{ background: advColor(turn.advantage) }}
                data-sign={Math.sign(turn.advantage)}
              >
                A = {num(turn.advantage, 2)}
              </span>
              {turn.credit && (
                <span
                  className="credit"
                  title={`The estimator saw reward + ${turn.credit.weight} × credit. Credit = this trajectory's outcome minus the outcome of a replay with ${turn.agent}'s outputs replaced by its neutral default (counterfactual), or its Shapley value.`}
                >
                  credit {num(turn.credit.credit, 2)} · outcome without {turn.agent}{' '}
                  {num(turn.credit.without, 2)}
                </span>
              )}
              {!turn.valid && <span className="invalid">invalid (no gradient)</span>}
            </div>
            <p className="adv-basis">
              A from:{' '}
              {advantageBasis(estimator, { agent: turn.agent, turn: calls[i] }, normalizeStd, algebra)}
            </p>
            <Prompt text={turn.prompt} />
            <Response turn={turn} />
            {turn.siblings && <Siblings siblings={turn.siblings} />}
          </li>
        ))}
      </ol>
    </div>
  );
});

/** The worker sends the first groups of a batch (workers/inspect.ts): say so where there are more. */
function shownOf(trajs: readonly InspectedTrajectory[], batchSize: number): string {
  const groups = new Set(trajs.map((x) => x.group)).size;
  return groups > 0 && groups < batchSize ? ` (the first ${groups} of ${batchSize} groups)` : '';
}

export function RolloutInspector() {
  // Subscribed to the run ids only, so the inspector does not re-render with every step counter;
  // a run's label and colour never change, so they are read as they are.
  const ids = useLab(useShallow((s) => boardRuns(s).map((r) => r.id)));
  const runs = useLab.getState().runs.filter((r) => ids.includes(r.id));
  const config = useLab(boardConfig);
  const batchSize = config.rollout.batchSize; // groups per step (no run overrides it)
  const [runIdx, setRunIdx] = useState(0);
  const [sel, setSel] = useState(0);
  const run = runs[Math.min(runIdx, runs.length - 1)] as (typeof runs)[number] | undefined;
  // Re-render when the shown run's rollouts arrive (they live outside React state), at most
  // once per FOLLOW_MS.
  useThrottledLab(rolloutStepOf, run?.id, FOLLOW_MS);
  if (!run) return null;
  const latest = runData(run.id)?.rollouts;
  const trajs = latest?.trajectories ?? [];
  const t = trajs[Math.min(sel, trajs.length - 1)];
  const runConfig = config.runs[run.runIndex];
  const basis: Basis | null = runConfig
    ? (() => {
        const { advantage, reward } = resolveRun(config, runConfig);
        return {
          estimator: runConfig.estimator,
          normalizeStd: advantage.normalizeStd,
          algebra: advantage,
          reward,
        };
      })()
    : null;

  return (
    <section className="panel inspector" aria-labelledby="inspector-title">
      <div className="inspector-head">
        <h2 id="inspector-title">Rollouts</h2>
        <div role="tablist" aria-label="Run">
          {runs.map((r, i) => (
            <button
              key={r.id}
              type="button"
              role="tab"
              aria-selected={r.id === run.id}
              onClick={() => (setRunIdx(i), setSel(0))}
              style={{ borderBottomColor: r.id === run.id ? r.color : 'transparent' }}
            >
              {r.label}
            </button>
          ))}
        </div>
        <span className="muted">
          {latest
            ? `step ${latest.step} · ${trajs[0]?.tree ? count(trajs.length, 'tree', 'trees') : count(trajs.length, 'trajectory', 'trajectories')}${shownOf(trajs, batchSize)}`
            : noRolloutsNote(run.id)}
        </span>
      </div>
      {trajs.length > 0 && (
        <div className="inspector-body">
          <table className="traj-list" aria-label="Trajectories">
            <thead>
              <tr>
                <th>group</th>
                <th>traj</th>
                <th>reward</th>
                <th>ok</th>
              </tr>
            </thead>
            <tbody>
              {trajs.map((x, i) => (
                <tr
                  key={i}
                  aria-selected={x === t}
                  tabIndex={0}
                  onClick={() => setSel(i)}
                  onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), setSel(i))}
                >
                  <td>{x.group}</td>
                  <td>{x.tree ? 'tree' : x.traj}</td>
                  <td>{num(x.reward, 2)}</td>
                  <td>{x.status === 'error' ? 'env error' : x.success ? '✓' : '✗'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {t && basis && <Trajectory t={t} {...basis} />}
        </div>
      )}
    </section>
  );
}
