/**
 * The chart board: a legend that toggles runs and agents, the layout toggle and the smoothing
 * slider, then per-run charts (reward, success, eval, throughput) and per-agent charts (μk, σk,
 * advantage moments, amplification, grad norm, loss diagnostics). Overlaid, every run shares each
 * chart; side by side, each row is one metric with a column per run on one y scale. Series names
 * and keys come from src/core/metrics.ts.
 */
import { Fragment, useMemo } from 'react';
import type { ReactNode } from 'react';
import { ESTIMATOR_NAMES } from '../../core/config';
import type { EstimatorName } from '../../core/config';
import { ESTIMATORS } from '../../rl/advantage';
import { agentKey, agentShadowKey, evalAvgKey, evalPassKey, M } from '../../core/metrics';
import type { AgentStat } from '../../core/metrics';
import { agentDash, setView, toggleAgent, toggleRun, useLab } from '../store';
import type { ChartLayout, Marker, RunView } from '../store';
import { MetricChart } from './MetricChart';
import type { SeriesSpec } from './SeriesLayer';

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

/**
 * The runs as the board needs them (the session's, then the imported read-only ones): a new list only when a run, its agents or its markers change,
 * not on every animation frame's step-counter update (the charts re-read frames on their own).
 */
function useBoardRuns(): RunView[] {
  const key = useLab((s) =>
    [...s.runs, ...s.imported].map((r) => `${r.id}:${r.runIndex}:${r.label}:${r.agents.join('+')}:${r.evalKs ?? ''}:${r.markers.length}`).join(','),
  );
  return useMemo(() => {
    void key;
    const { runs, imported } = useLab.getState();
    return [...runs, ...imported];
  }, [key]);
}

/**
 * Every run's agents, in the order the task lists them (the session's runs first), then the other
 * names imported runs carry (a cluster run's agents come from its data, not from this task).
 */
function agentsOf(runs: RunView[]): string[] {
  return [...new Set(runs.flatMap((r) => r.agents))];
}

/** The eval K of each run: its own for an imported run (every K it carries), else the experiment's. */
const evalKsOfRun = (r: RunView, evalK: number): number[] => r.evalKs ?? [evalK];

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

/** Beside the same-batch charts: how to read them. */
const SHADOW_NOTE = (
  <p className="explain">
    Each run’s own batch, weighed again by every estimator. Within one chart the estimator is fixed, so the runs’
    lines differ only through their data: that is how far the runs drifted apart. Across charts the data is fixed,
    so one run’s lines differ only through the estimator: that is how differently the estimators weigh the same
    rows. A correlation of 1 and equal E[A²] mean the estimators agree on this batch.
  </p>
);

/** The estimators the same-batch section shows: the runs' own, or all of them if the runs share one. */
function shadowEstimators(runs: { estimator: EstimatorName }[]): EstimatorName[] {
  const own = [...new Set(runs.map((r) => r.estimator))];
  return own.length > 1 ? ESTIMATOR_NAMES.filter((e) => own.includes(e)) : [...ESTIMATOR_NAMES];
}

function agentSpecs(runs: RunView[], agents: string[], stat: AgentStat): SeriesSpec[] {
  return agentKeySpecs(runs, agents, (a) => agentKey(a, stat));
}

/** One series per group and agent it has (the dash is the agent's, as in the legend). */
function agentKeySpecs(runs: RunView[], agents: string[], keyOf: (agent: string) => string): SeriesSpec[] {
  return groups(runs).flatMap((g) =>
    agents.flatMap((a, ai): SeriesSpec[] =>
      g.runs.some((r) => r.agents.includes(a))
        ? [{ id: `${g.key}a${ai}`, runIds: g.runs.map((r) => r.id), key: keyOf(a), name: `${g.label} · ${a}`, color: g.runs[0].color, dash: agentDash(ai) }]
        : [],
    ),
  );
}

type RunKey = { key: string; name: string };

/** One series per group and key; `keys` may depend on the group's runs (an imported run's own eval K). */
function runSpecs(runs: RunView[], keysOf: RunKey[] | ((runs: RunView[]) => RunKey[])): SeriesSpec[] {
  return groups(runs).flatMap((g) => {
    const keys = typeof keysOf === 'function' ? keysOf(g.runs) : keysOf;
    return keys.map((k, ki) => ({
      id: `${g.key}k${ki}`,
      runIds: g.runs.map((r) => r.id),
      key: k.key,
      name: keys.length > 1 ? `${g.label} · ${k.name}` : g.label,
      color: g.runs[0].color,
      dash: agentDash(ki),
    }));
  });
}

/** Overlaid or side by side: a radio pair, so it is one tab stop and arrow keys switch it. */
function LayoutToggle() {
  const layout = useLab((s) => s.view.layout);
  const options: { value: ChartLayout; text: string }[] = [
    { value: 'overlaid', text: 'Overlaid' },
    { value: 'side-by-side', text: 'Side by side' },
  ];
  return (
    <div className="layout-toggle" role="radiogroup" aria-label="Chart layout">
      {options.map((o) => (
        <label key={o.value}>
          <input
            type="radio"
            name="chart-layout"
            value={o.value}
            checked={layout === o.value}
            onChange={() => setView({ layout: o.value })}
          />
          {o.text}
        </label>
      ))}
    </div>
  );
}

export function Legend() {
  const runs = useBoardRuns();
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
      <LayoutToggle />
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

/** One chart of the board; `specs` picks its series for the runs given (all, or one column's). */
interface ChartDef {
  title: string;
  metric: string;
  about: string;
  specs(runs: RunView[]): SeriesSpec[];
  refY?: number;
  /** The grad-norm chart: drawn on a log scale when the user asks (its log-y toggle). */
  logToggle?: boolean;
  children?: ReactNode;
}

/** The board's sections, in order: run-level charts, per-agent charts, update diagnostics. */
function boardSections(
  agents: string[],
  evalK: number,
  /** Every K the runs shown are evaluated at (the experiment's, and imported runs' own). */
  evalKs: number[],
  evalOn: boolean,
  estimators: EstimatorName[],
  shadowGrad: boolean,
  credit: boolean,
): { title: string; className: string; charts: ChartDef[] }[] {
  const perAgent = (c: AgentChart): ChartDef => ({
    title: c.title,
    metric: `agent/·/${c.stat}`,
    about: c.hint,
    specs: (runs) => agentSpecs(runs, agents, c.stat),
  });
  const perRun = (title: string, metric: string, about: string, keys: RunKey[] | ((runs: RunView[]) => RunKey[])) => ({
    title,
    metric,
    about,
    specs: (runs: RunView[]) => runSpecs(runs, keys),
  });
  return [
    {
      title: 'Run',
      className: 'grid run',
      charts: [
        perRun('Reward', 'reward/mean', 'mean trajectory reward of the training batch', [
          { key: M.rewardMean, name: 'reward' },
        ]),
        perRun('Success rate', 'success/rate', 'share of training trajectories that solved the task', [
          { key: M.successRate, name: 'success' },
        ]),
        perRun(
          `Eval avg@${evalKs.length === 1 ? evalKs[0] : 'K'} / pass@${evalKs.length === 1 ? evalKs[0] : 'K'}`,
          evalOn || evalKs.length > 1 ? evalKs.map((k) => `eval/avg@${k} · pass@${k}`).join(' · ') : 'off (eval.every = 0)',
          'held-out questions, K samples each (an imported run: its own K)',
          (rs) => [...new Set(rs.flatMap((r) => evalKsOfRun(r, evalK)))].flatMap((k) => [
            { key: evalAvgKey(k), name: `avg@${k}` },
            { key: evalPassKey(k), name: `pass@${k}` },
          ]),
        ),
        perRun('Throughput', 'perf/tokens_per_s', 'sampled tokens per second of rollout', [
          { key: M.tokensPerS, name: 'tokens/s' },
        ]),
      ],
    },
    {
      title: 'Per agent',
      className: 'grid',
      charts: [
        ...AGENT_CHARTS.map(perAgent),
        {
          ...perAgent({
            stat: 'amplification',
            title: 'Amplification',
            hint: '(σk² + (μk − μ)²) / σ², mean over groups with σ > 0',
          }),
          refY: 1,
          children: AMPLIFICATION_NOTE,
        },
        {
          ...perAgent({
            stat: 'grad_norm',
            title: 'Pre-clip grad norm',
            hint: 'L2 norm of the gradient of each agent’s loss term, before clipping',
          }),
          logToggle: true,
        },
        // Per-agent credit (reward.credit ≠ shared): only runs with credit have these series.
        ...(credit
          ? [
              perAgent({
                stat: 'credit/mean',
                title: 'Credit (mean)',
                hint: 'the agent’s counterfactual or Shapley credit over its rows; each row’s reward + λ × it',
              }),
              perAgent({ stat: 'credit/std', title: 'Credit (std)', hint: 'population std of the agent’s credit over its rows' }),
            ]
          : []),
      ],
    },
    { title: 'Update diagnostics', className: 'grid', charts: DIAG_CHARTS.map(perAgent) },
    {
      title: 'Same batch, every estimator',
      className: 'grid',
      charts: estimators.flatMap((e, i): ChartDef[] => {
        // The estimator's label in titles, its registry doc (what it normalizes over) in every tooltip.
        const { label, doc } = ESTIMATORS[e];
        const about = (what: string) => `${what}\n\n${label} (${e}): ${doc}`;
        return [
          {
            title: `E[A²] weighed by ${label}`,
            metric: `agent/·/shadow/${e}/sq_mean`,
            about: about(`each run’s own batch, advantages recomputed with ${label}: agent k’s E[A²]`),
            specs: (runs) => agentKeySpecs(runs, agents, (a) => agentShadowKey(a, e, 'sq_mean')),
            ...(i === 0 ? { children: SHADOW_NOTE } : {}),
          },
          {
            title: `Correlation of ${label} with the run’s own`,
            metric: `agent/·/shadow/${e}/corr`,
            about: about(
              `on each run’s own batch: correlation of ${label}’s advantages with the ones the run trained on`,
            ),
            specs: (runs) => agentKeySpecs(runs, agents, (a) => agentShadowKey(a, e, 'corr')),
            refY: 1,
          },
          ...(shadowGrad
            ? [
                {
                  title: `Grad norm weighed by ${label}`,
                  metric: `agent/·/shadow/${e}/grad_norm`,
                  about: about(
                    `each run’s own batch at the step’s starting weights, advantages from ${label}: agent k’s pre-clip gradient norm`,
                  ),
                  specs: (runs: RunView[]) =>
                    agentKeySpecs(runs, agents, (a) => agentShadowKey(a, e, 'grad_norm')),
                  logToggle: true,
                },
              ]
            : []),
        ];
      }),
    },
  ];
}

export function Charts() {
  const allRuns = useBoardRuns();
  const view = useLab((s) => s.view);
  const evalK = useLab((s) => s.config.eval.k);
  const evalOn = useLab((s) => s.config.eval.every > 0);
  const estimatorsKey = useLab((s) => shadowEstimators(s.config.runs).join('|'));
  const shadowGrad = useLab((s) => s.config.diagnostics.shadowGradNorm);
  const credit = useLab((s) => s.config.runs.some((r) => (r.reward.credit ?? s.config.reward.credit) !== 'shared'));
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
  const runKey = runs.map((r) => `${r.id}:${r.agents.join('+')}`).join(',');
  const markersKey = allRuns.map((r) => r.markers.length).join(',');
  const sideBySide = view.layout === 'side-by-side';
  const board = useMemo(() => {
    void runKey;
    void markersKey;
    // Columns: every run shown together (overlaid), or one per config entry (side by side).
    const columns = sideBySide
      ? groups(runs).map((g) => ({ label: g.label, runs: g.runs }))
      : [{ label: '', runs }];
    const markers = columns.map((c) => c.runs.flatMap((r): Marker[] => r.markers));
    const evalKs = [...new Set(runs.flatMap((r) => evalKsOfRun(r, evalK)))].sort((a, b) => a - b);
    return boardSections(agents, evalK, evalKs.length ? evalKs : [evalK], evalOn, estimatorsKey.split('|') as EstimatorName[], shadowGrad, credit).map((section) => ({
      ...section,
      rows: section.charts.map((def) => {
        const perColumn = columns.map((c) => def.specs(c.runs));
        return { def, perColumn, all: perColumn.flat() };
      }),
      columns,
      markers,
    }));
  }, [runKey, markersKey, agents, evalK, evalOn, estimatorsKey, shadowGrad, credit, sideBySide]); // eslint-disable-line react-hooks/exhaustive-deps

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
  return (
    <section className="board" aria-label="Charts">
      <Legend />
      {board.map((section) => (
        <Fragment key={section.title}>
          <h2 className="board-title">{section.title}</h2>
          {!sideBySide ? (
            <div className={section.className}>
              {section.rows.map(({ def, all }) => (
                <MetricChart
                  key={def.title}
                  title={def.title}
                  metric={def.metric}
                  about={def.about}
                  specs={all}
                  markers={section.markers[0]}
                  refY={def.refY}
                  log={def.logToggle && view.logGradNorm}
                  tools={def.logToggle && logToggle(view.logGradNorm)}
                >
                  {def.children}
                </MetricChart>
              ))}
            </div>
          ) : (
            section.rows.map(({ def, perColumn, all }) => (
              // One row per metric, one column per run, one y scale across the row.
              <div
                key={def.title}
                className="grid side"
                role="group"
                aria-label={def.title}
                style={{ gridTemplateColumns: `repeat(${section.columns.length}, minmax(0, 1fr))` }}
              >
                {section.columns.map((c, i) => (
                  <MetricChart
                    key={c.label}
                    title={`${def.title} — ${c.label}`}
                    metric={def.metric}
                    about={def.about}
                    specs={perColumn[i]}
                    scaleSpecs={all}
                    markers={section.markers[i]}
                    refY={def.refY}
                    log={def.logToggle && view.logGradNorm}
                    tools={def.logToggle && i === 0 && logToggle(view.logGradNorm)}
                  >
                    {i === 0 ? def.children : undefined}
                  </MetricChart>
                ))}
              </div>
            ))
          )}
        </Fragment>
      ))}
    </section>
  );
}
