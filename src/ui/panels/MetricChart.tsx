/**
 * One metric chart: runs overlaid (one colour per run, one dash per agent or key), the smoothed
 * line over a faint raw one (TensorBoard), live-parameter markers, a hover synced across charts
 * by step. recharts draws the frame (axes, grid, markers) on axes computed here (plot.ts); the
 * data and the hover are SeriesLayer's plain SVG. It re-reads the ring buffers when the chart
 * pump says (chart-pump.ts): on screen only, one chart per task, throttled.
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { CartesianGrid, ComposedChart, ReferenceLine, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { BaseTickContentProps } from 'recharts';
import { registerChart } from '../chart-pump';
import type { ChartHandle } from '../chart-pump';
import { chartCsv, download, fileName } from '../export';
import { lastStep, readSeries } from '../run-data';
import { useLab } from '../store';
import type { Marker } from '../store';
import { axisKey, logAxis, niceAxis, stepAxis } from '../plot';
import type { Axis } from '../plot';
import { ChartData, SeriesLayer } from './SeriesLayer';
import { markerElements } from './Markers';
import { ImageButtons } from './ImageButtons';
import { ChartEmpty } from './ChartEmpty';
import type { Drawn, SeriesSpec } from './SeriesLayer';

export interface MetricChartProps {
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
  log?: boolean;
  /** A horizontal reference line (e.g. 1 on the amplification chart). */
  refY?: number;
  /** Controls drawn in the chart's header (e.g. the log-y toggle). */
  tools?: ReactNode;
  children?: ReactNode;
}

/** The same Axis object for as long as it draws the same (see axisKey). */
function useStable<A extends Axis | null>(a: A): A {
  const key = axisKey(a);
  return useMemo(() => a, [key]); // eslint-disable-line react-hooks/exhaustive-deps
}

/** What a chart draws as of its last refresh: the frames, the smoothing and the series. */
interface Refreshed {
  version: number;
  smoothing: number;
  specs: SeriesSpec[];
  scaleSpecs: SeriesSpec[] | undefined;
  /** The plot's width when first measured, px (-1 if not known): the chart's size at mount. */
  width: number;
}

/** The series of a chart that has not had its first turn yet: it mounts with no plot. */
const NOT_YET: SeriesSpec[] = [];

/**
 * frameVersion, smoothing and series as of this chart's last refresh: the chart pump decides
 * when (one chart per task, on-screen charts only, throttled), so neither frames nor a change of
 * series (an imported run, a run hidden or shown) ever redraw every chart in one task. A new
 * chart mounts without its plot and draws it at its first turn too: a board of twenty charts
 * mounting at once (the first run, or the first import) was one task of 60 ms of main thread.
 */
function useRefreshed(
  ref: React.RefObject<HTMLElement | null>,
  name: string,
  specs: SeriesSpec[],
  scaleSpecs: SeriesSpec[] | undefined,
): Refreshed {
  const [seen, setSeen] = useState((): Refreshed => {
    const s = useLab.getState();
    return {
      version: s.frameVersion,
      smoothing: s.view.smoothing,
      specs: NOT_YET,
      scaleSpecs: undefined,
      width: -1,
    };
  });
  const wanted = useRef({ specs, scaleSpecs });
  const handleRef = useRef<ChartHandle | null>(null);
  const plotWidth = useRef(-1);
  useEffect(() => {
    const handle = registerChart(name, () => {
      const s = useLab.getState();
      const w = wanted.current;
      // Measured until known (a layout read per refresh while frames stream would force a
      // layout each time); afterwards ResponsiveContainer follows resizes on its own.
      if (!(plotWidth.current > 0))
        plotWidth.current = Math.round(
          ref.current?.querySelector('.chart-plot')?.getBoundingClientRect().width ?? -1,
        );
      const width = plotWidth.current;
      setSeen((prev) =>
        prev.version === s.frameVersion &&
        prev.smoothing === s.view.smoothing &&
        prev.specs === w.specs &&
        prev.scaleSpecs === w.scaleSpecs &&
        prev.width === width
          ? prev
          : { version: s.frameVersion, smoothing: s.view.smoothing, ...w, width },
      );
    });
    handleRef.current = handle;
    const io =
      typeof IntersectionObserver === 'function' && ref.current
        ? new IntersectionObserver(([e]) => handle.setVisible(e.isIntersecting))
        : null;
    if (io && ref.current) io.observe(ref.current);
    return () => {
      io?.disconnect();
      handle.dispose();
    };
  }, [ref, name]);
  useEffect(() => handleRef.current?.committed(), [seen]);
  useEffect(() => {
    wanted.current = { specs, scaleSpecs };
    if (specs !== seen.specs || scaleSpecs !== seen.scaleSpecs) handleRef.current?.request();
  }, [specs, scaleSpecs, seen]);
  return seen;
}

// ─── static parts: created once, so React skips them whenever a chart refreshes ───────────

/** The x axis spans at least this many steps: at the start of a run it does not move every step. */
const X_LEAST = 10;
const MARGIN = { top: 6, right: 10, bottom: 0, left: 0 };

/**
 * A tick label as one plain SVG <text>. recharts' own <Text> measures every label's words in the
 * DOM to wrap them (a forced layout per tick, per redraw); these labels are short numbers.
 */
function TICK(p: BaseTickContentProps) {
  const dy = p.verticalAnchor === 'start' ? '0.71em' : p.verticalAnchor === 'middle' ? '0.355em' : 0;
  return (
    <text
      x={p.x}
      y={p.y}
      dy={dy}
      textAnchor={p.textAnchor}
      fontSize={10}
      fill={p.fill}
      className={p.className}
    >
      {p.tickFormatter ? p.tickFormatter(p.payload.value, p.index) : String(p.payload.value)}
    </text>
  );
}
const NO_POINTS = () => [];
const GRID = <CartesianGrid stroke="#e6e9ee" vertical={false} verticalCoordinatesGenerator={NO_POINTS} />;

/**
 * The recharts part of a chart: grid, axes, reference lines, and SeriesLayer inside. Memoized on
 * the axes and markers, which stay the same object while they draw the same: a refresh that only
 * extends the lines skips it, and the new lines reach SeriesLayer through ChartData. Re-rendering
 * a recharts chart re-reports its props to its store and re-renders its components synchronously
 * in the commit (20 ms of main thread, 50+ with training on both cores); SeriesLayer alone is a
 * few milliseconds.
 */
const ChartFrame = memo(function ChartFrame({
  chart,
  x,
  y,
  log,
  refY,
  markers,
  tipHost,
  width,
}: {
  chart: string;
  x: Axis;
  y: Axis | null;
  log: boolean;
  refY: number | undefined;
  markers: ReactNode[];
  tipHost: HTMLElement | null;
  /** The plot's width when the chart was refreshed, px. */
  width: number;
}) {
  // Sized from the start: otherwise ResponsiveContainer mounts empty and renders the chart from
  // its effect's measure, outside the chart pump's transition, in one unsliced task (~25 ms).
  return (
    <ResponsiveContainer width="100%" height={170} initialDimension={{ width, height: 170 }}>
      <ComposedChart margin={MARGIN}>
        {GRID}
        {/* interval={0}: the (few, round) ticks as given; recharts' default interval measures
            every tick label in the DOM on each redraw, a forced layout per tick. */}
        <XAxis
          dataKey="step"
          type="number"
          domain={x.domain}
          ticks={x.ticks}
          allowDataOverflow
          interval={0}
          tick={TICK}
          tickLine={false}
          stroke="#9aa3ad"
        />
        <YAxis
          scale={log ? 'log' : 'linear'}
          domain={y?.domain}
          ticks={y?.ticks}
          interval={0}
          allowDataOverflow
          tickFormatter={y?.format}
          tick={TICK}
          tickLine={false}
          width={44}
          stroke="#9aa3ad"
        />
        {refY !== undefined && <ReferenceLine y={refY} stroke="#9aa3ad" strokeDasharray="1 3" />}
        {markers}
        <SeriesLayer chart={chart} tipHost={tipHost} />
      </ComposedChart>
    </ResponsiveContainer>
  );
});

function MetricChartImpl({
  title,
  metric,
  about,
  help,
  specs,
  scaleSpecs,
  markers,
  log = false,
  refY,
  tools,
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

  const data = useMemo(() => {
    void version; // re-read the ring buffers whenever frames arrived
    const drawn: Drawn[] = [];
    // Points drawn and points the series have: only what is drawn is downsampled (CSV and
    // exports read every step), and the chart says so.
    let points = 0;
    let total = 0;
    let lo = Infinity;
    let hi = -Infinity;
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
      [y, smooth, bandLo, bandHi].forEach(widen);
    }
    // Side by side, the row's other runs set the y scale too (not drawn).
    for (const s of drawnScale ?? []) {
      if (drawnSpecs.includes(s)) continue;
      const series = readSeries(s.runIds, s.key, smoothing, log);
      if (series) [series.y, series.smooth, series.lo, series.hi].forEach(widen);
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
      axis: lo <= hi ? (log ? logAxis(lo, hi) : niceAxis(lo, hi)) : null,
    };
  }, [drawnSpecs, drawnScale, smoothing, log, refY, version]);
  const { steps, drawn, points, total } = data;
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
          {tools}
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
              yName: `${metric ?? title}${log ? ' (log scale)' : ''}`,
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
