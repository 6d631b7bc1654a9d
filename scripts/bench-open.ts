/**
 * Opening a result file in the page (docs/sharing.md#opening-speed): a train folder bundled as `lab
 * bundle` bundles it, its runs repeated as more seeds of the same experiment until the file is
 * about `--mb` MB (each run's frames are far longer than gzip's 32 KB window, so a repeated run
 * compresses no better than a new one), then opened in the built page in headless Chromium, each
 * repetition in a fresh profile, two ways:
 *
 * - `link`: `#open=<URL>` with the file on a second local origin that allows CORS, timed from the
 *   navigation (the page's own start included, as a reader of the link waits for it);
 * - `pick`: the page loaded first, then the file picked in Other tools, timed from the input's
 *   `change`.
 *
 * Each prints the time to the first chart drawn (a chart with points, after the frame that paints
 * it) and to the last (no chart drawn for 2 s after it), the banner, and the page's main-thread
 * long tasks (> 50 ms) in that time, the bench:ui way: PerformanceObserver's `longtask` entries
 * (wall time), and from a Chromium trace each task's CPU time (a task with little CPU waited for
 * a core: the machine's load, not the page's work). The load average is printed with each.
 *
 *   npm run bench:open -- [--train DIR] [--mb 2] [--reps 3] [--how link,pick] [--profile] [--timeout 900]
 *
 * Without --train it trains the default experiment for 200 steps into a temporary folder
 * (minutes). `--profile`: V8's sampler too, and what ran in each long task (names need a
 * `--minify false` build served with LAB_DIST). `--smoke`: the small result of the tests
 * (test/report/result-fixture.ts) opened once each way, nothing trained (npm test runs it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { folderResult } from '../src/cli/bundle';
import { runRepeats } from '../src/core/config';
import { readResult, writeResult } from '../src/report/result-file';
import type { ResultBody } from '../src/report/result-format';
import { resultExperiment } from '../src/report/result-make';
import { smallBody } from '../test/report/result-fixture';
import { serveStatic } from '../test/browser/static-server';
import { traceMainThread } from '../test/browser/trace';
import { median, scriptArgs, watchdog } from './cli-args';
import { openLab, serveLab } from './lab-page';

const USAGE = `Usage: npm run bench:open -- [--train DIR] [--mb 2] [--reps 3] [--how link,pick] [--profile] [--timeout 900] [--smoke]

Opens a result file of about --mb MB (a train folder bundled, its runs repeated as more seeds)
in the built page (vite build first) by #open= link and by the file picker, and prints the time
to the first and the last chart drawn and the page's long tasks meanwhile, with the load average.
Without --train it trains the default experiment for 200 steps first (minutes).`;

const values = scriptArgs(USAGE, {
  train: { type: 'string' },
  mb: { type: 'string' },
  reps: { type: 'string' },
  how: { type: 'string' },
  profile: { type: 'boolean' },
  timeout: { type: 'string' },
  smoke: { type: 'boolean' },
});
const smoke = values.smoke ?? false;
const reps = Number(values.reps ?? (smoke ? 1 : 3));
const hows = (values.how ?? 'link,pick').split(',');
for (const h of hows) if (h !== 'link' && h !== 'pick') throw new Error(`--how ${h}: link or pick`);
watchdog(Number(values.timeout ?? (smoke ? 240 : 900)), 'bench:open');
/** No chart drawn for this long after the last: every chart the page draws is drawn. */
const QUIET_MS = 2000;

const load = () => Number(loadavg()[0].toFixed(1));
const MB = (n: number) => `${(n / 2 ** 20).toFixed(2)} MB`;

/** A train folder's result with its runs repeated as `copies` × as many seeds of its experiment. */
function moreSeeds(body: ResultBody, copies: number): ResultBody {
  const exp = body.experiments[0]?.experiment;
  if (body.sweep || body.experiments.length !== 1 || !exp)
    throw new Error('--train: a train folder (lab train), not a sweep or an import');
  const wider = { ...exp, seeds: exp.seeds * copies };
  const runs = runRepeats(wider).map(({ label, seed, runIndex }) => {
    const like = exp.seed + ((seed - exp.seed) % exp.seeds);
    const from = body.runs.find((r) => r.runIndex === runIndex && r.seed === like);
    if (!from) throw new Error(`--train: no run ${runIndex} of seed ${like} recorded`);
    return { ...from, label, seed };
  });
  return { ...body, experiments: [resultExperiment(wider, null, runs)], runs };
}

/** The result file to open, its bytes, and what it holds. */
function resultBytes(): { bytes: Uint8Array; says: string } {
  let body: ResultBody;
  if (smoke) body = smallBody();
  else {
    let dir = values.train;
    if (!dir) {
      dir = join(mkdtempSync(join(tmpdir(), 'agentwise-bench-open-')), 'default');
      console.log(`npm run lab -- train --steps 200 --out ${dir}`);
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'train', '--steps', '200', '--out', dir, '--quiet'],
        { stdio: 'inherit' },
      );
      if (r.status !== 0) process.exit(r.status ?? 1);
    }
    const one = folderResult(dir);
    const target = Number(values.mb ?? 2) * 2 ** 20;
    body = moreSeeds(one, Math.max(1, Math.round(target / writeResult(one).length)));
  }
  const bytes = writeResult(body);
  readResult(bytes); // a file the page would refuse measures nothing
  const frames = body.runs.reduce((n, r) => n + r.frames.length, 0);
  const keys = Math.max(...body.runs.map((r) => r.keys.length));
  return {
    bytes,
    says: `${body.runs.length} runs, ${frames} frames of up to ${keys} keys, ${MB(bytes.length)}`,
  };
}

/** What the page's observers collect (installed before its own scripts run). */
interface Seen {
  /** Start of the opening (performance.now()): 0 for a link, the input's change for a pick. */
  t0: number;
  /** Times (performance.now()) after the frame that painted the first and the last chart with points. */
  first: number | null;
  last: number | null;
  drawn: number;
  figures: number;
  banner: number | null;
  long: { at: number; ms: number }[];
}

/** Installed at document start: long tasks, the input's change, charts with points, the banner. */
function observe(): void {
  const seen: Seen = { t0: 0, first: null, last: null, drawn: 0, figures: 0, banner: null, long: [] };
  (window as unknown as { seen: Seen }).seen = seen;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) seen.long.push({ at: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener(
    'change',
    (e) => {
      if ((e.target as HTMLInputElement).type !== 'file') return;
      seen.t0 = performance.now();
      performance.mark('bench-open start'); // on the trace's clock too
    },
    true,
  );
  // No named inner functions: tsx's helper for their names does not exist in the page.
  new MutationObserver(() => {
    const figures = document.querySelectorAll('figure[data-chart]');
    let drawn = 0;
    for (const f of figures) if (Number(f.getAttribute('data-points')) > 0) drawn++;
    seen.figures = figures.length;
    const banner = seen.banner === null && document.querySelector('[data-testid="opened-banner"]') !== null;
    const more = drawn > seen.drawn;
    seen.drawn = Math.max(seen.drawn, drawn);
    if (banner || more)
      // After the frame that paints it, as chart-pump.ts ends its `chart` measure.
      requestAnimationFrame(() =>
        setTimeout(() => {
          const t = performance.now();
          if (banner) seen.banner ??= t;
          if (more) {
            seen.first ??= t;
            seen.last = Math.max(seen.last ?? 0, t);
            performance.mark('bench-open chart');
          }
        }, 0),
      );
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-points'],
  });
}

const seenOf = (page: Page) => page.evaluate(() => (window as unknown as { seen: Seen }).seen);

async function once(
  how: 'link' | 'pick',
  urls: { page: string; link: string },
  file: string,
  profiled: boolean,
) {
  const loadBefore = load();
  let tracer: Awaited<ReturnType<typeof traceMainThread>> | undefined;
  const lab = await openLab(how === 'link' ? urls.link : urls.page, {
    trainable: how === 'pick',
    before: async (page) => {
      await page.addInitScript(observe);
      if (how === 'link') tracer = await traceMainThread({ context: page.context(), page }, profiled);
    },
  });
  const { page, errors } = lab;
  try {
    let bootMs: number | null = null;
    if (how === 'pick') {
      bootMs = Math.round(await page.evaluate(() => performance.now()));
      tracer = await traceMainThread({ context: page.context(), page }, profiled);
      await page.getByLabel('or pick files').setInputFiles(file);
    }
    // Until the first chart, then until none more is drawn for QUIET_MS.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const s = await seenOf(page);
      const now = await page.evaluate(() => performance.now());
      if (s.last !== null && now - s.last > QUIET_MS) break;
      if (Date.now() > deadline || errors.length)
        throw new Error(
          `no chart drawn within 120 s (${s.drawn} drawn)${errors.length ? `; page errors: ${errors.join(' | ')}` : ''}`,
        );
      await page.waitForTimeout(100);
    }
    const s = await seenOf(page);
    // When the worker's answer came (the page marks it), on the page's clock.
    const read = await page.evaluate(() => performance.getEntriesByName('result read')[0]?.startTime ?? null);
    const trace = await tracer!.stop(50);
    // The trace's tasks from the opening (the pick; the trace began before the navigation) to the last chart.
    const start = trace.marks.get('bench-open start')?.[0] ?? -Infinity;
    const end = trace.marks.get('bench-open chart')?.at(-1) ?? Infinity;
    const readUs = trace.marks.get('result read')?.[0] ?? null;
    const tasks = trace.tasks.filter((t) => t.startUs >= start && t.startUs <= end);
    if (profiled)
      for (const t of tasks)
        console.log(
          `[bench:open] ${how}: task at ${t.at} ms of ${t.wall} ms (${t.cpu} ms CPU): ${t.top.join(' | ')}`,
        );
    const since = (t: number | null) => (t === null ? null : Math.round(t - s.t0));
    const long = s.long.filter((l) => l.at >= s.t0 && l.at <= s.last! && l.ms > 50);
    const ms = (xs: number[]) => xs.map(Math.round);
    return {
      how,
      ...(bootMs !== null ? { 'page ready before the pick, ms': bootMs } : {}),
      'result read, ms': since(read),
      'banner, ms': since(s.banner),
      'first chart, ms': since(s.first),
      'last chart, ms': since(s.last),
      charts: `${s.drawn} of ${s.figures}`,
      'long tasks, ms': ms(long.map((l) => l.ms)),
      // Those before the answer came: the page's start (a link), or reading the file (a pick).
      'of them after the result was read, ms':
        read === null ? null : ms(long.filter((l) => l.at >= read).map((l) => l.ms)),
      'longest task, ms': Math.round(Math.max(0, ...long.map((l) => l.ms))),
      'traced over 50 ms, wall/CPU ms': tasks.map(
        (t) => `${t.wall}/${t.cpu}${readUs !== null && t.startUs < readUs ? ' (before the read)' : ''}`,
      ),
      'over 50 ms CPU': tasks.filter((t) => t.cpu > 50).length,
      'main-thread tasks traced': trace.all,
      'longest CPU, ms': Math.max(0, ...tasks.map((t) => t.cpu)),
      load: [loadBefore, load()],
      errors,
    };
  } finally {
    await lab.close();
  }
}

const { bytes, says } = resultBytes();
const dir = mkdtempSync(join(tmpdir(), 'agentwise-bench-open-'));
const file = join(dir, 'bench.lab.json.gz');
writeFileSync(file, bytes);
const host = await serveStatic(dir, 0, { 'Access-Control-Allow-Origin': '*' });
const lab = await serveLab('');
const urls = { page: lab.url, link: `${lab.url}#open=${host.origin}/bench.lab.json.gz` };
console.log(`[bench:open] ${says}; ${hows.join(' and ')} × ${reps}`);
console.log(`[bench:open] ${cpus().length} cores, load average ${load()}`);
const results: Awaited<ReturnType<typeof once>>[] = [];
try {
  for (let r = 0; r < reps; r++)
    for (const how of hows as ('link' | 'pick')[]) {
      const res = await once(how, urls, file, (values.profile ?? false) && r === 0);
      console.log(JSON.stringify(res));
      results.push(res);
    }
} finally {
  await lab.close();
  await host.close();
  rmSync(dir, { recursive: true, force: true });
}
for (const how of hows) {
  const mine = results.filter((r) => r.how === how);
  const med = (k: 'result read, ms' | 'first chart, ms' | 'last chart, ms') =>
    median(mine.map((r) => r[k] ?? NaN));
  console.log(
    `[bench:open] ${how}: result read ${med('result read, ms')} ms, first chart ${med('first chart, ms')} ms, last ${med('last chart, ms')} ms (medians of ${mine.length}); ` +
      `long tasks ${mine.map((r) => r['long tasks, ms'].length).join(', ')}, longest ${Math.max(...mine.map((r) => r['longest task, ms']))} ms; ` +
      `over 50 ms CPU ${mine.map((r) => r['over 50 ms CPU']).join(', ')}, longest CPU ${Math.max(...mine.map((r) => r['longest CPU, ms']))} ms; ` +
      `load ${Math.min(...mine.flatMap((r) => r.load))}–${Math.max(...mine.flatMap((r) => r.load))}`,
  );
}
if (smoke) {
  const bad = results.find((r) => r.errors.length > 0 || r['first chart, ms'] === null);
  if (bad) throw new Error(`bench:open smoke: ${JSON.stringify(bad)}`);
}
process.exit(0);
