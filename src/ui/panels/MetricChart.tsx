/**
 * One metric chart: runs overlaid (one colour per run, one dash per agent or key), the smoothed
 * line over a faint raw one (TensorBoard), live-parameter markers, a tooltip synced across charts
 * by step. It re-reads the ring buffers when the chart pump says (chart-pump.ts): on screen only,
 * one chart per task, throttled (recharts renders SVG; tfjs-webgpu.md §11).
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import {
  CartesianGrid,
  Line,
  Area,
  ComposedChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { BaseTickContentProps } from 'recharts';
import type { RunId } from '../../runtime/protocol';
import { registerChart } from '../chart-pump';
import type { ChartHandle } from '../chart-pump';
import { chartCsv, download, fileName, svgPng } from '../export';
import { readSeries } from '../run-data';
import { addError, useLab } from '../store';
import type { Marker } from '../store';

export interface SeriesSpec {
  /** Stable id, used as the row field; must be a plain identifier-ish string. */
  id: string;
  /** One run, or the runs of one config entry over several seeds (drawn as mean and band). */
  runIds: RunId[];
  key: string;
  /** Legend/tooltip name, e.g. "Dr. MAS · search". */
  name: string;
  color: string;
  dash: string;
}

export interface MetricChartProps {
  title: string;
  /** The metric key(s) drawn, shown beside the title. */
  metric?: string;
  /** What the metric is, in a sentence (the caption's tooltip). */
  about?: string;
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

const fmt = (v: number): string => {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
  return Number(v.toPrecision(4)).toString();
};

/**
 * A linear y axis with ~4 round ticks covering [lo, hi], labelled with just enough decimals to
 * tell the ticks apart (recharts' 'auto' domain labels a near-constant series 0.75, 0.75, 0.75).
 */
function niceAxis(
  lo: number,
  hi: number,
): { domain: [number, number]; ticks: number[]; format(v: number): string } {
  // Round-off differences (E[A²] = 0.75 ± 1 ulp) are a constant line, not a range to zoom into.
  const scale = Math.max(Math.abs(lo), Math.abs(hi));
  if (!(hi - lo > 1e-6 * scale)) {
    const pad = scale > 1e-12 ? scale * 0.05 : 1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const start = Math.floor(lo / step) * step;
  const ticks: number[] = [];
  for (let i = 0; i < 12 && start + i * step < hi + step * 0.999; i++)
    ticks.push(Number((start + i * step).toPrecision(12)));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (step / mag === 2.5 ? 1 : 0));
  const big = Math.max(Math.abs(ticks[0]), Math.abs(ticks[ticks.length - 1]));
  const format = (v: number) =>
    big >= 1e5 || (decimals > 4 && big < 1e-3)
      ? v.toExponential(1)
      : decimals > 6
        ? v.toExponential(1)
        : v.toFixed(decimals);
  return { domain: [ticks[0], ticks[ticks.length - 1]], ticks, format };
}

/**
 * frameVersion and smoothing as of this chart's last refresh: the chart pump decides when (one
 * chart per task, on-screen charts only, throttled), so frames never re-render every chart at once.
 */
function useRefreshedVersion(ref: React.RefObject<HTMLElement | null>, name: string): [number, number] {
  const [seen, setSeen] = useState(() => {
    const s = useLab.getState();
    return [s.frameVersion, s.view.smoothing] as [number, number];
  });
  const handleRef = useRef<ChartHandle | null>(null);
  useEffect(() => handleRef.current?.committed(), [seen]);
  useEffect(() => {
    const handle = registerChart(name, () => {
      const s = useLab.getState();
      setSeen((prev) =>
        prev[0] === s.frameVersion && prev[1] === s.view.smoothing
          ? prev
          : [s.frameVersion, s.view.smoothing],
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
  return seen;
}

// ─── static parts: created once, so React skips them whenever a chart refreshes ───────────

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
const AUTO_DOMAIN = ['auto', 'auto'];
const NO_POINTS = () => [];
// interval={0}: show the (few, round) ticks as they are; recharts' default interval measures
// every tick label in the DOM on each redraw, a forced layout per tick.
const GRID = <CartesianGrid stroke="#e6e9ee" vertical={false} verticalCoordinatesGenerator={NO_POINTS} />;
const X_AXIS = (
  <XAxis
    dataKey="step"
    type="number"
    domain={['dataMin', 'dataMax']}
    allowDecimals={false}
    interval={0}
    tick={TICK}
    tickLine={false}
    stroke="#9aa3ad"
  />
);
const TOOLTIP = (
  <Tooltip
    isAnimationActive={false}
    formatter={(v) => fmt(Number(v))}
    labelFormatter={(s) => `step ${s}`}
    contentStyle={{ fontSize: 11, padding: '4px 8px' }}
    itemStyle={{ padding: 0 }}
  />
);

/** Per series: a seed band (min–max over seeds), the faint raw line when smoothed, the line. */
function seriesElements(specs: SeriesSpec[], smoothed: boolean): ReactNode[] {
  const bands = specs
    .filter((s) => s.runIds.length > 1)
    .map((s) => (
      <Area
        key={`${s.id}~band`}
        // recharts range Area: dataKey → [low, high]
        dataKey={(r: Record<string, number>) => [r[`${s.id}~lo`], r[`${s.id}~hi`]]}
        type="linear"
        stroke="none"
        fill={s.color}
        fillOpacity={0.08}
        connectNulls
        isAnimationActive={false}
        activeDot={false}
        tooltipType="none"
        legendType="none"
      />
    ));
  const raw = smoothed
    ? specs.map((s) => (
        <Line
          key={`${s.id}~raw`}
          dataKey={`${s.id}~raw`}
          stroke={s.color}
          strokeOpacity={0.22}
          strokeWidth={1}
          strokeDasharray={s.dash}
          dot={false}
          activeDot={false}
          connectNulls
          isAnimationActive={false}
          tooltipType="none"
          legendType="none"
        />
      ))
    : [];
  const lines = specs.map((s) => (
    <Line
      key={s.id}
      dataKey={s.id}
      name={s.name}
      stroke={s.color}
      strokeWidth={1.6}
      strokeDasharray={s.dash}
      dot={false}
      activeDot={ACTIVE_DOT}
      connectNulls
      isAnimationActive={false}
    />
  ));
  return [...bands, ...raw, ...lines];
}
const ACTIVE_DOT = { r: 2.5 };

/** Live-parameter markers, one vertical line each (duplicates across runs drawn once). */
function markerElements(markers: Marker[], midStep: number): ReactNode[] {
  const seen = new Set<string>();
  return markers
    .filter((m) => {
      const k = `${m.step}:${m.param}:${m.value}`;
      return seen.has(k) ? false : (seen.add(k), true);
    })
    .map((m, i) => (
      <ReferenceLine
        key={i}
        x={m.step}
        stroke="#6b7480"
        strokeDasharray="3 3"
        ifOverflow="extendDomain"
        label={{
          value: `${m.param}=${m.value}`,
          // Left of the line in the chart's right half, so the label is never clipped.
          position: m.step > midStep ? 'insideTopRight' : 'insideTopLeft',
          fontSize: 9,
          fill: '#4b5561',
        }}
      />
    ));
}

function MetricChartImpl({
  title,
  metric,
  about,
  specs,
  scaleSpecs,
  markers,
  log = false,
  refY,
  tools,
  children,
}: MetricChartProps) {
  const ref = useRef<HTMLElement>(null);
  const [version, smoothing] = useRefreshedVersion(ref, title);

  const data = useMemo(() => {
    void version; // re-read the ring buffers whenever frames arrived
    const byStep = new Map<number, Record<string, number>>();
    const row = (step: number) => {
      let r = byStep.get(step);
      if (!r) byStep.set(step, (r = { step }));
      return r;
    };
    for (const s of specs) {
      const series = readSeries(s.runIds, s.key, smoothing, log);
      if (!series) continue;
      series.x.forEach((step, i) => {
        const r = row(step);
        r[`${s.id}~raw`] = series.y[i];
        r[s.id] = series.smooth ? series.smooth[i] : series.y[i];
        if (series.lo && series.hi) {
          r[`${s.id}~lo`] = series.lo[i];
          r[`${s.id}~hi`] = series.hi[i];
        }
      });
    }
    const sorted = [...byStep.values()].sort((a, b) => a.step - b.step);
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of sorted) {
      for (const [k, v] of Object.entries(r)) {
        if (k !== 'step' && Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    for (const s of scaleSpecs ?? []) {
      if (specs.includes(s)) continue;
      const series = readSeries(s.runIds, s.key, smoothing, log);
      for (const v of series ? [series.y, series.smooth, series.lo, series.hi].flat() : []) {
        if (v !== undefined && Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    if (refY !== undefined && lo <= hi) {
      lo = Math.min(lo, refY);
      hi = Math.max(hi, refY);
    }
    return { rows: sorted, axis: lo <= hi && !log ? niceAxis(lo, hi) : null };
  }, [specs, scaleSpecs, smoothing, log, refY, version]);
  const { rows, axis } = data;

  const smoothed = smoothing > 0;
  // The chart's children are memoized on what they draw, not on the data: a refresh with new
  // frames then re-renders only what reads the data (recharts' store), not every series element.
  const series = useMemo(() => seriesElements(specs, smoothed), [specs, smoothed]);
  const midStep = rows.length ? (rows[0].step + rows[rows.length - 1].step) / 2 : 0;
  // Which side of its line each marker's label sits on (left of the line in the right half).
  const sides = markers.map((m) => (m.step > midStep ? 'R' : 'L')).join('');
  const markerLines = useMemo(() => {
    void sides;
    return markerElements(markers, midStep);
  }, [markers, sides]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <figure className="chart" ref={ref} aria-label={title} data-chart={title} data-points={rows.length}>
      <figcaption title={about}>
        <span className="chart-title">{title}</span>
        {metric && <code className="chart-hint">{metric}</code>}
        <span className="chart-tools">
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
          <button
            type="button"
            className="mini"
            aria-label={`Download ${title} as PNG`}
            title="This chart as a PNG image"
            disabled={rows.length === 0}
            onClick={() => {
              const svg = ref.current?.querySelector<SVGSVGElement>('svg.recharts-surface');
              if (svg)
                void svgPng(svg, fileName(title)).catch((e: Error) =>
                  addError(`PNG export failed: ${e.message}`),
                );
            }}
          >
            PNG
          </button>
        </span>
      </figcaption>
      {rows.length === 0 ? (
        <div className="chart-empty">no data yet</div>
      ) : (
        <ResponsiveContainer width="100%" height={170}>
          <ComposedChart data={rows} margin={MARGIN} syncId="lab" syncMethod="value">
            {GRID}
            {X_AXIS}
            <YAxis
              scale={log ? 'log' : 'linear'}
              domain={axis ? axis.domain : AUTO_DOMAIN}
              ticks={axis?.ticks}
              interval={0}
              allowDataOverflow={log}
              tickFormatter={axis ? axis.format : fmt}
              tick={TICK}
              tickLine={false}
              width={44}
              stroke="#9aa3ad"
            />
            {TOOLTIP}
            {refY !== undefined && <ReferenceLine y={refY} stroke="#9aa3ad" strokeDasharray="1 3" />}
            {markerLines}
            {series}
          </ComposedChart>
        </ResponsiveContainer>
      )}
      {children}
    </figure>
  );
}

export const MetricChart = memo(MetricChartImpl);
