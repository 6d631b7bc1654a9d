/**
 * The chart board: a legend that toggles runs and agents, the smoothing slider, then per-agent
 * charts (μk, σk, advantage moments, amplification, grad norm, loss diagnostics) and per-run
 * charts (reward, success, eval, throughput). Series names and keys come from src/core/metrics.ts.
 */
import { useMemo } from 'react';
import { agentKey, evalAvgKey, evalPassKey, M } from '../../core/metrics';
import type { AgentStat } from '../../core/metrics';
import { agentDash, setView, toggleAgent, toggleRun, useLab } from '../store';
import type { Marker, RunView } from '../store';
import { MetricChart } from './MetricChart';
import type { SeriesSpec } from './MetricChart';

interface AgentChart {
  stat: AgentStat;
  title: string;
  hint: string;
}

const AGENT_CHARTS: AgentChart[] = [
  { stat: 'reward/mean', title: 'μk · reward mean', hint: 'mean reward over agent k’s rows' },
  { stat: 'reward/std', title: 'σk · reward std', hint: 'std of reward over agent k’s rows' },
  { stat: 'adv/mean', title: 'Advantage mean', hint: 'mean advantage of agent k’s rows' },
  { stat: 'adv/sq_mean', title: 'E[A²]', hint: 'advantage second moment: scales agent k’s gradient' },
];
const DIAG_CHARTS: AgentChart[] = [
  { stat: 'kl', title: 'KL (π_old ‖ π)', hint: 'policy drift within the update (verl ppo_kl)' },
  { stat: 'entropy', title: 'Entropy', hint: 'mean token entropy of the policy' },
  { stat: 'clipfrac', title: 'Clip fraction', hint: 'share of tokens whose ratio was clipped' },
  { stat: 'resp_len', title: 'Response length', hint: 'tokens per response' },
];

/** Beside the amplification chart (a constant element, so the memoized chart is not re-rendered). */
const AMPLIFICATION_NOTE = (
  <p className="explain">
    How far agent k’s rewards sit from its group’s: μk, σk over the agent’s rows, μ, σ over the group’s
    trajectories. Under one shared baseline (GRPO) this is agent k’s E[A²] (Dr. MAS, Lemma 4.2), so an agent
    with off-centre or wider rewards gets inflated gradients. Dr. MAS normalizes per agent, which brings E[A²]
    to (n_k − 1)/n_k whatever this factor is: compare the E[A²] chart.
  </p>
);

/** The agents in the order the task lists them (the first run that knows them). */
function agentsOf(runs: RunView[]): string[] {
  return runs.find((r) => r.agents.length > 0)?.agents ?? [];
}

/** Runs of one config entry (several seeds) form one series: their mean with a min–max band. */
function groups(runs: RunView[]): { key: string; runs: RunView[]; label: string }[] {
  const byIndex = new Map<number, RunView[]>();
  for (const r of runs) byIndex.set(r.runIndex, [...(byIndex.get(r.runIndex) ?? []), r]);
  return [...byIndex.values()].map((rs) => ({
    key: `r${rs[0].runIndex}`,
    runs: rs,
    label: rs.length > 1 ? `${rs[0].label.replace(/ #\d+$/, '')} (mean of ${rs.length})` : rs[0].label,
  }));
}

function agentSpecs(runs: RunView[], agents: string[], stat: AgentStat): SeriesSpec[] {
  return groups(runs).flatMap((g) =>
    agents.map((a, ai) => ({
      id: `${g.key}a${ai}`,
      runIds: g.runs.map((r) => r.id),
      key: agentKey(a, stat),
      name: `${g.label} · ${a}`,
      color: g.runs[0].color,
      dash: agentDash(ai),
    })),
  );
}

function runSpecs(runs: RunView[], keys: { key: string; name: string }[]): SeriesSpec[] {
  return groups(runs).flatMap((g) =>
    keys.map((k, ki) => ({
      id: `${g.key}k${ki}`,
      runIds: g.runs.map((r) => r.id),
      key: k.key,
      name: keys.length > 1 ? `${g.label} · ${k.name}` : g.label,
      color: g.runs[0].color,
      dash: agentDash(ki),
    })),
  );
}

export function Legend() {
  const runs = useLab((s) => s.runs);
  const hiddenRuns = useLab((s) => s.view.hiddenRuns);
  const hiddenAgents = useLab((s) => s.view.hiddenAgents);
  const smoothing = useLab((s) => s.view.smoothing);
  const agents = agentsOf(runs);
  const byIndex = [...new Map(runs.map((r) => [r.runIndex, r])).values()];
  return (
    <div className="legend" role="group" aria-label="Series">
      <span className="legend-label">Runs</span>
      {byIndex.map((r) => (
        <button
          key={r.runIndex}
          type="button"
          className="legend-item"
          aria-pressed={!hiddenRuns.includes(r.runIndex)}
          data-run-color={r.color}
          onClick={() => toggleRun(r.runIndex)}
        >
          <svg width="22" height="8" aria-hidden="true">
            <line x1="0" y1="4" x2="22" y2="4" stroke={r.color} strokeWidth="3" />
          </svg>
          {r.label.replace(/ #\d+$/, '')}
        </button>
      ))}
      {agents.length > 0 && <span className="legend-label">Agents</span>}
      {agents.map((a, i) => (
        <button
          key={a}
          type="button"
          className="legend-item"
          aria-pressed={!hiddenAgents.includes(a)}
          onClick={() => toggleAgent(a)}
        >
          <svg width="26" height="8" aria-hidden="true">
            <line
              x1="0"
              y1="4"
              x2="26"
              y2="4"
              stroke="#39424d"
              strokeWidth="2"
              strokeDasharray={agentDash(i)}
            />
          </svg>
          {a}
        </button>
      ))}
      <label className="smoothing">
        Smoothing
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={smoothing}
          onChange={(e) => setView({ smoothing: Number(e.target.value) })}
          aria-valuetext={`${smoothing.toFixed(2)}`}
        />
        <output>{smoothing.toFixed(2)}</output>
      </label>
    </div>
  );
}

const logToggles = [false, true].map((on) => (
  <label className="toggle">
    <input type="checkbox" checked={on} onChange={(e) => setView({ logGradNorm: e.target.checked })} /> log y
  </label>
));
/** The grad-norm chart's log-y toggle, one constant element per state. */
const logToggle = (on: boolean) => logToggles[on ? 1 : 0];

export function Charts() {
  const allRuns = useLab((s) => s.runs);
  const view = useLab((s) => s.view);
  const evalK = useLab((s) => s.config.eval.k);
  const evalOn = useLab((s) => s.config.eval.every > 0);
  const runs = useMemo(
    () => allRuns.filter((r) => !view.hiddenRuns.includes(r.runIndex)),
    [allRuns, view.hiddenRuns],
  );
  const agentsKey = agentsOf(allRuns).join('|');
  const agents = useMemo(
    () => (agentsKey ? agentsKey.split('|') : []).filter((a) => !view.hiddenAgents.includes(a)),
    [agentsKey, view.hiddenAgents],
  );
  // Series lists change only with the runs shown, never with frames: charts memoize on them.
  const runKey = runs.map((r) => `${r.id}:${r.agents.length}`).join(',');
  const markersKey = allRuns.map((r) => r.markers.length).join(',');
  const markers = useMemo((): Marker[] => {
    void markersKey;
    return allRuns.flatMap((r) => r.markers);
  }, [markersKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const specs = useMemo(() => {
    void runKey;
    const byStat = (stat: AgentStat) => agentSpecs(runs, agents, stat);
    return {
      agent: Object.fromEntries([...AGENT_CHARTS, ...DIAG_CHARTS].map((c) => [c.stat, byStat(c.stat)])),
      amplification: byStat('amplification'),
      grad: byStat('grad_norm'),
      reward: runSpecs(runs, [{ key: M.rewardMean, name: 'reward' }]),
      success: runSpecs(runs, [{ key: M.successRate, name: 'success' }]),
      eval: runSpecs(runs, [
        { key: evalAvgKey(evalK), name: `avg@${evalK}` },
        { key: evalPassKey(evalK), name: `pass@${evalK}` },
      ]),
      tps: runSpecs(runs, [{ key: M.tokensPerS, name: 'tokens/s' }]),
    };
  }, [runKey, agents, evalK]); // eslint-disable-line react-hooks/exhaustive-deps

  if (allRuns.length === 0) {
    return (
      <section className="board empty" aria-label="Charts">
        <p>
          Press <strong>Train</strong> to start every run of this experiment side by side. Each run gets its
          own worker; charts fill in as steps complete.
        </p>
      </section>
    );
  }
  const gradLog = logToggle(view.logGradNorm);
  /** One chart per agent statistic, every agent's series in it. */
  const agentCharts = (charts: AgentChart[]) =>
    charts.map((c) => (
      <MetricChart
        key={c.stat}
        title={c.title}
        metric={`agent/·/${c.stat}`}
        about={c.hint}
        specs={specs.agent[c.stat]}
        markers={markers}
      />
    ));
  return (
    <section className="board" aria-label="Charts">
      <Legend />
      <h2 className="board-title">Run</h2>
      <div className="grid run">
        <MetricChart
          title="Reward"
          metric="reward/mean"
          about="mean trajectory reward of the training batch"
          specs={specs.reward}
          markers={markers}
        />
        <MetricChart
          title="Success rate"
          metric="success/rate"
          about="share of training trajectories that solved the task"
          specs={specs.success}
          markers={markers}
        />
        <MetricChart
          title={`Eval avg@${evalK} / pass@${evalK}`}
          metric={evalOn ? `eval/avg@${evalK} · pass@${evalK}` : 'off (eval.every = 0)'}
          about="held-out questions, K samples each"
          specs={specs.eval}
          markers={markers}
        />
        <MetricChart
          title="Throughput"
          metric="perf/tokens_per_s"
          about="sampled tokens per second of rollout"
          specs={specs.tps}
          markers={markers}
        />
      </div>
      <h2 className="board-title">Per agent</h2>
      <div className="grid">
        {agentCharts(AGENT_CHARTS)}
        <MetricChart
          title="Amplification"
          metric="agent/·/amplification"
          about="(σk² + (μk − μ)²) / σ², mean over groups with σ > 0"
          refY={1}
          specs={specs.amplification}
          markers={markers}
        >
          {AMPLIFICATION_NOTE}
        </MetricChart>
        <MetricChart
          title="Pre-clip grad norm"
          metric="agent/·/grad_norm"
          about="L2 norm of the gradient of each agent’s loss term, before clipping"
          specs={specs.grad}
          markers={markers}
          log={view.logGradNorm}
          tools={gradLog}
        />
      </div>
      <h2 className="board-title">Update diagnostics</h2>
      <div className="grid">
        {agentCharts(DIAG_CHARTS)}
      </div>
    </section>
  );
}
