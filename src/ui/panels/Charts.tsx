/**
 * The chart board: the legend, then the charts of the registry (src/core/charts.ts) that carry
 * information for the runs shown, by section; the flat ones (every line the same constant,
 * src/core/flat.ts) wait under "More charts" with the reason. Overlaid, every run shares each
 * chart; side by side, each row is one metric with a column per run on one y scale.
 */
import { Fragment, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import type { Experiment } from '../../core/config';
import {
  defText,
  ESTIMATOR_CHOICES,
  ESTIMATOR_OPTIONS,
  estimatorDef,
  type EstimatorChoice,
} from '../../core/estimators';
import { sameBatchEstimators } from '../../core/metrics';
import { boardCharts, CHART_SECTIONS, chartTitle } from '../../core/charts';
import { groupScores } from '../../core/config-run';
import type { ChartEntry } from '../../core/charts';
import { taskOf } from '../../tasks/registry';
import { boardConfig, useLab } from '../session/store';
import type { Marker, RunView } from '../session/store';
import { agentsOf, chartSpecs, evalKsOfRun, groups, useBoardRuns, useFlatCharts } from './board';
import { ChartHelp } from './ChartHelp';
import { useTrainBlockers } from './TrainOff';
import { onlyWaiting } from '../train-blockers';
import { Legend } from './Legend';
import { MetricChart } from './MetricChart';
import type { LogChoice } from './MetricChart';
import type { SeriesSpec } from './SeriesLayer';

/** Beside the amplification chart (a constant element, so the memoized chart is not re-rendered). */
const AMPLIFICATION_NOTE = (
  <p className="explain">
    How far agent k’s rewards sit from its group’s (μk, σk over k’s rows; μ, σ over the group’s trajectories).
    The dashed line, (G − 1)/G, is no amplification at all: k’s rewards sit where its trajectories’ scores do.
    Only where k’s rows carry their trajectory’s reward is this k’s E[A²] under GRPO’s one baseline (Dr. MAS,
    Lemma 4.2); Dr. MAS brings E[A²] to (n_k − 1)/n_k whatever it is (compare the E[A²] chart). Rewarded for
    its own part, an agent’s factor can read 20 or more and predict nothing: What differs then says
    amplification does not apply.
  </p>
);

/** Beside the same-batch charts: how to read them. */
const SAME_BATCH_NOTE = (
  <p className="explain">
    Each run’s own batch, weighed again by every estimator. Within one chart the estimator is fixed, so the
    runs’ lines differ only through their data: that is how far the runs drifted apart. Across charts the data
    is fixed, so one run’s lines differ only through the estimator: that is how differently the estimators
    weigh the same rows. A correlation of 1 and equal E[A²] mean the estimators agree on this batch.
  </p>
);

/** The estimators the same-batch section shows: the runs' own, or all of them if the runs share one. */
function sectionEstimators(runs: { estimator: EstimatorChoice }[]): EstimatorChoice[] {
  const own = [...new Set(runs.map((r) => r.estimator))];
  return own.length > 1 ? ESTIMATOR_CHOICES.filter((e) => own.includes(e)) : sameBatchEstimators(own[0]);
}

/** The definitions of the config's custom runs, for the `custom` charts' tooltips ('' when none). */
function customDefs(c: Experiment): string {
  return c.runs
    .filter((r) => r.estimator === 'custom')
    .map((r) => `${r.label}: ${defText(estimatorDef('custom', { ...c.advantage, ...r.advantage }))}`)
    .join('; ');
}

/** The metric key(s) a chart draws, with `·` for the agent. */
function metricOf(c: ChartEntry, evalKs: number[]): string {
  return c.series.per === 'agent'
    ? c.series.key('·')
    : c.series
        .keys(evalKs)
        .map((k) => k.key)
        .join(' · ');
}

/** One chart of the board with its series per column (one column when overlaid). */
interface Row {
  chart: ChartEntry;
  title: string;
  metric: string;
  about: string;
  help: ReactNode;
  children?: ReactNode;
  perColumn: SeriesSpec[][];
  specs: SeriesSpec[];
  runs: RunView[];
  /** Its reference line's level for the runs shown (one for the row, on its one y scale). */
  refY: number | undefined;
}

function BoardRow({
  row,
  columns,
  markers,
  logOn,
}: {
  row: Row;
  columns: { label: string }[];
  markers: Marker[][];
  logOn: LogChoice;
}) {
  const { chart, title, metric, about, help, perColumn, specs, refY } = row;
  const common = { metric, about, help, refY, log: chart.log ? logOn : false };
  // The log-y box, on charts with heavy tails (the registry's `log`); side by side, in the first column.
  const logToggle = chart.log ? chart.id : undefined;
  if (columns.length === 1 && !columns[0].label)
    return (
      <MetricChart title={title} specs={specs} markers={markers[0]} logToggle={logToggle} {...common}>
        {row.children}
      </MetricChart>
    );
  // One row per metric, one column per run, one y scale across the row.
  return (
    <div
      className="grid side"
      role="group"
      aria-label={title}
      style={{ gridTemplateColumns: `repeat(${columns.length}, minmax(0, 1fr))` }}
    >
      {columns.map((c, i) => (
        <MetricChart
          key={c.label}
          title={`${title} — ${c.label}`}
          specs={perColumn[i]}
          scaleSpecs={specs}
          markers={markers[i]}
          logToggle={i === 0 ? logToggle : undefined}
          {...common}
        >
          {i === 0 ? row.children : undefined}
        </MetricChart>
      ))}
    </div>
  );
}

/**
 * The board before any run: press Train, or that Train is off, pointing to why (its own component, so the reasons'
 * inputs re-render this line only, not the board).
 */
function EmptyBoard() {
  const off = useTrainBlockers();
  return (
    <section className="board empty" aria-label="Charts">
      <p>
        {off.length === 0 ? (
          <>
            Press <strong>Train</strong> to start
          </>
        ) : onlyWaiting(off) ? (
          'Once the backend check is done, Train starts'
        ) : (
          'Once it is on (why it is off: beside Train, at the top), Train starts'
        )}{' '}
        every run of this experiment side by side. Each run gets its own worker; charts fill in as steps
        complete.
      </p>
    </section>
  );
}

/** The board; `only`: one chart of it alone, by its id (an embed link's `view=chart:<id>`). */
export function Charts({ only }: { only?: string } = {}) {
  const allRuns = useBoardRuns();
  const view = useLab((s) => s.view);
  // The experiment the shown runs trained (a link sweep's shown cell): what the board draws for them.
  const config = useLab(boardConfig);
  const evalK = config.eval.k;
  const evalOn = config.eval.every > 0;
  const estimatorsKey = sectionEstimators(config.runs).join('|');
  const customs = useMemo(() => customDefs(config), [config]);
  const sameBatchGrad = config.diagnostics.shadowGradNorm;
  const credit = config.runs.some((r) => (r.reward.credit ?? config.reward.credit) !== 'shared');
  const mcts = config.runs.some((r) => (r.rollout.sampling ?? config.rollout.sampling) === 'mcts');
  // The task is the experiment's, shared by every run: it alone decides whether own_success exists.
  const ownSuccess = taskOf(config).ownSuccess === true;
  const [moreOpen, setMoreOpen] = useState(false);
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
  // The group size n of each run shown, for reference lines read from it (amplification's (n − 1)/n).
  const sizesKey = runs
    .flatMap((r) => (config.runs[r.runIndex] ? [groupScores(config, config.runs[r.runIndex])] : []))
    .join(',');
  const board = useMemo(() => {
    void runKey;
    void markersKey;
    // Columns: every run shown together (overlaid), or one per config entry (side by side).
    const columns = sideBySide
      ? groups(runs).map((g) => ({ label: g.label, runs: g.runs }))
      : [{ label: '', runs }];
    const markers = columns.map((c) => c.runs.flatMap((r): Marker[] => r.markers));
    const ks = [...new Set(runs.flatMap((r) => evalKsOfRun(r, evalK)))].sort((a, b) => a - b);
    const evalKs = ks.length ? ks : [evalK];
    const estimators = (estimatorsKey.split('|') as EstimatorChoice[]).map((e) => ({
      name: e,
      ...ESTIMATOR_OPTIONS[e],
    }));
    const sizes = sizesKey ? sizesKey.split(',').map(Number) : [];
    const charts = boardCharts(
      { eval: evalOn || runs.some((r) => r.evalKs), credit, shadowGradNorm: sameBatchGrad, mcts, ownSuccess },
      estimators,
    );
    const rows = charts.map((chart): Row => {
      const perColumn = columns.map((c) => chartSpecs(chart, c.runs, agents, evalK));
      const title = chartTitle(chart, evalKs.length === 1 ? String(evalKs[0]) : 'K');
      const metric = metricOf(chart, evalKs);
      const e = chart.estimator && ESTIMATOR_OPTIONS[chart.estimator];
      // A custom run's definition is its own: the tooltip says each one's sets.
      const own = chart.estimator === 'custom' && customs ? ` Here, each run's own: ${customs}.` : '';
      return {
        chart,
        title,
        metric,
        // The estimator's registry doc (what it normalizes over) in a same-batch chart's tooltip.
        about: e ? `${chart.doc}\n\n${e.label} (${chart.estimator}): ${e.doc}${own}` : chart.doc,
        help: <ChartHelp title={title} doc={chart.doc} formula={chart.formula} metric={metric} />,
        children:
          chart.id === 'amplification'
            ? AMPLIFICATION_NOTE
            : chart.id === `same-batch-${estimators[0]?.name}-sq`
              ? SAME_BATCH_NOTE
              : undefined,
        perColumn,
        specs: perColumn.flat(),
        runs,
        refY: typeof chart.refY === 'function' ? chart.refY(sizes) : chart.refY,
      };
    });
    return { columns, markers, rows };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [
    runKey,
    markersKey,
    agents,
    evalK,
    evalOn,
    estimatorsKey,
    customs,
    sameBatchGrad,
    credit,
    mcts,
    ownSuccess,
    sideBySide,
    sizesKey,
  ]);
  const flat = useFlatCharts(board.rows);

  if (allRuns.length === 0) return <EmptyBoard />;
  const row = (r: Row) => (
    <BoardRow
      key={r.title}
      row={r}
      columns={board.columns}
      markers={board.markers}
      logOn={
        view.logCharts.includes(r.chart.id) ? true : view.linearCharts.includes(r.chart.id) ? false : 'auto'
      }
    />
  );
  if (only !== undefined) {
    const mine = board.rows.filter((r) => r.chart.id === only);
    return (
      <section className="board" aria-label="Charts">
        <Legend />
        {mine.length ? mine.map(row) : <p role="alert">No chart “{only}” for these runs.</p>}
      </section>
    );
  }
  const more = board.rows.filter((r) => flat[r.chart.id]);
  return (
    <section className="board" aria-label="Charts">
      <Legend />
      {CHART_SECTIONS.map((section) => {
        const shown = board.rows.filter((r) => r.chart.section === section && !flat[r.chart.id]);
        return shown.length === 0 ? null : (
          <Fragment key={section}>
            <h2 className="board-title">{section}</h2>
            {sideBySide ? (
              shown.map(row)
            ) : (
              <div className={`grid${section === 'Run' ? ' run' : ''}`}>{shown.map(row)}</div>
            )}
          </Fragment>
        );
      })}
      {more.length > 0 && (
        <section className="more-charts" aria-label="More charts">
          <h2 className="board-title">More charts</h2>
          <p className="muted">Flat for these runs, so they carry no information here:</p>
          <ul className="more-reasons">
            {more.map((r) => (
              <li key={r.title} data-more-chart={r.chart.id}>
                <strong>{r.title}</strong>: {flat[r.chart.id]}
              </li>
            ))}
          </ul>
          <button type="button" aria-expanded={moreOpen} onClick={() => setMoreOpen((o) => !o)}>
            {moreOpen ? 'Hide these charts' : 'Show these charts'}
          </button>
          {moreOpen && (sideBySide ? more.map(row) : <div className="grid">{more.map(row)}</div>)}
        </section>
      )}
    </section>
  );
}
