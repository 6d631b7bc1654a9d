/**
 * When a metric chart redraws: the chart pump (chart-pump.ts) gives each chart its turn, on screen
 * only, one chart per task, throttled, and this hook holds what the chart drew at its last turn.
 * Apart from MetricChart because it is the scheduling side of a chart, not its drawing.
 */
import { useEffect, useRef, useState } from 'react';
import { registerChart } from '../chart-pump';
import type { ChartHandle } from '../chart-pump';
import { useLab } from '../session/store';
import type { SeriesSpec } from './SeriesLayer';

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
export function useRefreshed(
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
