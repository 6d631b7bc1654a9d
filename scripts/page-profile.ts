/**
 * Where the page's CPU goes while runs train (bench:experiment): a Chromium trace of every
 * process, with V8's sampling profiler on every thread if asked, for a window of seconds. Each thread's
 * CPU time comes from its tasks' thread time (what it ran, not what it waited for a core), grouped
 * as run workers, env workers, the page's main thread, the page's other threads (raster,
 * compositor, V8's compilers and GC helpers), the GPU process and the browser process (IndexedDB's
 * writes, IPC). Within the run workers, the sampled stacks say which share went to each phase of a
 * step (rollout, update, evaluation, rewards with advantages and metrics), to saving the run's
 * state and to messages; what no phase claims by the code it ran. With samples, the page's own
 * threads too: its main thread's busy samples by function and its CPU by timeline event (script,
 * style, layout, paint), and the other renderer threads' CPU by event (V8's optimizing compilers,
 * raster, GC), each event counted with the events inside it. Function names need an unminified
 * build (`vite build --minify false`, served with LAB_DIST). With LAB_TRACE_OUT=FILE the raw trace
 * is written there too (scripts/trace-workers.ts reads it). Node only.
 */
import { writeFileSync } from 'node:fs';
import type { CDPSession, Page } from 'playwright-core';

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  id?: string;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: {
    name?: string;
    data?: {
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
  };
}
export interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber?: number };
}

/** A run worker's sampled stacks, by the innermost frame that names a category (first rule that matches). */
const WORKER_RULES: [string, (fn: string, url: string) => boolean][] = [
  [
    'saves: read, pack, hash, encode, write the state',
    (fn) =>
      /^(saveRunState|readRunState|sealRunState|stateCheck|hashWords|packRunState|encodeRunState|encodeFramed\w*|hashBytes|contentHash|checkpointOf|putState|framesStored|put|transaction|objectStore)$/.test(
        fn,
      ),
  ],
  ['messages: postMessage, env workers', (fn) => /^(postMessage|runOnce|worker\.onmessage)$/.test(fn)],
  ['evaluation', (fn) => /^(evaluate|evaluateModels)$/.test(fn)],
  ['update', (fn) => /^(ppoUpdate|shadowGradNorms)$/.test(fn)],
  ['rollout', (fn) => /^(rollout|treeRollout|mctsRollout|advance|answerCalls)$/.test(fn)],
  [
    'rewards, advantages, metrics',
    (fn) => /^(stepMetrics|sameBatchOfStep|computeAdvantages|batchCredit|filterGroups)$/.test(fn),
  ],
  ['garbage collector', (fn) => fn === '(garbage collector)'],
  ['idle', (fn) => fn === '(idle)'],
];
/** The leaf frame's kind, for samples no rule claims. */
function leafKind(fn: string, url: string): string {
  if (url.startsWith('wasm')) return /tfjs/.test(url) ? "tfjs's wasm ops" : "the lab's wasm kernels";
  if (/run\.worker/.test(url)) return "the lab's JS (rollouts, rewards, advantages, metrics)";
  if (url) return 'tfjs JS (ops, tapes, tensors)';
  return fn === '(program)' ? 'native (V8, IndexedDB put, clones)' : `native: ${fn}`;
}

export interface PageProfile {
  /** The window's wall time, ms. */
  wallMs: number;
  /** CPU ms by thread group over the window. */
  threads: Record<string, number>;
  /** Share (0–1) of the run workers' samples by category. */
  worker: Record<string, number>;
  /** With samples: share (0–1) of the page's main thread's busy samples by function (`name file`), the largest 12. */
  main: Record<string, number>;
  /** With samples: CPU ms of the page's main thread by trace event, inclusive, the largest 15. */
  mainEvents: Record<string, number>;
  /** CPU ms of the renderer's other threads by trace event, inclusive, the largest 12 (by thread without samples). */
  otherEvents: Record<string, number>;
}

/**
 * Traces the whole browser for `ms` and returns where its CPU went; `samples`: with V8's sampling
 * profiler too (the run workers' phases; it costs the page a little CPU of its own).
 */
export async function profilePage(page: Page, ms: number, samples = false): Promise<PageProfile> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => void events.push(...(e.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    traceConfig: {
      includedCategories: [
        'toplevel',
        // With samples: the events inside tasks too (layout, paint, V8's compiles and GC).
        ...(samples
          ? [
              'disabled-by-default-v8.cpu_profiler',
              'devtools.timeline',
              'v8',
              'disabled-by-default-v8.compile',
            ]
          : []),
      ],
      recordMode: 'recordContinuously',
    },
    transferMode: 'ReportEvents',
  });
  const t0 = Date.now();
  await new Promise((ok) => setTimeout(ok, ms));
  const done = new Promise<void>((ok) => cdp.once('Tracing.tracingComplete', () => ok()));
  await cdp.send('Tracing.end');
  await done;
  const wallMs = Date.now() - t0;
  await cdp.detach();
  // The raw trace, for scripts/trace-workers.ts (or chrome://tracing, Perfetto).
  if (process.env.LAB_TRACE_OUT) writeFileSync(process.env.LAB_TRACE_OUT, JSON.stringify(events));
  return { wallMs, ...summarize(events) };
}

/** Thread names by `pid:tid` and process names by pid, from the trace's metadata events. */
export function traceNames(events: TraceEvent[]): {
  thread: Map<string, string>;
  process: Map<number, string>;
} {
  const thread = new Map<string, string>();
  const process = new Map<number, string>();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') thread.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
    if (e.name === 'process_name') process.set(e.pid, e.args?.name ?? '');
  }
  return { thread, process };
}

export interface SampledProfile {
  /** `pid:tid` of the thread sampled. */
  thread: string;
  nodes: Map<number, ProfileNode>;
  /** The node of each sample, in order. */
  samples: number[];
}

/** V8's sampled profile of each thread (with `samples`): its call tree and the node of each sample. */
export function sampledProfiles(events: TraceEvent[]): SampledProfile[] {
  const profiles = new Map<string, SampledProfile>();
  for (const e of events) {
    const key = `${e.pid}:${e.id}`;
    if (e.name === 'Profile')
      profiles.set(key, { thread: `${e.pid}:${e.tid}`, nodes: new Map(), samples: [] });
    if (e.name !== 'ProfileChunk') continue;
    const p = profiles.get(key);
    const cpu = e.args?.data?.cpuProfile;
    if (!p || !cpu) continue;
    for (const n of cpu.nodes ?? []) p.nodes.set(n.id, n);
    p.samples.push(...(cpu.samples ?? []));
  }
  return [...profiles.values()];
}

/** Whether a sampled thread is a run's worker (its code on the stacks), not an environment's. */
export const isRunWorker = (p: SampledProfile): boolean =>
  [...p.nodes.values()].some((n) => /run\.worker/.test(n.callFrame.url ?? ''));

/** The trace's tasks with their CPU time, in order; `topLevel`: those not inside the one before on their thread. */
export function timedTasks(events: TraceEvent[]): { e: TraceEvent; topLevel: boolean }[] {
  const openUntil = new Map<string, number>();
  return events
    .filter((e) => e.ph === 'X' && e.dur !== undefined && e.tdur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!)
    .map((e) => {
      const key = `${e.pid}:${e.tid}`;
      if (e.ts < (openUntil.get(key) ?? -1)) return { e, topLevel: false };
      openUntil.set(key, e.ts + e.dur!);
      return { e, topLevel: true };
    });
}

export function summarize(events: TraceEvent[]): Omit<PageProfile, 'wallMs'> {
  const { thread: threadName, process: processName } = traceNames(events);
  // Samples per thread, to tell run workers (the lab's kernels on their stacks) from env workers.
  const profiles = sampledProfiles(events);
  const sampled = profiles.length > 0;
  const runWorkers = new Set<string>();
  const counts = new Map<string, number>();
  const mainCounts = new Map<string, number>();
  for (const p of profiles) {
    if (threadName.get(p.thread) === 'CrRendererMain') {
      for (const id of p.samples) {
        const f = p.nodes.get(id)?.callFrame;
        if (!f || f.functionName === '(idle)') continue;
        const key = `${f.functionName || '(anonymous)'} ${(f.url ?? '').split('/').pop()}`.trim();
        mainCounts.set(key, (mainCounts.get(key) ?? 0) + 1);
      }
      continue;
    }
    const frames = (id: number) => {
      const out: ProfileNode[] = [];
      for (let n = p.nodes.get(id); n; n = n.parent === undefined ? undefined : p.nodes.get(n.parent))
        out.push(n);
      return out;
    };
    if (!isRunWorker(p)) continue;
    runWorkers.add(p.thread);
    for (const id of p.samples) {
      const stack = frames(id); // innermost first (parents resolved below when chunks gave none)
      const rule = stack.length
        ? WORKER_RULES.find(([, test]) => stack.some((n) => test(n.callFrame.functionName, n.callFrame.url)))
        : undefined;
      const leaf = stack[0]?.callFrame;
      const kind = rule?.[0] ?? leafKind(leaf?.functionName ?? '?', leaf?.url ?? '');
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0) || 1;
  const worker = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, n / total]));
  const busy = [...mainCounts.values()].reduce((a, b) => a + b, 0) || 1;
  const main = Object.fromEntries(top(mainCounts, 12).map(([k, n]) => [k, n / busy]));

  const group = (pid: number, tid: number): string => {
    const proc = processName.get(pid) ?? '';
    const name = threadName.get(`${pid}:${tid}`) ?? '';
    if (/GPU/.test(proc)) return 'GPU process';
    if (/Browser/.test(proc)) return 'browser process (IndexedDB, IPC)';
    // Without samples a run's worker and its environments' look alike.
    if (runWorkers.size === 0 && /DedicatedWorker/.test(name)) return 'run and env workers';
    if (runWorkers.has(`${pid}:${tid}`)) return 'run workers';
    if (/DedicatedWorker/.test(name)) return 'env workers';
    if (name === 'CrRendererMain') return "page's main thread";
    return "page's other threads (raster, compositor, V8 compilers and GC)";
  };
  // Top-level tasks only: an event that starts inside the one before on its thread is nested.
  const threads: Record<string, number> = {};
  const [mainEvents, otherEvents] = [new Map<string, number>(), new Map<string, number>()];
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  for (const { e, topLevel } of timedTasks(events)) {
    const key = `${e.pid}:${e.tid}`;
    const g = group(e.pid, e.tid);
    // Every event, nested or not, by name: inclusive CPU of the page's own threads.
    if (g === "page's main thread" && sampled) add(mainEvents, e.name, e.tdur! / 1000);
    if (g.startsWith("page's other") && sampled) add(otherEvents, e.name, e.tdur! / 1000);
    if (!topLevel) continue;
    threads[g] = (threads[g] ?? 0) + e.tdur! / 1000;
    // Without samples no event is nested: name the other threads' tasks by their thread.
    if (g.startsWith("page's other") && !sampled)
      add(otherEvents, (threadName.get(key) ?? '?').replace(/\d+$/, ''), e.tdur! / 1000);
  }
  return {
    threads,
    worker,
    main,
    mainEvents: Object.fromEntries(top(mainEvents, 15)),
    otherEvents: Object.fromEntries(top(otherEvents, 12)),
  };
}

/** The `n` largest entries. */
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
