/**
 * UI responsiveness benchmark (docs/figures.md#the-page-while-two-runs-train): the built app in headless Chromium, Train clicked, and
 * for `--seconds` (after both runs took their first steps) every long task (> 50 ms) of the page's
 * main thread, with the Long Animation Frames API's attribution of each (which script, invoked by
 * what), the chart refreshes and the steps taken. The runs train in their workers on the same
 * cores, as they do for a user.
 *
 *   npm run bench:ui -- [--config HASH] [--seconds 30] [--reps 3] [--layout side] [--hover] [--threads N] [--profile] [--timeout 600]
 *
 * `--smoke`: the tiny sync experiment for 2 s, once, nothing written (npm test runs it). Every wait
 * is bounded: the first steps within --first-step seconds (default 180), the whole run within
 * --timeout (default 600 × reps; smoke 240); each fails with a message.
 * `--config` is an experiment link's hash (default: the default experiment); `--hover` moves the
 * pointer across the Reward chart all along (the synced hover redraws every chart's cursor).
 * Each repetition also traces the page (devtools.timeline) and reports, for every main-thread task
 * over 50 ms, its wall time and the main thread's CPU time within it (`cpuMs`): a task whose CPU
 * time is short was descheduled (the runs' workers hold the cores), not busy.
 * `--threads N` picks N wasm threads per run in the backend panel before Train (default: auto).
 * `--profile`: V8's sampling profiler runs too in the first repetition, and each long task is
 * printed with what ran in it (trace events and the app's functions by self and inclusive time;
 * build with `--minify false` and serve it with LAB_DIST to read the names).
 * Prints one JSON line per repetition and writes bench/ui-results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { TINY } from '../test/browser/experiments';
import { arg, flag, watchdog } from './cli-args';
import { openLab, serveLab, train } from './lab-page';
import { traceMainThread } from '../test/browser/trace';

const smoke = flag('smoke');
const config = arg('config', smoke ? TINY : '');
const seconds = Number(arg('seconds', smoke ? '2' : '30'));
const reps = Number(arg('reps', smoke ? '1' : '3'));
const firstStepMs = Number(arg('first-step', '180')) * 1000;
watchdog(Number(arg('timeout', String(smoke ? 240 : 600 * reps))), 'bench:ui');
const side = arg('layout', 'overlaid') === 'side';
const hover = flag('hover');
const profile = flag('profile');
const threads = arg('threads', 'auto');

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]) : 0;
};
/** The median and the largest of some durations, as each figure of a repetition gives them. */
const spread = (xs: number[]) => ({ median: quantile(xs, 0.5), max: quantile(xs, 1) });

interface Observed {
  /** Entries that started before this (performance.now()) are warm-up, delivered late. */
  since: number;
  longTasks: number[];
  frames: { ms: number; scripts: string[] }[];
}

async function once(url: string, profiled = false) {
  const { page, errors, steps, close } = await openLab(url);
  try {
    await page.evaluate(() => {
      const w = window as unknown as { observed: Observed };
      w.observed = { since: Infinity, longTasks: [], frames: [] };
      new PerformanceObserver((list) => {
        for (const e of list.getEntries())
          if (e.startTime >= w.observed.since) w.observed.longTasks.push(e.duration);
      }).observe({ type: 'longtask' });
      // Long Animation Frames: which scripts made each long frame (Chrome 123+).
      type Script = { duration: number; invoker: string; sourceFunctionName: string };
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as (PerformanceEntry & { scripts: Script[] })[])
          if (e.startTime >= w.observed.since)
            w.observed.frames.push({
              ms: Math.round(e.duration),
              scripts: e.scripts
                .filter((s) => s.duration >= 5)
                .map((s) => `${Math.round(s.duration)} ms ${s.invoker} ${s.sourceFunctionName || ''}`.trim()),
            });
      }).observe({ type: 'long-animation-frame' });
    });
    if (threads !== 'auto') await page.getByLabel('wasm threads per run').selectOption(threads);
    await train(page);
    if (side) await page.getByRole('radio', { name: 'Side by side' }).check();
    const t1 = Date.now();
    for (let s = await steps(); !(s.length > 0 && s.every((n) => n >= 1)); s = await steps()) {
      if (Date.now() - t1 > firstStepMs) {
        throw new Error(
          `no first step of every run within ${firstStepMs / 1000} s: step counters ${s.length ? s.join(', ') : 'not found'}${errors.length ? `; page errors: ${errors.join(' | ')}` : ''}`,
        );
      }
      await page.waitForTimeout(250);
    }
    // Warm-up (first steps, first chart mounts) excluded.
    await page.evaluate(() => {
      const w = window as unknown as { observed: Observed };
      w.observed.since = performance.now();
      performance.clearMeasures('chart');
    });
    const tracer = await traceMainThread({ context: page.context(), page }, profiled);
    const before = await steps();
    const t0 = Date.now();
    if (hover) {
      const box = await page.locator('figure[aria-label="Reward"] .series-layer > rect').boundingBox();
      for (let i = 0; Date.now() - t0 < seconds * 1000; i++) {
        if (box) await page.mouse.move(box.x + box.width * ((i % 40) / 40), box.y + box.height / 2);
        await page.waitForTimeout(30);
      }
    } else await page.waitForTimeout(seconds * 1000);
    const after = await steps();
    const { tasks, all } = await tracer.stop(50);
    if (profiled)
      for (const t of tasks)
        console.log(`[bench:ui] task of ${t.wall} ms (${t.cpu} ms CPU): ${t.top.join(' | ')}`);
    const { observed, charts } = await page.evaluate(() => ({
      observed: (window as unknown as { observed: Observed }).observed,
      charts: performance.getEntriesByName('chart').map((e) => e.duration),
    }));
    const long = observed.frames.filter((f) => f.ms > 50);
    return {
      seconds,
      steps: after.map((n, i) => n - before[i]),
      longTasks: observed.longTasks.length,
      longTaskMs: {
        total: Math.round(observed.longTasks.reduce((a, b) => a + b, 0)),
        ...spread(observed.longTasks),
      },
      traced: {
        tasks: all,
        longTasks: tasks.length,
        wallMs: spread(tasks.map((t) => t.wall)),
        cpuMs: spread(tasks.map((t) => t.cpu)),
        /** Tasks whose main-thread CPU time alone is over 50 ms: the page's own work, whatever the load. */
        overCpu50: tasks.filter((t) => t.cpu > 50).length,
      },
      chartRefreshes: charts.length,
      chartRefreshMs: { median: quantile(charts, 0.5), p90: quantile(charts, 0.9) },
      longFrames: long.slice(0, 8),
      errors,
    };
  } finally {
    await close();
  }
}

const server = await serveLab(config);
const url = server.url;
console.log(
  `[bench:ui] ${url} · ${seconds} s × ${reps}${side ? ' · side by side' : ''}${hover ? ' · hovering' : ''} · ${threads} wasm threads per run`,
);
console.log(`[bench:ui] ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)}`);
const results = [];
for (let r = 0; r < reps; r++) {
  const res = await once(url, profile && r === 0);
  console.log(JSON.stringify(res));
  results.push(res);
}
await server.close();
if (smoke) {
  const bad = results.find((r) => r.errors.length > 0 || !r.steps.every((n) => n >= 0));
  if (bad) throw new Error(`bench:ui smoke: ${JSON.stringify(bad)}`);
  process.exit(0);
}
mkdirSync('bench', { recursive: true });
writeFileSync(
  'bench/ui-results.json',
  JSON.stringify(
    { date: new Date().toISOString(), url, cores: cpus().length, side, hover, results },
    null,
    2,
  ),
);
