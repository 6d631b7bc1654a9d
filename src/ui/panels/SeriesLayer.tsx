/**
 * A chart's data, drawn as plain SVG paths inside a recharts chart: every series' smoothed line,
 * its faint raw line and its seed band, plus the hover: a cursor line at the hovered step in every
 * chart, dots on each series there, and a tooltip in the chart under the pointer.
 *
 * Why not recharts' own <Line>, <Area> and <Tooltip>: each <Line> is a dozen components and redux
 * selectors, and a chart of 2 runs × 3 agents had 12 of them. A refresh cost 40–60 ms of main
 * thread with 10 points per line, so every refresh was a long task. And recharts' tooltip sync
 * (syncId) makes a chart that redraws broadcast its (inactive) tooltip to every other chart, each
 * of which then re-renders synchronously: 100–300 ms tasks while runs stream. recharts still draws
 * the axes, grid and reference lines; this layer reads their scales through recharts' hooks and
 * shares the hovered step through a tiny store of its own.
 */
import { createContext, memo, useContext, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { KeyboardEvent, MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { usePlotArea, useXAxisInverseScale, useXAxisScale, useYAxisScale } from 'recharts';
import { bandPath, formatSignificant, linePath, nearest } from '../plot';
import type { Scale } from '../plot';
import type { RunId } from '../../workers/protocol';

/** One line of a chart: a metric key of one run (or of a config entry's seeds). */
export interface SeriesSpec {
  /** Stable id within the chart (React keys). */
  id: string;
  /** One run, or the runs of one config entry over several seeds (drawn as mean and band). */
  runIds: RunId[];
  key: string;
  /** Legend/tooltip name, e.g. "Dr. MAS · search". */
  name: string;
  color: string;
  dash: string;
  /** An opened result's run beside its twin trained here: drawn thin and light, the twin solid. */
  faded?: boolean;
}

/** One spec's points, as the chart draws them. */
export interface Drawn {
  spec: SeriesSpec;
  x: number[];
  /** The drawn line: smoothed when smoothing is on, else the raw values. */
  y: number[];
  /** The faint raw line under a smoothed one. */
  raw?: number[];
  /** The min–max band over seeds. */
  lo?: number[];
  hi?: number[];
}

/**
 * What a chart draws, handed to its SeriesLayer by context: a refresh then re-renders the layer
 * without re-rendering the recharts chart around it (MetricChart's ChartFrame).
 */
export const ChartData = createContext<{ drawn: Drawn[]; steps: number[] }>({ drawn: [], steps: [] });

// ─── the hovered step, shared by every chart ──────────────────────────────────────────────

interface Hover {
  step: number;
  /** The chart under the pointer (it alone shows the tooltip box). */
  chart: string;
  /** Read with the keyboard: a screen reader is told each step's values as the keys move. */
  keys?: boolean;
}
let hover: Hover | null = null;
const listeners = new Set<() => void>();
function setHover(next: Hover | null): void {
  if (next?.step === hover?.step && next?.chart === hover?.chart && next?.keys === hover?.keys) return;
  hover = next;
  for (const l of listeners) l();
}
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
const useHover = () => useSyncExternalStore(subscribe, () => hover);
/**
 * The pointer left `chart`, or its plot lost focus: its reading ends, but not another chart's. A
 * chart read with the keyboard keeps its tooltip when the pointer leaves some other chart (a scroll
 * that moves a chart from under a resting pointer does that).
 */
const leave = (chart: string) => hover?.chart === chart && setHover(null);

// ─── the layer ─────────────────────────────────────────────────────────────────────────────

/** The data paths: re-rendered only when the data or the scales change, never on hover. */
const Paths = memo(function Paths({ drawn, sx, sy }: { drawn: Drawn[]; sx: Scale; sy: Scale }) {
  return (
    <>
      {drawn.map(({ spec, x, lo, hi }) =>
        lo && hi ? (
          <path
            key={`${spec.id}~band`}
            className="series-band"
            d={bandPath(x, lo, hi, sx, sy)}
            fill={spec.color}
            fillOpacity={0.08}
            stroke="none"
          />
        ) : null,
      )}
      {drawn.map(({ spec, x, raw }) =>
        raw ? (
          <path
            key={`${spec.id}~raw`}
            className="series series-raw"
            d={linePath(x, raw, sx, sy)}
            fill="none"
            stroke={spec.color}
            strokeOpacity={0.22}
            strokeWidth={1}
            strokeDasharray={spec.dash}
          />
        ) : null,
      )}
      {drawn.map(({ spec, x, y }) => {
        const d = linePath(x, y, sx, sy);
        // A series with one point so far (eval at its first step) is a dot, not an empty path.
        const dot = /^M([^,]+),([^L]+)$/.exec(d);
        return dot ? (
          <circle
            key={spec.id}
            className="series series-line"
            data-series={spec.name}
            cx={dot[1]}
            cy={dot[2]}
            r={2.5}
            fill={spec.color}
            stroke={spec.color}
          />
        ) : (
          <path
            key={spec.id}
            className="series series-line"
            data-series={spec.name}
            d={d}
            fill="none"
            stroke={spec.color}
            strokeWidth={spec.faded ? 1 : 1.6}
            strokeOpacity={spec.faded ? 0.5 : undefined}
            strokeDasharray={spec.dash}
          />
        );
      })}
    </>
  );
});

export function SeriesLayer({
  chart,
  tipHost,
}: {
  /** The chart's title: which chart the pointer is over. */
  chart: string;
  /** Where the tooltip box goes (the chart's plot container). */
  tipHost: HTMLElement | null;
}) {
  // `steps`: every step drawn, ascending; the hover snaps to these.
  const { drawn, steps } = useContext(ChartData);
  const sx = useXAxisScale() as Scale | undefined;
  const sy = useYAxisScale() as Scale | undefined;
  const invert = useXAxisInverseScale();
  const area = usePlotArea();
  const h = useHover();
  const first = steps[0];
  const last = steps[steps.length - 1];
  const active = h && h.step >= first && h.step <= last ? h.step : null;
  // Each series' point nearest the hovered step (series are downsampled on their own steps).
  const hits = useMemo(
    () =>
      active === null
        ? []
        : drawn.flatMap((d) => {
            const i = nearest(d.x, active);
            return i >= 0 && Number.isFinite(d.y[i]) ? [{ d, x: d.x[i], v: d.y[i] }] : [];
          }),
    [drawn, active],
  );
  // A keyboard reading at the newest step follows the newest step as the chart redraws: a chart
  // focused just as it comes on screen (its lines last drawn when it went off) reads the steps its
  // next turn draws, and End keeps reading the end while the runs train. Elsewhere the reading stays.
  const lastSeen = useRef(last);
  useEffect(() => {
    const before = lastSeen.current;
    lastSeen.current = last;
    if (h?.chart === chart && h.keys && h.step === before && last !== undefined && last !== before)
      setHover({ step: last, chart, keys: true });
  }, [last, h, chart]);
  if (!sx || !sy || !area) return null;

  const onMove = (e: MouseEvent<SVGRectElement>) => {
    const svg = e.currentTarget.ownerSVGElement;
    if (!svg || !invert || steps.length === 0) return;
    const value = Number(invert(e.clientX - svg.getBoundingClientRect().left));
    const i = nearest(steps, value);
    if (i >= 0) setHover({ step: steps[i], chart });
  };
  // Keyboard: the plot is a tab stop; arrows move along the steps, Home/End jump, Escape leaves.
  const onKey = (e: KeyboardEvent<SVGRectElement>) => {
    if (steps.length === 0) return;
    const at = h?.chart === chart ? nearest(steps, h.step) : steps.length - 1;
    const to: Record<string, number> = {
      ArrowLeft: Math.max(0, at - 1),
      ArrowRight: Math.min(steps.length - 1, at + 1),
      Home: 0,
      End: steps.length - 1,
    };
    if (e.key === 'Escape') setHover(null);
    else if (e.key in to) setHover({ step: steps[to[e.key]], chart, keys: true });
    else return;
    e.preventDefault();
  };
  const ax = active === null ? undefined : sx(active);
  const showTip = tipHost && ax !== undefined && h?.chart === chart && hits.length > 0;
  return (
    <g className="series-layer">
      <Paths drawn={drawn} sx={sx} sy={sy} />
      {ax !== undefined && (
        <line
          className="hover-cursor"
          x1={ax}
          x2={ax}
          y1={area.y}
          y2={area.y + area.height}
          stroke="#9aa3ad"
          strokeWidth={1}
        />
      )}
      {hits.map(({ d, x, v }) => {
        const px = sx(x);
        const py = sy(v);
        return px === undefined || py === undefined ? null : (
          <circle key={d.spec.id} cx={px} cy={py} r={2.5} fill={d.spec.color} stroke="#fff" strokeWidth={1} />
        );
      })}
      {/* On top, transparent: takes the pointer over the plot area. */}
      <rect
        x={area.x}
        y={area.y}
        width={Math.max(0, area.width)}
        height={Math.max(0, area.height)}
        fill="transparent"
        onMouseMove={onMove}
        onMouseLeave={() => leave(chart)}
        tabIndex={0}
        aria-label={`${chart}: the arrow keys read the values step by step`}
        onFocus={() => steps.length > 0 && setHover({ step: steps[steps.length - 1], chart, keys: true })}
        onBlur={() => leave(chart)}
        onKeyDown={onKey}
      />
      {tipHost &&
        createPortal(
          // Always there while the plot is, so a screen reader announces each change: the values
          // at the step the keys moved to (empty under the pointer, which would say too much).
          <div className="sr-only" aria-live="polite" data-testid="chart-reading">
            {showTip && h?.keys
              ? `step ${active}: ${hits.map(({ d, v }) => `${d.spec.name} ${formatSignificant(v)}`).join(', ')}`
              : ''}
          </div>,
          tipHost,
        )}
      {showTip &&
        createPortal(
          <div
            className="chart-tip"
            role="tooltip"
            style={
              // Beside the cursor, on the side with more room, so it never covers the hovered step.
              ax > area.x + area.width / 2
                ? { right: `calc(100% - ${ax - 8}px)`, top: area.y + 4 }
                : { left: ax + 12, top: area.y + 4 }
            }
          >
            <div className="chart-tip-step">step {active}</div>
            {hits.map(({ d, v }) => (
              <div key={d.spec.id} style={{ color: d.spec.color }}>
                {d.spec.name}: {formatSignificant(v)}
              </div>
            ))}
          </div>,
          tipHost,
        )}
    </g>
  );
}
