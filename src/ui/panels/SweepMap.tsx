/**
 * The Map: a sweep drawn as the effect against a dial, either a CLI sweep folder (`lab sweep` /
 * `lab merge` output) opened in the page, or the sweep the page's link carries, trained by the page
 * (link-sweep.ts). For each figure (held-out success, training reward, each agent's own success,
 * gradient norms, spike fraction), each later run's paired difference from the first run with its
 * 95 % CI, one line per pair, the dial's values along x, and one chart per value of the other
 * dials side by side (shared and per-agent models). The numbers and the CSV are `lab report`'s
 * for the folder (src/rl/sweep-map.ts); a filled point is a CI that excludes 0.
 */
import { useMemo, useRef, useState } from 'react';
import {
  CartesianGrid,
  ComposedChart,
  ErrorBar,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  XAxis,
  YAxis,
} from 'recharts';
import { runRepeats } from '../../core/config';
import { dialList } from '../../core/url-sweep';
import { planLinkSweep } from '../../rl/sweep';
import type { SweepFile } from '../../rl/sweep';
import { defaultMapX, mapCharts, paramsText } from '../../rl/sweep-map';
import type { MapChart } from '../../rl/sweep-map';
import { REWARD_TAIL } from '../../rl/summary';
import { download, fileName } from '../export';
import { formatSignificant, niceAxis } from '../plot';
import { dropSweep } from '../config-edit';
import { fieldReason } from '../field-labels';
import { linkSweepMap } from '../link-sweep';
import { showCell, runColor, useLab } from '../store';
import type { LabState } from '../store';
import { useThrottledLab } from '../throttled';
import { mapCsv, mapJson, openSweep } from '../sweep-open';
import type { OpenedSweep } from '../sweep-open';
import { ImageButtons } from './ImageButtons';
import { FOLDER } from './OtherTools';

const TICK = { fontSize: 11, fill: '#4b5561' };
const ALL = '';

/** One chart: a figure in one facet, the shared y axis of its row. */
function MapFigure({ chart, x, y }: { chart: MapChart; x: string; y: ReturnType<typeof niceAxis> }) {
  const ref = useRef<HTMLElement>(null);
  const title = chart.facet ? `${chart.words} · ${chart.facet}` : chart.words;
  const xs = chart.lines[0]?.points.map((p) => p.x) ?? [];
  const data = xs.map((value, i) => ({
    x: value,
    ...Object.fromEntries(
      chart.lines.flatMap((l, k) => {
        const p = l.points[i];
        const ok = Number.isFinite(p?.mean);
        const half = ok && Number.isFinite(p.hi) ? p.hi - p.mean : 0;
        return [
          [`m${k}`, ok ? p.mean : null],
          [`e${k}`, half],
          [`v${k}`, p?.verdict ?? null],
        ];
      }),
    ),
  }));
  const series = chart.lines.map((l, k) => ({ name: l.pair, color: runColor(k + 1), dash: '' }));
  return (
    <figure
      className="chart map-chart"
      ref={ref}
      aria-label={title}
      data-map-chart={chart.figure}
      data-facet={chart.facet}
    >
      <figcaption>
        <span className="chart-title" title={chart.figure}>
          {chart.facet || chart.words}
        </span>
        <span className="chart-tools">
          <ImageButtons
            figure={ref}
            title={title}
            name={fileName(`map ${chart.figure} ${chart.facet}`)}
            parts={() => ({
              title: `${title} (paired difference, 95 % CI over seeds)`,
              series,
              xName: x,
              yName: chart.figure,
            })}
          />
        </span>
      </figcaption>
      <div className="chart-plot">
        <ResponsiveContainer width="100%" height={180} initialDimension={{ width: 320, height: 180 }}>
          <ComposedChart data={data} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="#e6e9ee" vertical={false} />
            <XAxis dataKey="x" type="category" tick={TICK} tickLine={false} stroke="#9aa3ad" interval={0} />
            <YAxis
              domain={y.domain}
              ticks={y.ticks}
              tickFormatter={y.format}
              interval={0}
              allowDataOverflow
              tick={TICK}
              tickLine={false}
              width={44}
              stroke="#9aa3ad"
            />
            <ReferenceLine y={0} stroke="#9aa3ad" strokeDasharray="3 3" />
            {chart.lines.map((l, k) => (
              <Line
                key={l.pair}
                dataKey={`m${k}`}
                name={l.pair}
                stroke={series[k].color}
                strokeWidth={2}
                isAnimationActive={false}
                connectNulls={false}
                dot={(props: {
                  cx?: number;
                  cy?: number;
                  payload?: Record<string, unknown>;
                  index?: number;
                }) => {
                  const v = props.payload?.[`v${k}`];
                  const apart = v === 'higher' || v === 'lower';
                  if (props.cx === undefined || props.cy === undefined) return <g key={props.index} />;
                  return (
                    <circle
                      key={props.index}
                      cx={props.cx}
                      cy={props.cy}
                      r={3.5}
                      stroke={series[k].color}
                      strokeWidth={1.5}
                      fill={apart ? series[k].color : '#fff'}
                      data-verdict={String(v)}
                    >
                      <title>
                        {`${series[k].name} at ${x} = ${String(props.payload?.x)}: ${formatSignificant(Number(props.payload?.[`m${k}`]))} ± ${formatSignificant(Number(props.payload?.[`e${k}`]))} (${String(v)})`}
                      </title>
                    </circle>
                  );
                }}
              >
                <ErrorBar dataKey={`e${k}`} width={5} stroke={series[k].color} direction="y" />
              </Line>
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** The y axis a row of charts shares (every facet of one figure), over means and CI bounds, with 0. */
function rowAxis(charts: readonly MapChart[]) {
  const v = charts.flatMap((c) =>
    c.lines.flatMap((l) => l.points.flatMap((p) => [p.mean, p.lo, p.hi])).filter(Number.isFinite),
  );
  return niceAxis(Math.min(0, ...v), Math.max(0, ...v));
}

/** What the link sweep's cells read: which runs are done (a cell enters the map once all of its are). */
const cellsKey = (s: LabState) => (s.sweepCells ? s.runs.map((r) => `${r.id}:${r.state}`).join(',') : '');

/**
 * The sweep the link carries, before and while the page trains it: its dials and size, that its
 * runs are not stored, the cell the board shows, and a way to train the experiment alone.
 */
function LinkSweep() {
  const config = useLab((s) => s.config);
  const sweep = useLab((s) => s.sweep);
  const sweepCells = useLab((s) => s.sweepCells);
  const planned = useMemo(() => planLinkSweep(config, sweep), [config, sweep]);
  if (sweep.length === 0 && !sweepCells) return null;
  const cells = sweepCells?.cells ?? (planned.ok ? planned.cells : []);
  const runs = cells.reduce((n, c) => n + runRepeats(c.config).length, 0);
  const grid = sweepCells?.file.grid ?? sweep;
  return (
    <div className="link-sweep" data-testid="link-sweep">
      <p>
        This link carries a sweep: {grid.map((d) => `${d.key} = ${dialList(d.values)}`).join(' × ')} (
        {cells.length} cells, {runs} runs).{' '}
        {sweepCells
          ? 'The page trains every cell on its workers, cell after cell; the map fills in as cells finish.'
          : 'Train trains every cell here, on the page’s workers; the map fills in as cells finish.'}{' '}
        <button type="button" className="link" onClick={dropSweep}>
          Train without the sweep
        </button>
      </p>
      {!sweepCells && !planned.ok && (
        <p className="field-error" data-testid="link-sweep-refused">
          Train refuses it for this experiment: {planned.errors.map((e) => fieldReason(e, config)).join('; ')}
        </p>
      )}
      <p className="muted" data-testid="link-sweep-unstored">
        A link sweep’s runs are not stored: a reload or Reset loses them, and Past sessions does not list them
        (the link keeps the sweep, to train again). Download the map CSV or JSON, or a cell’s metrics under
        Export, to keep them.
      </p>
      {sweepCells && (
        <label>
          On the board{' '}
          <select
            value={sweepCells.shown}
            onChange={(e) => showCell(Number(e.target.value))}
            data-testid="map-cell"
          >
            {sweepCells.cells.map((c, i) => (
              <option key={c.dir} value={i}>
                {paramsText(sweepCells.file.grid, c.params)}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}

export function SweepMap() {
  // A folder opened, and the link sweep on screen then: a link sweep trained after it takes its place.
  const [folder, setFolder] = useState<{ sweep: OpenedSweep; over: SweepFile | undefined } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [x, setX] = useState('');
  const [figure, setFigure] = useState(ALL);
  // The link sweep trained here, read again as its runs finish.
  const file = useLab((s) => s.sweepCells?.file);
  const runsKey = useThrottledLab(cellsKey, null, 1000);
  const linked = useMemo(() => {
    void runsKey;
    return linkSweepMap(useLab.getState(), REWARD_TAIL);
  }, [runsKey]);
  const opened = folder && folder.over === file ? folder.sweep : (linked ?? folder?.sweep ?? null);

  const open = (files: FileList | null) => {
    const list = [...(files ?? [])].map((f) => ({
      path: f.webkitRelativePath || f.name,
      text: () => f.text(),
    }));
    if (!list.length) return;
    setBusy(true);
    openSweep(list, REWARD_TAIL)
      .then((s) => {
        setFolder({ sweep: s, over: useLab.getState().sweepCells?.file });
        setError(null);
        setX(defaultMapX(s.file.grid));
        setFigure(ALL);
      })
      .catch((e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };

  // The dial along x: the one picked, or the sweep's default (a link sweep opens with none picked).
  const along = opened?.file.grid.some((d) => d.key === x) ? x : opened ? defaultMapX(opened.file.grid) : '';
  const charts = useMemo(
    () => (opened && along ? mapCharts(opened.file.grid, opened.cells, along) : []),
    [opened, along],
  );
  const figures = [...new Set(charts.map((c) => c.figure))];
  const shown = figure === ALL ? figures : figures.filter((f) => f === figure);
  const stamp = () => fileName(`map ${opened?.name ?? ''} ${new Date().toISOString().slice(0, 19)}`);

  return (
    <section className="panel sweep-map" aria-labelledby="map-title" data-testid="sweep-map">
      <h2 id="map-title">Map</h2>
      <p className="muted">
        Open a sweep folder (<code>lab sweep</code> or <code>lab merge</code> output), or train the sweep a
        link carries (<code>sweep.optim.lr=0.001,0.002</code>), to draw each run’s paired difference from the
        first run, with its 95 % CI over seeds, against a dial: the numbers of <code>lab report</code> on that
        sweep. A filled point’s CI excludes 0.
      </p>
      <LinkSweep />
      <label>
        Open a sweep folder{' '}
        <input type="file" data-testid="open-sweep" {...FOLDER} onChange={(e) => open(e.target.files)} />
      </label>
      {busy && <p className="muted">reading…</p>}
      {error && (
        <p role="alert" className="field-error" data-testid="map-error">
          {error}
        </p>
      )}
      {opened && (
        <>
          <p className="muted" data-testid="map-status">
            {opened.name}: {opened.cells.length} cells (
            {opened.cells.filter((c) => c.summaries.length).length} recorded) ×{' '}
            {opened.file.config.runs.length} runs × {opened.file.config.seeds} seeds,{' '}
            {opened.file.config.steps} steps; differences from {opened.file.config.runs[0]?.label}, paired by
            seed; reward and own success over the last {REWARD_TAIL} steps.
          </p>
          {opened.warnings.length > 0 && (
            <ul className="muted" data-testid="map-warnings">
              {opened.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          )}
          <div className="row">
            <label>
              Along x{' '}
              <select value={along} onChange={(e) => setX(e.target.value)} data-testid="map-x">
                {opened.file.grid.map((d) => (
                  <option key={d.key} value={d.key}>
                    {d.key}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Figure{' '}
              <select value={figure} onChange={(e) => setFigure(e.target.value)} data-testid="map-figure">
                <option value={ALL}>every figure</option>
                {figures.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => download(`${stamp()}.csv`, mapCsv(opened), 'text/csv')}>
              Download map CSV
            </button>
            <button
              type="button"
              onClick={() => download(`${stamp()}.json`, mapJson(opened), 'application/json')}
            >
              Download map JSON
            </button>
          </div>
          <p className="map-legend" data-testid="map-legend">
            {charts[0]?.lines.map((l, k) => (
              <span key={l.pair}>
                <svg width="24" height="8" aria-hidden="true">
                  <line x1="0" y1="4" x2="24" y2="4" stroke={runColor(k + 1)} strokeWidth="2" />
                </svg>{' '}
                {l.pair}
              </span>
            ))}
          </p>
          {shown.map((f) => {
            const row = charts.filter((c) => c.figure === f);
            const y = rowAxis(row);
            return (
              <div key={f} className="map-row" data-map-figure={f}>
                <h3 title={f}>{row[0].words}</h3>
                <div className="map-facets">
                  {row.map((c) => (
                    <MapFigure key={c.facet} chart={c} x={along} y={y} />
                  ))}
                </div>
              </div>
            );
          })}
        </>
      )}
    </section>
  );
}
