/**
 * One metric chart: runs overlaid (one colour per run, one dash per agent or key), the smoothed
 * line over a faint raw one (TensorBoard), live-parameter markers, a hover synced across charts
 * by step. recharts draws the frame (axes, grid, markers) on axes computed here (plot.ts); the
 * data and the hover are SeriesLayer's plain SVG. It re-reads the ring buffers when the chart
 * pump says (chart-pump.ts): on screen only, one chart per task, throttled. When it redraws is
 * chart-refresh.ts; the recharts frame it draws in is ChartFrame.tsx.
 */
import { memo, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { chartCsv, download, fileName } from '../export';
import { lastStep, readSeries } from '../run-data';
import { chooseLog } from '../session/store';
import type { Marker } from '../session/store';
import { axisKey, LOG_DEFAULT_DECADES, logAxis, niceAxis, spikeDecades, stepAxis } from '../plot';
import type { Axis } from '../plot';
import { ChartData } from './SeriesLayer';
import { markerElements } from './Markers';
import { ImageButtons, boardNotes } from './ImageButtons';
import { ChartEmpty } from './ChartEmpty';
import { ChartFrame } from './ChartFrame';
import { useRefreshed } from './chart-refresh';
import type { Drawn, SeriesSpec } from './SeriesLayer';

interface MetricChartProps {
  title: string;
  /** The metric key(s) drawn: the title's tooltip, and the y axis's name in exports. */
  metric?: string;
  /** What the metric is, in a sentence (the caption's tooltip). */
  about?: string;
  /** Beside the title: the chart's help popover (ChartHelp). */
  help?: ReactNode;
  specs: SeriesSpec[];
  /**
   * Series whose values set the y axis as well as `specs`' own (side by side: every run's series
   * of the row, so the columns share one scale and can be compared by eye). Not drawn.
   */
  scaleSpecs?: SeriesSpec[];
  markers: Marker[];
  /** The y scale: log, linear, or 'auto': log once the peak stands 100× above the lowest line's median. */
  log?: LogChoice;
  /** The chart's registry id where it offers a log-y box (chooseLog keeps the user's pick under it). */
  logToggle?: string;
  /** A horizontal reference line (e.g. 1 on the amplification chart). */
  refY?: number;
  children?: ReactNode;
}

/** A chart's y scale as asked for: the user's pick, or 'auto' (by what the data spans). */
export type LogChoice = boolean | 'auto';

/** The same Axis object for as long as it draws the same (see axisKey). */
function useStable<A extends Axis | null>(a: A): A {
  const key = axisKey(a);
  return useMemo(() => a, [key]); // eslint-disable-line react-hooks/exhaustive-deps
}

const figure = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(4));

/** What the data spans, in an exported image: the axes round past it (a run at step 237 draws to 300). */
function dataExtent(metric: string, steps: readonly number[], [lo, hi]: readonly number[]): string {
  const span = steps.length ? `steps ${steps[0]}–${steps[steps.length - 1]}` : 'no steps';
  return `Data: ${span}; ${metric} from ${figure(lo)} to ${figure(hi)}.`;
}

/**
 * The log-y box. On by default (`auto`), it says why: the peak stands more than two decades above
 * the lowest line's median, and a linear scale would flatten that line against the axis (the
 * amplification chart's spikes reach about 280 over a bulk near 0.9).
 */
function LogBox({
  id,
  on,
  auto,
  extent: [lo, hi],
}: {
  id: string;
  on: boolean;
  auto: boolean;
  extent: number[];
}) {
  const why = auto
    ? `On by default: the peak (${figure(hi)}) stands more than ${LOG_DEFAULT_DECADES} decades above the bulk of the lowest line${lo > 0 ? ` (values down to ${figure(lo)})` : ''}, and a linear scale would flatten it against the axis. Untick for a linear scale.`
    : 'Draw this chart on a log scale: one spike no longer flattens the rest';
  return (
    <label className="toggle" title={why} data-log={auto ? 'auto' : on ? 'on' : 'off'}>
      <input type="checkbox" checked={on} onChange={() => chooseLog(id, !on)} /> log y{auto ? ' (auto)' : ''}
    </label>
  );
}

/** The x axis spans at least this many steps: at the start of a run it does not move every step. */
const X_LEAST = 10;

function MetricChartImpl({
  title,
  metric,
  about,
  help,
  specs,
  scaleSpecs,
  markers,
  log: asked = false,
  logToggle,
  refY,
  children,
}: MetricChartProps) {
  const ref = useRef<HTMLElement>(null);
  // The series drawn are the ones of the last refresh (`specs` prop: the ones to draw next).
  const {
    version,
    smoothing,
    specs: drawnSpecs,
    scaleSpecs: drawnScale,
    width,
  } = useRefreshed(ref, title, specs, scaleSpecs);
  // 'auto' turns log on for the series drawn once their peak is 100× the lowest line's median, and keeps it
  // for them (a seed group's mean differs on the two scales: no flipping back and forth).
  const [autoFor, setAutoFor] = useState<readonly SeriesSpec[] | null>(null);
  const log = asked === 'auto' ? autoFor === drawnSpecs : asked;

  const data = useMemo(() => {
    void version; // re-read the ring buffers whenever frames arrived
    const drawn: Drawn[] = [];
    // Points drawn and points the series have: only what is drawn is downsampled (CSV and
    // exports read every step), and the chart says so.
    let points = 0;
    let total = 0;
    let lo = Infinity;
    let hi = -Infinity;
    // Each line's raw values, for how far the peak stands above the lowest line's median ('auto').
    const raws: ArrayLike<number>[] = [];
    const widen = (vs: number[] | undefined) => {
      for (const v of vs ?? [])
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
    };
    for (const s of drawnSpecs) {
      const series = readSeries(s.runIds, s.key, smoothing, log);
      if (!series) continue;
      const { x, y, smooth, lo: bandLo, hi: bandHi } = series;
      drawn.push({ spec: s, x, y: smooth ?? y, raw: smooth && y, lo: bandLo, hi: bandHi });
      points += x.length;
      total += series.total;
      raws.push(y);
      [y, smooth, bandLo, bandHi].forEach(widen);
    }
    // Side by side, the row's other runs set the y scale too (not drawn).
    for (const s of drawnScale ?? []) {
      if (drawnSpecs.includes(s)) continue;
      const series = readSeries(s.runIds, s.key, smoothing, log);
      if (series) [series.y, series.smooth, series.lo, series.hi].forEach(widen);
      if (series) raws.push(series.y);
    }
    if (refY !== undefined && lo <= hi) {
      lo = Math.min(lo, refY);
      hi = Math.max(hi, refY);
    }
    // The x axis runs from step 0 to the runs' last step, whichever metrics it has: every chart
    // of the same runs then has the same x axis (eval is recorded every N steps only), so the
    // hover cursor lines up across charts.
    const end = lastStep([...drawnSpecs, ...(drawnScale ?? [])].flatMap((s) => s.runIds));
    // Every step drawn, ascending: the hover snaps to these.
    const seen = new Set<number>();
    for (const d of drawn) for (const st of d.x) seen.add(st);
    const steps = [...seen].sort((p, q) => p - q);
    return {
      steps,
      drawn,
      points,
      total,
      end,
      range: [lo, hi],
      // Only asked while 'auto' still draws linear: once on, it stays on for these series.
      decades: asked === 'auto' && !log ? spikeDecades(raws) : 0,
      axis: lo <= hi ? (log ? logAxis(lo, hi) : niceAxis(lo, hi)) : null,
    };
  }, [drawnSpecs, drawnScale, smoothing, log, asked, refY, version]);
  const { steps, drawn, points, total } = data;
  const spread = asked === 'auto' && autoFor !== drawnSpecs && data.decades > LOG_DEFAULT_DECADES;
  // Set while rendering (React's "information from previous renders"): redrawn at once, on a log scale.
  if (spread) setAutoFor(drawnSpecs);
  const x = useStable(stepAxis(0, Math.max(data.end, ...markers.map((m) => m.step)), X_LEAST));
  const axis = useStable(data.axis);
  const [tipHost, setTipHost] = useState<HTMLDivElement | null>(null);
  const layer = useMemo(() => ({ drawn, steps }), [drawn, steps]);

  // Labels go left of their line in the x axis's right half: a new list only when the axis moves.
  const markerLines = useMemo(() => markerElements(markers, x.domain), [markers, x]);

  return (
    <figure className="chart" ref={ref} aria-label={title} data-chart={title} data-points={steps.length}>
      <figcaption title={about}>
        <span className="chart-title" title={metric}>
          {title}
          {help}
        </span>
        <span className="chart-tools">
          {points < total && (
            <span
              className="chart-drawn"
              title="Each line keeps the first, lowest and highest point of every bucket of steps; CSV, exports and Findings use every step"
            >
              drawn: {points.toLocaleString('en-US')} of {total.toLocaleString('en-US')} points
            </span>
          )}
          {logToggle && <LogBox id={logToggle} on={log} auto={asked === 'auto' && log} extent={data.range} />}
          <button
            type="button"
            className="mini"
            aria-label={`Download ${title} as CSV`}
            title="This chart’s metrics, every step, as CSV"
            onClick={() => download(`${fileName(title)}.csv`, chartCsv(specs), 'text/csv')}
          >
            CSV
          </button>
          <ImageButtons
            figure={ref}
            title={title}
            name={fileName(title)}
            disabled={steps.length === 0}
            parts={() => ({
              title,
              series: drawnSpecs,
              xName: 'step',
              yName: `${title}${log ? ' (log scale)' : ''}`,
              notes: [dataExtent(metric ?? title, steps, data.range), ...boardNotes()],
            })}
          />
        </span>
      </figcaption>
      <div className="chart-plot" ref={setTipHost}>
        {steps.length === 0 ? (
          <ChartEmpty specs={specs} log={log} />
        ) : (
          <ChartData.Provider value={layer}>
            <ChartFrame
              chart={title}
              x={x}
              y={axis}
              log={log}
              refY={refY}
              markers={markerLines}
              tipHost={tipHost}
              width={width}
            />
          </ChartData.Provider>
        )}
      </div>
      {children}
    </figure>
  );
}

export const MetricChart = memo(MetricChartImpl);
