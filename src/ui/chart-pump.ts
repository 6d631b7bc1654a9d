/**
 * Chart refresh scheduling. A refresh re-reads a chart's ring buffers and redraws its lines
 * (SeriesLayer); when an axis moves, recharts redraws the axes too, synchronously, from its own
 * store in the next animation frame. Refreshing every chart in one commit would block the page
 * for hundreds of milliseconds, so charts refresh one at a time, on-screen ones only, each at most
 * once per REFRESH_MS while frames stream in, with a pause as long as the last refresh before the
 * next: charts take at most about half the main thread, and input is answered between any two.
 * A chart whose series change (runs imported, hidden or shown) takes its new series at its turn
 * too, so a board of charts re-reading a long imported run never redraws in one task.
 * Each refresh is a `chart` user-timing measure (start to the frame after its commit), so
 * benchmarks can see what a chart costs.
 */
import { startTransition } from 'react';
import type { LabState } from './session/store';

/** Least time between two refreshes of one chart while frames arrive. */
const REFRESH_MS = 1000;

interface Entry {
  name: string;
  refresh(): void;
  visible: boolean;
  dirty: boolean;
  /** Refresh without waiting REFRESH_MS (a user changed how the chart is drawn). */
  urgent: boolean;
  /** Its series changed (a run imported, hidden, shown, the chart new): refreshed even off screen, after those on screen. */
  reseries: boolean;
  last: number;
}

const charts = new Set<Entry>();
let timer: ReturnType<typeof setTimeout> | null = null;
let measured = 0;
/** The chart whose refresh is rendering (a transition, time-sliced); the next waits for its commit. */
let inFlight: {
  entry: Entry;
  start: number;
  guard: ReturnType<typeof setTimeout>;
  settling?: boolean;
} | null = null;

function committed(entry: Entry): void {
  if (inFlight?.entry !== entry || inFlight.settling) return;
  inFlight.settling = true;
  const { start, guard } = inFlight;
  clearTimeout(guard);
  // A moved axis goes into recharts' store from an effect, and its store tells its components in
  // the next animation frame (redux autoBatch), where they re-render synchronously. So the
  // measure ends after that frame (and its paint): a zero timeout after a rAF callback.
  const settle = () => {
    const end = performance.now();
    performance.measure('chart', { start, end, detail: entry.name });
    if (++measured % 1000 === 0) performance.clearMeasures('chart'); // keep the timeline bounded
    // Leave the page as much time as the last chart took: charts get at most half the main thread.
    inFlight = null;
    kick(Math.min(end - start, 500));
  };
  const afterFrame = () => setTimeout(settle, 0);
  setTimeout(() => {
    // rAF does not fire in a hidden tab (the session pauses there): do not wait for one.
    if (document.visibilityState === 'visible') requestAnimationFrame(afterFrame);
    else settle();
  }, 0);
}

function kick(delay = 0): void {
  if (timer === null) timer = setTimeout(pump, delay);
}

function pump(): void {
  timer = null;
  if (inFlight) return;
  const now = performance.now();
  let next: Entry | null = null;
  let wait = Infinity;
  for (const c of charts) {
    if (!c.visible || !c.dirty) continue;
    const due = c.urgent ? now : c.last + REFRESH_MS;
    if (due <= now) {
      if (!next || c.last < next.last) next = c;
    } else wait = Math.min(wait, due - now);
  }
  // Then charts off screen whose series changed, so every chart has its lines (a test, a PNG, a
  // scroll finds them drawn), still one per turn.
  if (!next) for (const c of charts) if (c.reseries && (!next || c.last < next.last)) next = c;
  if (next) {
    next.dirty = next.urgent = next.reseries = false;
    next.last = now;
    const entry = next;
    // A chart that does not re-render (no new data) never commits: move on after a while.
    inFlight = { entry, start: performance.now(), guard: setTimeout(() => committed(entry), 500) };
    startTransition(entry.refresh);
  } else if (wait < Infinity) kick(wait);
}

export interface ChartHandle {
  setVisible(visible: boolean): void;
  /** Asks for a refresh at the chart's next turn (its series changed: runs imported, hidden, shown). */
  request(): void;
  /** Called by the chart after a refresh committed (from an effect). */
  committed(): void;
  dispose(): void;
}

/** Registers a chart's refresh callback; it runs (in a transition) when the chart's turn comes. */
export function registerChart(name: string, refresh: () => void): ChartHandle {
  const entry: Entry = {
    name,
    refresh,
    visible: true,
    dirty: false,
    urgent: false,
    reseries: false,
    last: -Infinity,
  };
  charts.add(entry);
  return {
    setVisible(visible) {
      entry.visible = visible;
      if (visible && entry.dirty) {
        entry.urgent = true;
        kick();
      }
    },
    request() {
      entry.dirty = entry.urgent = entry.reseries = true;
      kick();
    },
    committed: () => committed(entry),
    dispose() {
      charts.delete(entry);
      committed(entry);
    },
  };
}

function markAll(urgent: boolean): void {
  for (const c of charts) {
    c.dirty = true;
    c.urgent ||= urgent;
  }
  kick();
}

/** A store reaction: new frames refresh at the throttled pace, a change in how charts are drawn now. */
export function refreshCharts(s: LabState, prev: LabState): void {
  if (s.view.smoothing !== prev.view.smoothing) markAll(true);
  else if (s.frameVersion !== prev.frameVersion) markAll(false);
}
