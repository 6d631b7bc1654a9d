/**
 * The default experiment's wall time in the browser (docs/figures.md#default-experiment-in-the-browser-time-to-200-steps): the production build in headless
 * Chromium, the page as a user opens it (default config, `auto` backend), Train clicked, and the time
 * from the click until each run's step counter reaches each of 50, 100, … `--steps` (default 200).
 * Both runs train in their own workers on the machine's cores, as they do for a user. Prints the
 * load average before and after, since on a shared machine the figure says as much about the load.
 *
 *   npm run bench:experiment -- [--config HASH] [--steps 200] [--saves on,off] [--reps 1] [--window 20] [--trace-from 20] [--profile] [--stall 120] [--timeout S] [--smoke]
 *
 * `--saves on,off` (the default) measures the experiment twice, each time in a fresh profile: as
 * a user runs it, every run's state saved after every step (`on`), and with states saved only on
 * pause and when done (`off`: the page's `?save-every=0`, src/storage/storage-fault.ts). `--reps N`
 * repeats the list, every other time reversed (on, off, off, on), so both see the same load and
 * the same drift. For each it prints the time to each
 * milestone, the seconds per step from the first milestone to the last, and from the frames the
 * page stored, each run's mean ms per step in rollout, update, evaluation and saving (perf/save_ms:
 * the run's own time reading, checking and writing its state) and the rest of its step (rewards,
 * advantages, metrics, messages, waiting for a core); then what saving costs: the seconds per step
 * with saves on against off, which also counts what saving costs outside the run's thread.
 *
 * Each measurement traces the whole browser for `--window` seconds (default 20) from step 20 (`--trace-from`) on and
 * prints its CPU per run step by thread group (scripts/page-profile.ts): on a shared machine CPU
 * time says what saving costs where wall time says mostly what the other jobs took. `--profile`:
 * in the first `on` measurement V8's sampling profiler runs too, and the run workers' time is
 * printed by phase (serve a `vite build --minify false` build with LAB_DIST for their names).
 *
 * `--smoke`: the tiny sync experiment to step 2, nothing written (npm test runs it). The
 * whole run is bounded by --timeout seconds (default 1800 per measurement, 3600 for the default
 * on,off; smoke 240); a run that stops stepping for --stall
 * seconds (default 120) fails with its step counters and the page's errors. Writes
 * bench/experiment-results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { TINY } from '../test/browser/experiments';
import { scriptArgs, watchdog } from './cli-args';
import { openLab, serveLab, train } from './lab-page';
import { profilePage, type PageProfile } from './page-profile';
import { chromeThreads, cpuBetween, type ThreadCpu } from './proc-cpu';

const USAGE = `npm run bench:experiment -- [--config HASH] [--steps 200] [--saves on,off] [--reps 1] [--window 20] [--trace-from 20] [--profile] [--stall 120] [--timeout S] [--smoke]

The default experiment in the page (headless Chromium), Train clicked: seconds to steps 50, 100, …
--steps, each run's ms per step by phase (rollout, update, evaluation, saving), the browser's CPU per
run step by thread, and what saving every step costs (--saves on against off; --reps repeats them,
every other time reversed). Writes bench/experiment-results.json. docs/figures.md has the readings.`;
const a = scriptArgs(USAGE, {
  config: { type: 'string' },
  steps: { type: 'string' },
  saves: { type: 'string', default: 'on,off' },
  reps: { type: 'string', default: '1' },
  window: { type: 'string' },
  'trace-from': { type: 'string', default: '20' },
  profile: { type: 'boolean', default: false },
  stall: { type: 'string', default: '120' },
  timeout: { type: 'string' },
  smoke: { type: 'boolean', default: false },
});
const smoke = a.smoke;
const config = a.config ?? (smoke ? TINY : '');
const target = Number(a.steps ?? (smoke ? '2' : '200'));
const stallMs = Number(a.stall) * 1000;
const modes = a.saves.split(',');
const reps = Number(a.reps);
const profile = a.profile;
const windowS = Number(a.window ?? (smoke ? '1' : '20'));
watchdog(Number(a.timeout ?? (smoke ? '240' : String(1800 * modes.length * reps))), 'bench:experiment');
if (!(target >= 1)) throw new Error(`--steps must be a step count ≥ 1, got ${target}`);
if (modes.some((m) => m !== 'on' && m !== 'off'))
  throw new Error(`--saves takes on, off or on,off; got ${modes}`);
if (!(Number.isInteger(reps) && reps >= 1)) throw new Error(`--reps must be a whole number ≥ 1, got ${reps}`);
if (!(windowS > 0)) throw new Error(`--window must be a number of seconds > 0, got ${windowS}`);
const milestones = [...Array.from({ length: Math.floor((target - 1) / 50) }, (_, i) => 50 * (i + 1)), target];

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** Each run's mean ms per step in each phase, from the frames the page stored (steps `from` on). */
interface Breakdown {
  label: string;
  steps: number;
  rollout: number;
  update: number;
  evaluation: number;
  /** perf/save_ms: the run's own time saving (read, check, write); absent in builds before it. */
  saving: number;
  /** Wall ms from one step's metrics to the next's (time_s), all of it. */
  step: number;
}

/** The first step the breakdown reads: the first steps compile and warm up. */
const from = target >= 20 ? 10 : 0;

/** The stored session's frames, read back from the page: each run's phase means over its steps from `from` on. */
async function breakdown(page: Page): Promise<Breakdown[]> {
  type Run = { id: string; label: string; keys: string[] };
  type Frame = { run: string; step: number; values: number[] };
  // No named functions in here: tsx's __name helper does not exist in the page.
  const { sessions, frames } = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, ko) => {
      const r = indexedDB.open('agentwise-lab');
      r.onsuccess = () => ok(r.result);
      r.onerror = () => ko(r.error);
    });
    const tx = db.transaction(['sessions', 'frames']);
    const [sessions, frames] = await Promise.all(
      ['sessions', 'frames'].map(
        (store) =>
          new Promise<unknown[]>((ok) => {
            const r = tx.objectStore(store).getAll();
            r.onsuccess = () => ok(r.result as unknown[]);
          }),
      ),
    );
    db.close();
    return {
      sessions: sessions as { runs: Run[] }[],
      frames: (frames as { run: string; step: number; values: Float64Array }[]).map((f) => ({
        run: f.run,
        step: f.step,
        values: Array.from(f.values),
      })),
    };
  });
  return sessions.flatMap((s) =>
    s.runs.map((run) => {
      const at = (k: string) => run.keys.indexOf(k);
      const mine = frames
        .filter((f: Frame) => f.run === run.id && f.step >= from)
        .sort((a: Frame, b: Frame) => a.step - b.step);
      const mean = (k: string) =>
        mine.reduce((a: number, f: Frame) => a + (f.values[at(k)] || 0), 0) / mine.length;
      const t = (f: Frame) => f.values[at('time_s')];
      const span = mine.length > 1 ? (t(mine[mine.length - 1]) - t(mine[0])) / (mine.length - 1) : NaN;
      return {
        label: run.label,
        steps: mine.length,
        rollout: mean('perf/rollout_ms'),
        update: mean('perf/update_ms'),
        evaluation: mean('perf/eval_ms'),
        saving: at('perf/save_ms') >= 0 ? mean('perf/save_ms') : NaN,
        step: span * 1000,
      };
    }),
  );
}

interface Measured {
  saves: string;
  loadBefore: string;
  loadAfter: string;
  backend: string;
  /** at[r][m]: seconds from the click until run r reached milestones[m]. */
  secondsToStep: number[][];
  /** Seconds from the click until every run's counter showed step 1 (its first frame charted). */
  secondsToFirstStep: number;
  /** Seconds per step between the first and the last milestone, the slowest run's. */
  secondsPerStep: number;
  breakdown: Breakdown[];
  /**
   * Where the browser's CPU went in the traced window, and how many run steps it held; `proc`: the
   * same window's CPU ms by Linux's schedstat (scripts/proc-cpu.ts), by group.
   */
  cpu: PageProfile & { steps: number; proc?: Record<string, number> };
}

/** The groups of a schedstat reading: the page's workers (run and env), its other threads, each other process. */
const procGroup = (t: ThreadCpu): string =>
  t.browser
    ? 'browser process'
    : t.type === 'renderer'
      ? t.name === 'DedicatedWorker'
        ? 'run and env workers'
        : t.name === 'chromium'
          ? "renderers' main threads (the page's)"
          : "renderers' other threads"
      : `${t.type} process`;

/** The traced window starts once every run has done this many steps (`--trace-from`, default 20). */
const traceFrom = Math.min(Number(a['trace-from']), Math.floor(target / 2));

/**
 * Opens the page (saves on or off), clicks Train and waits until every run is at `target`; traces
 * the browser's CPU for --window seconds from step `traceFrom` on (`samples`: V8's profiler too).
 */
async function measure(saves: string, samples: boolean): Promise<Measured> {
  const server = await serveLab(config);
  const url = saves === 'off' ? server.url.replace(/\/(#|$)/, '/?save-every=0$1') : server.url;
  const lab = await openLab(url);
  try {
    const loadBefore = load();
    console.log(
      `[bench:experiment] ${url} · saves ${saves} · to step ${target} · load average ${loadBefore}`,
    );
    const at: number[][] = [];
    let steps: number[] = [];
    let cpu: Measured['cpu'] | undefined;
    let tracing: Promise<void> | undefined;
    let firstStep: number | undefined;
    await train(lab.page);
    const t0 = Date.now();
    let moved = t0;
    while (!(steps.length > 0 && steps.every((n) => n >= target))) {
      // Finely until every run has its first step (how soon a click shows a step), then twice a second.
      await lab.page.waitForTimeout(steps.length > 0 && steps.every((n) => n >= 1) ? 500 : 50);
      const now = await lab.steps();
      if (now.some((n, r) => n !== steps[r])) moved = Date.now();
      steps = now;
      if (!tracing && steps.length > 0 && Math.min(...steps) >= traceFrom && Math.max(...steps) < target) {
        // Traced beside the polling, so a milestone reached meanwhile keeps its own time.
        const before = steps.reduce((a, b) => a + b, 0);
        const threads = chromeThreads(lab.dir);
        tracing = profilePage(lab.page, windowS * 1000, samples).then(async (p) => {
          const proc = cpuBetween(threads, chromeThreads(lab.dir), procGroup);
          const after = (await lab.steps()).reduce((a, b) => a + b, 0);
          cpu = { ...p, steps: after - before, proc };
        });
      }
      if (firstStep === undefined && steps.length > 0 && steps.every((n) => n >= 1))
        firstStep = (Date.now() - t0) / 1000;
      for (const [r, n] of steps.entries())
        for (const [m, s] of milestones.entries())
          if (n >= s && (at[r] ??= [])[m] === undefined) {
            at[r][m] = (Date.now() - t0) / 1000;
            console.log(
              `[bench:experiment] run ${r + 1} at step ${s} after ${at[r][m].toFixed(0)} s, load average ${load()}`,
            );
          }
      if (Date.now() - moved > stallMs) {
        throw new Error(
          `no run stepped for ${stallMs / 1000} s: step counters ${steps.length ? steps.join(', ') : 'not found'}${lab.errors.length ? `; page errors: ${lab.errors.join(' | ')}` : ''}`,
        );
      }
    }
    await tracing; // a window that outlasts the runs ends before the page closes
    if (lab.errors.length) throw new Error(`bench:experiment page errors: ${lab.errors.join(' | ')}`);
    await lab.page.waitForTimeout(1500); // the recorder writes its queue at least once a second
    const first = milestones.length > 1 ? 0 : -1;
    const secondsPerStep =
      first < 0
        ? NaN
        : Math.max(...at.map((r) => (r[milestones.length - 1] - r[first]) / (target - milestones[first])));
    return {
      saves,
      loadBefore,
      loadAfter: load(),
      backend: (await lab.page.getByTestId('backend-name').textContent({ timeout: 5_000 })) ?? '',
      secondsToStep: at,
      secondsToFirstStep: firstStep ?? NaN,
      secondsPerStep,
      breakdown: await breakdown(lab.page),
      cpu: cpu ?? { wallMs: 0, steps: 0, threads: {}, worker: {}, main: {}, mainEvents: {}, otherEvents: {} },
    };
  } finally {
    await lab.close();
    await server.close();
  }
}

console.log(`[bench:experiment] ${cpus().length} cores · saves ${modes.join(', ')} × ${reps}`);
const results: Measured[] = [];
// Every other repeat in reverse (on, off, off, on, …): a machine whose speed drifts through the
// measurements, as this shared one does by 10–15 %, then weighs on both alike.
for (let r = 0; r < reps; r++)
  for (const saves of r % 2 ? [...modes].reverse() : modes)
    results.push(await measure(saves, profile && results.length === 0 && saves === 'on'));

const f0 = (x: number) => x.toFixed(0);
/** The browser's CPU (every process and thread) per run step in the traced window, ms. */
const cpuPerStep = (m: Measured) => Object.values(m.cpu.threads).reduce((a, b) => a + b, 0) / m.cpu.steps;
/** The same by schedstat. */
const procPerStep = (m: Measured) => Object.values(m.cpu.proc ?? {}).reduce((a, b) => a + b, 0) / m.cpu.steps;
for (const m of results) {
  console.log(`\nsaves ${m.saves} · backend ${m.backend} · load average ${m.loadBefore} → ${m.loadAfter}`);
  console.log(`  step 1 (every run): ${m.secondsToFirstStep.toFixed(1)} s after the click`);
  for (const [i, s] of milestones.entries())
    console.log(`  step ${s}: ${m.secondsToStep.map((r) => `${r[i].toFixed(0)} s`).join(' / ')}`);
  if (!Number.isNaN(m.secondsPerStep))
    console.log(
      `  ${(m.secondsPerStep * 1000).toFixed(0)} ms per step from step ${milestones[0]} on (slowest run)`,
    );
  for (const b of m.breakdown) {
    const saving = Number.isNaN(b.saving) ? 0 : b.saving;
    const rest = b.step - b.rollout - b.update - b.evaluation - saving;
    console.log(
      `  ${b.label}: ${f0(b.step)} ms per step = rollout ${f0(b.rollout)} + update ${f0(b.update)} + evaluation ${f0(b.evaluation)}${Number.isNaN(b.saving) ? '' : ` + saving ${b.saving.toFixed(1)} (${((100 * b.saving) / b.step).toFixed(1)} %)`} + the rest ${f0(rest)} (means over ${b.steps} steps from ${from})`,
    );
  }
  const { wallMs, steps, threads, worker } = m.cpu;
  if (steps > 0) {
    console.log(
      `  traced ${(wallMs / 1000).toFixed(1)} s from step ${traceFrom}, ${steps} run steps: ${f0(cpuPerStep(m))} ms of CPU per run step, by thread:`,
    );
    for (const [g, ms] of Object.entries(threads).sort((a, b) => b[1] - a[1]))
      console.log(`    ${f0(ms / steps).padStart(6)}  ${g}`);
  }
  const { proc } = m.cpu;
  if (proc && steps > 0) {
    console.log(
      `  the same window by Linux's schedstat: ${f0(procPerStep(m))} ms of CPU per run step, by thread:`,
    );
    for (const [g, ms] of Object.entries(proc).sort((a, b) => b[1] - a[1]))
      console.log(`    ${f0(ms / steps).padStart(6)}  ${g}`);
  }
  if (Object.keys(worker).length) console.log('  run workers, share of their samples:');
  for (const [k, share] of Object.entries(worker))
    console.log(`    ${(100 * share).toFixed(1).padStart(5)} %  ${k}`);
  const { main, mainEvents, otherEvents } = m.cpu;
  if (Object.keys(main).length)
    console.log("  the page's main thread, share of its busy samples by function:");
  for (const [k, share] of Object.entries(main))
    console.log(`    ${(100 * share).toFixed(1).padStart(5)} %  ${k}`);
  const byEvent = (title: string, r: Record<string, number>) => {
    if (Object.keys(r).length)
      console.log(`  ${title}, CPU ms per run step (an event includes those inside it):`);
    for (const [k, ms] of Object.entries(r)) console.log(`    ${(ms / steps).toFixed(1).padStart(6)}  ${k}`);
  };
  byEvent("the page's main thread by event", mainEvents);
  byEvent("the page's other threads by event", otherEvents);
}
const perStep = (saves: string) => results.filter((m) => m.saves === saves).map((m) => m.secondsPerStep);
if (modes.includes('on') && modes.includes('off')) {
  const [on, off] = [perStep('on'), perStep('off')];
  const pct = (x: number, base: number) => `${((100 * (x - base)) / x).toFixed(1)} %`;
  const cpu = (saves: string, per = cpuPerStep) => results.filter((m) => m.saves === saves).map(per);
  const vs = (a: number[], b: number[], unit = 1) =>
    a.map((x, i) => `${f0(x * unit)} / ${f0(b[i] * unit)} ms (${pct(x, b[i])})`).join(', ');
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  /** All of `on` against all of `off`: with the reversed repeats, what drift cancels out of. */
  const pooled = (a: number[], b: number[]) => pct(sum(a), sum(b));
  console.log(
    `\nsaving costs, per step, saves on against off: CPU ${vs(cpu('on'), cpu('off'))} (schedstat: ${vs(cpu('on', procPerStep), cpu('off', procPerStep))}); wall ${vs(on, off, 1000)}`,
  );
  if (reps > 1)
    console.log(
      `  over all ${reps} repeats: CPU ${pooled(cpu('on'), cpu('off'))} (schedstat ${pooled(cpu('on', procPerStep), cpu('off', procPerStep))}); wall ${pooled(on, off)}`,
    );
}
const summary = { date: new Date().toISOString(), cores: cpus().length, target, milestones, results };
console.log(JSON.stringify(summary));
if (!smoke) {
  mkdirSync('bench', { recursive: true });
  writeFileSync('bench/experiment-results.json', JSON.stringify(summary, null, 2) + '\n');
}
process.exit(0);
