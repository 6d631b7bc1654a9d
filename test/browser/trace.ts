/**
 * The page's main-thread tasks from a Chromium trace (DevTools protocol `Tracing`), each with its
 * wall time and its thread (CPU) time. The PerformanceObserver 'longtask' entry gives wall time
 * only, and on a shared 2-core machine a 20 ms task the OS preempts can read 80 ms: thread time
 * is what the page's own work costs, and the gap between the two is time the page did not run.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; type?: string } };
}

export interface MainTask {
  /** Start, ms since the trace began. */
  at: number;
  /** Wall time, ms. */
  wall: number;
  /** Thread (CPU) time, ms. */
  cpu: number;
  /** What ran in it, by self time: the five largest as `<ms> <event> <function>` (then the profile's, if any). */
  top: string[];
  /** Start on the trace's clock, µs. */
  startUs: number;
}

interface CpuProfile {
  nodes: {
    id: number;
    parent?: number;
    children?: number[];
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The JS functions sampled in [from, to] (µs), by inclusive time, for files of the app. */
function hot(p: CpuProfile, from: number, to: number): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>();
  const self = new Map<string, number>();
  let t = p.startTime;
  const name = (n: CpuProfile['nodes'][number]) =>
    `${n.callFrame.functionName || '(anon)'}@${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i];
    if (t < from || t > to) return;
    const dt = p.timeDeltas[i + 1] ?? 0;
    const seen = new Set<string>();
    const leaf = byId.get(id)!;
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + dt);
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      const k = name(n);
      if (seen.has(k) || !n.callFrame.url) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + dt);
    }
  });
  const fmtTop = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([f, us]) => `${(us / 1000).toFixed(1)} ${f}`);
  return ['\n    self: ' + fmtTop(self, 12).join(' | '), '\n    incl: ' + fmtTop(incl, 25).join(' | ')];
}

const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'blink.user_timing',
];

/**
 * Starts tracing the page; `stop()` returns its main thread's tasks longer than `minMs` (wall),
 * how many tasks it ran in all (none: the trace did not find the page's thread), and the page's
 * `performance.mark`s (to tell which tasks came after one).
 * With `profile`, V8's sampling profiler runs too and each task lists the app's functions by
 * inclusive and self time (build with `--minify false` to read them).
 */
export async function traceMainThread(
  lab: { context: BrowserContext; page: Page },
  profile = false,
): Promise<{
  stop(minMs?: number): Promise<{ tasks: MainTask[]; all: number; marks: Map<string, number[]> }>;
}> {
  const cdp: CDPSession = await lab.context.newCDPSession(lab.page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => void events.push(...(e.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: CATEGORIES, recordMode: 'recordContinuously' },
    transferMode: 'ReportEvents',
  });
  if (profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  return {
    async stop(minMs = 50) {
      const prof = profile
        ? ((await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile }).profile
        : null;
      const done = new Promise<void>((ok) => cdp.once('Tracing.tracingComplete', () => ok()));
      await cdp.send('Tracing.end');
      await done;
      await cdp.detach();
      const { tasks, all } = mainTasks(events, minMs);
      if (prof) for (const t of tasks) t.top.push(...hot(prof, t.startUs, t.startUs + t.wall * 1000));
      return { tasks, all, marks: userMarks(events) };
    },
  };
}

/** The page's `performance.mark`s by name, each one's times in order on the trace's clock (µs, as MainTask.startUs). */
function userMarks(events: TraceEvent[]): Map<string, number[]> {
  const marks = new Map<string, number[]>();
  for (const e of events)
    if (e.cat.includes('blink.user_timing') && (e.ph === 'R' || e.ph === 'I'))
      marks.set(e.name, [...(marks.get(e.name) ?? []), e.ts]);
  for (const ts of marks.values()) ts.sort((a, b) => a - b);
  return marks;
}

/** The renderer main thread that ran the page's scripts (the one with the most script calls). */
function pageThread(events: TraceEvent[]): { pid: number; tid: number } | null {
  const main = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const calls = new Map<string, number>();
  for (const e of events)
    if (e.name === 'FunctionCall' && main.has(`${e.pid}:${e.tid}`))
      calls.set(`${e.pid}:${e.tid}`, (calls.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const best = [...calls].sort((a, b) => b[1] - a[1])[0];
  if (!best) return null;
  const [pid, tid] = best[0].split(':').map(Number);
  return { pid, tid };
}

function mainTasks(events: TraceEvent[], minMs: number): { tasks: MainTask[]; all: number } {
  const thread = pageThread(events);
  if (!thread) return { tasks: [], all: 0 };
  const mine = events
    .filter((e) => e.pid === thread.pid && e.tid === thread.tid && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const t0 = events.reduce((m, e) => (e.ts > 0 && e.ts < m ? e.ts : m), Infinity); // not Math.min(...): a 30 s trace has too many events for a spread
  const all = mine.filter((e) => e.name === 'ThreadControllerImpl::RunTask');
  const tasks = all
    .filter((e) => e.dur! / 1000 > minMs)
    .map((task) => {
      const end = task.ts + task.dur!;
      const inside = mine.filter(
        (e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= end && e.cat !== 'toplevel',
      );
      // Self time: each event's time less its children's (events nest; sorted by start, longest first).
      const self = new Map<string, number>();
      const stack: { e: TraceEvent; label: string }[] = [];
      const label = (e: TraceEvent) =>
        `${e.name}${e.args?.data?.functionName ? ` ${e.args.data.functionName}` : ''}${e.args?.data?.type ? ` ${e.args.data.type}` : ''}`;
      for (const e of inside) {
        while (stack.length && stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur! <= e.ts)
          stack.pop();
        const parent = stack[stack.length - 1];
        if (parent) self.set(parent.label, (self.get(parent.label) ?? 0) - e.dur!);
        const l = label(e);
        self.set(l, (self.get(l) ?? 0) + e.dur!);
        stack.push({ e, label: l });
      }
      const top = [...self]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([l, us]) => `${Math.round(us / 1000)} ${l}`);
      return {
        startUs: task.ts,
        at: Math.round((task.ts - t0) / 1000),
        wall: Math.round(task.dur! / 1000),
        cpu: Math.round((task.tdur ?? NaN) / 1000),
        top,
      };
    });
  return { tasks, all: all.length };
}
