/**
 * Live-parameter markers on a chart: a dashed vertical line at each step a run took a change, with
 * its applied value as the label (`lr=0.003`).
 */
import type { ReactNode } from 'react';
import { ReferenceLine } from 'recharts';
import type { Marker } from '../session/store';

/** Height of one row of marker labels, px (their font is 9 px). */
const MARKER_ROW_PX = 11;
/**
 * Steps within which two marker labels would overlap: a label is ~60 px wide, a chart's plot
 * ~300 px, so a fifth of the axis span.
 */
const MARKER_CLASH = 0.2;

/**
 * Live-parameter markers, one vertical line each (duplicates across runs drawn once). Labels of
 * markers close on the step axis (runs that took a change at 179 and 200) go on rows one below
 * the other, so each stays readable.
 */
export function markerElements(markers: Marker[], domain: readonly [number, number]): ReactNode[] {
  const seen = new Set<string>();
  const unique = markers
    .filter((m) => {
      const k = `${m.step}:${m.param}:${m.value}`;
      return seen.has(k) ? false : (seen.add(k), true);
    })
    .sort((a, b) => a.step - b.step);
  const clash = (domain[1] - domain[0]) * MARKER_CLASH;
  const midStep = (domain[0] + domain[1]) / 2;
  // The step of the last label on each row: a label takes the first row it does not clash on.
  const rows: number[] = [];
  return unique.map((m, i) => {
    let row = rows.findIndex((last) => m.step - last >= clash);
    if (row < 0) row = rows.length;
    rows[row] = m.step;
    return (
      <ReferenceLine
        key={i}
        x={m.step}
        stroke="#6b7480"
        strokeDasharray="3 3"
        label={
          <MarkerLabel
            text={`${m.param}=${m.value}`}
            row={row}
            // Left of the line in the chart's right half, so the label is never clipped.
            left={m.step > midStep}
          />
        }
      />
    );
  });
}

/** A marker's label, at the top of its line on its own row; recharts passes the line's viewBox. */
function MarkerLabel(p: { text: string; row: number; left: boolean; viewBox?: { x: number; y: number } }) {
  if (!p.viewBox) return null;
  return (
    <text
      className="recharts-label marker-label"
      x={p.viewBox.x + (p.left ? -3 : 3)}
      y={p.viewBox.y + 10 + p.row * MARKER_ROW_PX}
      textAnchor={p.left ? 'end' : 'start'}
      fontSize={9}
      fill="#4b5561"
    >
      {p.text}
    </text>
  );
}
