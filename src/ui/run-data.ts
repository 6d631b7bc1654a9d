/**
 * High-frequency run data kept outside React state (zustand "transient updates"): per run, the
 * frame key table, a bounded ring of metric frames and the latest inspected rollouts. Frames are
 * held as they arrive and go into the rings at the next tick, with one store commit
 * (frameVersion, the runs' step counters and saved steps, the steps of their `state` and `saved`
 * messages), never one per message: the counters, the charts and every reader of the rings agree.
 */
import { MAX_STEPS } from '../core/config-names';
import { FrameCodec } from '../core/frame';
import { FrameRing, debiasedEma, downsampleMinMax } from '../core/series';
import type { InspectedTrajectory, RunId } from '../workers/protocol';
import { setSession } from './session/store';
import type { RunView } from './session/store';

/**
 * Frames kept per run: every step a run can take (the config's MAX_STEPS), so the charts and the
 * CSV / JSON / TensorBoard exports hold a whole run, however long. Memory grows with the run:
 * ~60 keys × 8 bytes a step, 0.5 MB per 1,000 steps, 48 MB at most. An import longer than this
 * keeps its last MAX_STEPS steps here (its stored copy keeps all of them).
 */
export const RING_CAPACITY = MAX_STEPS;
/** Points per drawn series (recharts is SVG; it slows past ~1k points, docs/architecture.md#metric-to-chart). */
const MAX_POINTS = 400;

interface RunData {
  codec: FrameCodec;
  ring: FrameRing;
  stepCol: number;
  rollouts: { step: number; trajectories: InspectedTrajectory[] } | null;
  /** Its frames came from storage, a result or an import (restoreRunData), which keep no rollouts. */
  restored: boolean;
}

const data = new Map<RunId, RunData>();

export const runData = (id: RunId): RunData | undefined => data.get(id);

export function initRunData(id: RunId, keys: string[]): void {
  pending.get(id)?.frames.splice(0); // held for the run's old key table
  const codec = new FrameCodec(keys);
  data.set(id, {
    codec,
    ring: new FrameRing(keys.length, RING_CAPACITY),
    stepCol: codec.indexOf('step'),
    rollouts: null,
    restored: false,
  });
}

/** A run's history from storage (oldest first): the ring is rebuilt, no store commit is made. */
export function restoreRunData(id: RunId, keys: string[], frames: Float64Array[]): void {
  initRunData(id, keys);
  const d = data.get(id)!;
  d.restored = true;
  for (const f of frames) if (f.length === keys.length) d.ring.push(f);
}

/**
 * What the rollout inspector says while a run has no rollouts to show: none yet, or, where its
 * steps were restored (a reload, an import), that their rollouts were not kept, so that "none"
 * beside "step 200 restored" does not read as if nothing ran.
 */
export function noRolloutsNote(id: RunId): string {
  const d = data.get(id);
  return d?.restored && d.ring.length > 0
    ? 'not kept with the recorded steps: the next step shows its own'
    : 'none yet';
}

/** Every frame of a run, oldest first, each a copy over its key table (a result file keeps them). */
export function framesOf(id: RunId): Float64Array[] {
  const d = data.get(id);
  if (!d) return [];
  return Array.from({ length: d.ring.length }, (_, i) => {
    const f = new Float64Array(d.codec.keys.length);
    for (let c = 0; c < f.length; c++) f[c] = d.ring.at(i, c);
    return f;
  });
}

/** Keeps a run's frames before step `fromStep` (a resumed run recomputes the rest). */
export function truncateRunData(id: RunId, fromStep: number): void {
  const d = data.get(id);
  if (!d) return;
  const held = (pending.get(id)?.frames ?? []).filter((f) => f.step < fromStep);
  const frames = framesOf(id).filter((f) => !(f[d.stepCol] >= fromStep));
  restoreRunData(id, [...d.codec.keys], frames);
  pending.get(id)?.frames.push(...held);
}

/** Forgets these runs' data (imported runs taken off the charts). */
export function forgetRunData(ids: readonly RunId[]): void {
  for (const id of ids) {
    data.delete(id);
    pending.delete(id);
  }
}

/** Forgets every run's data but `keep`'s. */
export function clearRunData(keep: readonly RunId[] = []): void {
  for (const id of data.keys()) if (!keep.includes(id)) data.delete(id);
  for (const id of pending.keys()) if (!keep.includes(id)) pending.delete(id);
}

// ─── frames in, one commit per tick out ──────────────────────────────────────

/**
 * Least time between two commits of run data. Every commit re-renders the status bar and
 * whatever follows a run's step, and the page then lays out, paints and rasters: several ms of
 * the main thread and the compositor's threads each time. At one commit per animation frame the
 * default experiment's two runs (three messages a step each, about seven steps a second) changed the
 * page in some 30 frames a second, and on two cores that CPU comes out of the runs' own: at 250 ms
 * the page's main thread takes 5–10 ms less per run step (docs/figures.md#the-page-while-two-runs-train).
 * A counter read four times a second still reads as live.
 */
export const TICK_MS = 250;

/** Per run: what came since the last commit (its frames, the newest step, tokens/s, rollouts step, saved step). */
interface Pending {
  frames: { step: number; values: Float64Array }[];
  step: number;
  tokensPerS: number;
  rolloutStep?: number;
  savedStep?: number;
}
const pending = new Map<RunId, Pending>();
let scheduled = false;
let lastFlush = -Infinity;

/** Merges `patch` into run `id`'s pending update; the step only moves forward. */
function note(id: RunId, patch: Partial<Omit<Pending, 'frames'>>): Pending {
  const prev = pending.get(id) ?? { frames: [], step: -1, tokensPerS: NaN };
  const next = { ...prev, ...patch, step: Math.max(prev.step, patch.step ?? -1) };
  pending.set(id, next);
  schedule();
  return next;
}

export function pushFrame(id: RunId, step: number, values: Float64Array): void {
  const d = data.get(id);
  if (!d || values.length !== d.codec.keys.length) return;
  if (d.stepCol >= 0 && Number.isNaN(values[d.stepCol])) values[d.stepCol] = step;
  const tps = values[d.codec.indexOf('perf/tokens_per_s')];
  note(id, { step, ...(Number.isFinite(tps) ? { tokensPerS: tps } : {}) }).frames.push({ step, values });
}

export function setRollouts(id: RunId, step: number, trajectories: InspectedTrajectory[]): void {
  const d = data.get(id);
  if (!d) return;
  d.rollouts = { step, trajectories };
  // Told to React with the step's frame, in the same store update.
  note(id, { rolloutStep: step });
}

/** A run reports the step it is at, its state unchanged (a `state` message after each step). */
export function pushStep(id: RunId, step: number): void {
  note(id, { step });
}

/** A run's state after `step` is stored (a `saved` message): the status bar's "saved after". */
export function pushSaved(id: RunId, step: number): void {
  note(id, { savedStep: step });
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // rAF does not fire in a hidden tab; the session pauses there, and a timer flushes the last frames.
  const wait = Math.max(0, lastFlush + TICK_MS - performance.now());
  const onFrame = typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible';
  setTimeout(() => (onFrame ? requestAnimationFrame(() => flushRunData()) : flushRunData()), wait);
}

/**
 * Commits what came since the last commit now (the tick's own job; also for a reader that needs
 * the store current, such as storage-full's message, which names each run's saved step).
 */
export function flushRunData(): void {
  scheduled = false;
  lastFlush = performance.now();
  if (pending.size === 0) return;
  const updates = new Map(pending);
  pending.clear();
  for (const [id, u] of updates) {
    const d = data.get(id);
    for (const f of u.frames) if (d && f.values.length === d.codec.keys.length) d.ring.push(f.values);
  }
  setSession((s) => ({
    frameVersion: s.frameVersion + 1,
    runs: s.runs.map((r): RunView => {
      const u = updates.get(r.id);
      if (!u) return r;
      return {
        ...r,
        step: Math.max(r.step, u.step),
        tokensPerS: Number.isFinite(u.tokensPerS) ? u.tokensPerS : r.tokensPerS,
        ...(u.rolloutStep === undefined ? {} : { rolloutStep: u.rolloutStep }),
        ...(u.savedStep === undefined ? {} : { savedStep: u.savedStep }),
      };
    }),
  }));
}

// ─── series for charts and export ────────────────────────────────────────────

interface Series {
  /** Steps, oldest first, NaN-valued steps left out, at most MAX_POINTS. */
  x: number[];
  /** The value (for a seed group: the mean over seeds) at each step. */
  y: number[];
  /** The EMA-smoothed line over the same steps (absent when smoothing is 0). */
  smooth?: number[];
  /** Seed groups only: the min and max over seeds at each step (the band). */
  lo?: number[];
  hi?: number[];
  /** How many points the series has before downsampling (x.length of them are drawn). */
  total: number;
}

/**
 * One metric of one run, or of a group of runs that differ only in seed (mean, with a min–max
 * band over seeds, as W&B groups runs). Smoothed over the full history, then min/max downsampled.
 */
export function readSeries(
  ids: readonly RunId[],
  key: string,
  smoothing: number,
  positiveOnly = false,
): Series | null {
  const cols = ids.flatMap((id) => {
    const d = data.get(id);
    const col = d?.codec.indexOf(key) ?? -1;
    return d && col >= 0 && d.ring.length > 0
      ? [{ steps: d.ring.column(d.stepCol), y: d.ring.column(col) }]
      : [];
  });
  if (cols.length === 0) return null;
  const clean = (v: number) => (positiveOnly && !(v > 0) ? NaN : v);
  let steps: Float64Array;
  let y: Float64Array;
  let lo: Map<number, number> | null = null;
  let hi: Map<number, number> | null = null;
  if (cols.length === 1) {
    steps = cols[0].steps;
    y = positiveOnly ? cols[0].y.map(clean) : cols[0].y;
  } else {
    // Align the seeds by step; a step counts once any seed has a value there.
    const acc = new Map<number, { sum: number; n: number; lo: number; hi: number }>();
    for (const c of cols) {
      c.steps.forEach((step, i) => {
        const v = clean(c.y[i]);
        if (!Number.isFinite(v)) return;
        const a = acc.get(step) ?? { sum: 0, n: 0, lo: Infinity, hi: -Infinity };
        a.sum += v;
        a.n++;
        a.lo = Math.min(a.lo, v);
        a.hi = Math.max(a.hi, v);
        acc.set(step, a);
      });
    }
    const sorted = [...acc.keys()].sort((p, q) => p - q);
    steps = Float64Array.from(sorted);
    y = Float64Array.from(sorted, (st) => acc.get(st)!.sum / acc.get(st)!.n);
    lo = new Map(sorted.map((st) => [st, acc.get(st)!.lo]));
    hi = new Map(sorted.map((st) => [st, acc.get(st)!.hi]));
  }
  const { at: kept, ...drawn } = downsampleMinMax(steps, y, MAX_POINTS);
  if (drawn.x.length === 0) return null;
  let total = 0;
  for (const v of y) if (!Number.isNaN(v)) total++;
  const raw: Series = { ...drawn, total };
  if (lo && hi) {
    raw.lo = raw.x.map((st) => lo.get(st)!);
    raw.hi = raw.x.map((st) => hi.get(st)!);
  }
  if (smoothing <= 0) return raw;
  // Smooth first (over every point; gaps pass through and do not enter the average), then keep
  // the smoothed values of the points the raw line kept.
  const ema = debiasedEma(y, smoothing);
  return { ...raw, smooth: kept.map((i) => (Number.isFinite(ema[i]) ? ema[i] : NaN)) };
}

/** The last step recorded by any of these runs, whatever its metrics (-Infinity if none). */
export function lastStep(ids: readonly RunId[]): number {
  let last = -Infinity;
  for (const id of ids) {
    const d = data.get(id);
    if (d && d.ring.length > 0) last = Math.max(last, d.ring.at(d.ring.length - 1, d.stepCol));
  }
  return last;
}

/**
 * A watch on whether any of some runs has a value of a metric, reading each row once: an empty
 * chart asks on every frame whether it has something to draw (ChartEmpty.tsx), so a long run is
 * never read whole again. A run cut back (a resume) is read again from its start. `positiveOnly`:
 * only a value above 0 counts, as on a log scale (readSeries).
 */
export function valueWatch(): (ids: readonly RunId[], key: string, positiveOnly?: boolean) => boolean {
  const read = new Map<string, { rows: number; found: boolean }>();
  return (ids, key, positiveOnly = false) =>
    ids.some((id) => {
      const at = `${id} ${key} ${positiveOnly}`;
      const d = data.get(id);
      const col = d?.codec.indexOf(key) ?? -1;
      const n = d?.ring.length ?? 0;
      const was = read.get(at);
      let { rows, found } = was && was.rows <= n ? was : { rows: 0, found: false };
      const counts = (v: number) => (positiveOnly ? v > 0 : Number.isFinite(v));
      if (d && col >= 0) for (; rows < n && !found; rows++) found = counts(d.ring.at(rows, col));
      read.set(at, { rows: found ? rows : n, found });
      return found;
    });
}

/** Every frame of a run as {key: value} rows (NaN slots left out), oldest first. */
export function allRows(id: RunId): Record<string, number>[] {
  const d = data.get(id);
  if (!d) return [];
  const rows: Record<string, number>[] = [];
  const frame = new Float64Array(d.codec.keys.length);
  for (let i = 0; i < d.ring.length; i++) {
    for (let c = 0; c < frame.length; c++) frame[c] = d.ring.at(i, c);
    rows.push(d.codec.decode(frame));
  }
  return rows;
}

/**
 * A run's history of just these keys as {key: value} rows, oldest first (the Findings view reads a
 * few columns of every run; decoding whole frames would cost ~50× more); with `last`, only its last
 * `last` steps (the What differs card reads 20 of up to 100,000).
 */
export function historyOf(id: RunId, keys: readonly string[], last = Infinity): Record<string, number>[] {
  const d = data.get(id);
  if (!d) return [];
  const cols = keys.flatMap((k) => {
    const c = d.codec.indexOf(k);
    return c >= 0 ? [{ k, c }] : [];
  });
  const from = Math.max(0, d.ring.length - last);
  return Array.from({ length: d.ring.length - from }, (_, i) =>
    Object.fromEntries(cols.map(({ k, c }) => [k, d.ring.at(from + i, c)])),
  );
}

/** One metric of a run at every step recorded (NaN where a step lacks it), or null if it has none. */
export function columnOf(id: RunId, key: string): Float64Array | null {
  const d = data.get(id);
  const col = d?.codec.indexOf(key) ?? -1;
  return d && col >= 0 && d.ring.length > 0 ? d.ring.column(col) : null;
}
