/**
 * The recharts frame of a metric chart: grid, axes, reference lines and markers around
 * SeriesLayer's lines. Its static parts are created once and the frame is memoized, so a refresh
 * that only extends the lines skips recharts entirely (chart-refresh.ts says when it redraws).
 */
import { memo } from 'react';
import type { ReactNode } from 'react';
import { CartesianGrid, ComposedChart, ReferenceLine, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { BaseTickContentProps } from 'recharts';
import type { Axis } from '../plot';
import { SeriesLayer } from './SeriesLayer';

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
export const ChartFrame = memo(function ChartFrame({
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
      {/* accessibilityLayer off: recharts' made the <svg> a tab stop (role="application", no name)
          whose arrow keys drive recharts' tooltip, which the page does not draw; the keyboard's
          stop is SeriesLayer's plot, right after it. */}
      <ComposedChart margin={MARGIN} accessibilityLayer={false}>
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
