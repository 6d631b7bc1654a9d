/**
 * What a chart with nothing drawn says: "drawing…" while its series have values it has not drawn
 * yet (its first turn, or a chart scrolled into view after frames arrived off screen: the chart
 * pump draws on-screen charts in turn, chart-pump.ts), and "no data yet" only while they have none.
 */
import { useMemo } from 'react';
import { valueWatch } from '../run-data';
import { useLab } from '../session/store';
import type { SeriesSpec } from './SeriesLayer';

export function ChartEmpty({ specs, log }: { specs: readonly SeriesSpec[]; log: boolean }) {
  const watch = useMemo(() => valueWatch(), []);
  // Asked again whenever frames arrive; each run's new rows are read once.
  const pending = useLab((s) => {
    void s.frameVersion;
    return specs.some((spec) => watch(spec.runIds, spec.key, log));
  });
  return <div className="chart-empty">{pending ? 'drawing…' : 'no data yet'}</div>;
}
