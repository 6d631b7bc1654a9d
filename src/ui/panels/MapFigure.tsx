/**
 * One chart of the Map: a figure in one facet (the other dials' values), each pair's paired
 * difference as a line with its 95 % CI as error bars, a filled point where the CI excludes 0,
 * and the y axis its row of facets shares. Apart from SweepMap.tsx, which chooses what to draw.
 */
import { useRef } from 'react';
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
import type { MapChart } from '../../report/sweep-map';
import { fileName } from '../export';
import { formatSignificant, niceAxis } from '../plot';
import { ImageButtons } from './ImageButtons';

const TICK = { fontSize: 11, fill: '#4b5561' };

/**
 * One chart: a figure in one facet, the shared y axis of its row, each line in `colors` (its run's
 * colour). `from` is the baseline where the user picked one other than the first run: the PNG and
 * SVG then say it in their title and file name (the legend's pairs say it in every case).
 */
export function MapFigure({
  chart,
  x,
  y,
  colors,
  from,
  sweep,
}: {
  chart: MapChart;
  x: string;
  y: ReturnType<typeof niceAxis>;
  colors: readonly string[];
  from: string;
  /** The opened sweep folder's name: where an exported image came from. */
  sweep: string;
}) {
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
  const series = chart.lines.map((l, k) => ({ name: l.pair, color: colors[k], dash: '' }));
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
            name={fileName(`map ${chart.figure} ${chart.facet}${from && ` from ${from}`}`)}
            parts={() => ({
              title: `${title} (paired difference${from && ` from ${from}`}, 95 % CI over seeds)`,
              series,
              xName: x,
              yName: `${chart.words} (difference)`,
              notes: [
                `Data: ${x} ${xs.join(', ')}; ${chart.figure} (lab report's name for it).`,
                `Sweep: ${sweep} (lab sweep or lab merge folder).`,
              ],
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
export function rowAxis(charts: readonly MapChart[]) {
  const v = charts.flatMap((c) =>
    c.lines.flatMap((l) => l.points.flatMap((p) => [p.mean, p.lo, p.hi])).filter(Number.isFinite),
  );
  return niceAxis(Math.min(0, ...v), Math.max(0, ...v));
}
