/**
 * The default experiment's wall time in the browser (docs/figures.md#default-experiment-in-the-browser-time-to-200-steps): the production build in headless
 * Chromium, the page as a user opens it (default config, `auto` backend), Train clicked, and the time
 * from the click until each run's step counter reaches each of 50, 100, … `--steps` (default 200).
 * Both runs train in their own workers on the machine's cores, as they do for a user. Prints the
 * load average before and after, since on a shared machine the figure says as much about the load.
 *
 *   npm run bench:experiment -- [--config HASH] [--steps 200] [--timeout 1800]
 *
 * `--smoke`: the tiny sync experiment to step 2, nothing written (npm test runs it). The whole run is
 * bounded by --timeout seconds (smoke 240); a run that stops stepping for --stall seconds (default
 * 120) fails with its step counters and the page's errors. Writes bench/experiment-results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { TINY } from '../test/browser/experiments';
import { arg, flag, watchdog } from './cli-args';
import { openLab, serveLab, train } from './lab-page';

const smoke = flag('smoke');
const config = arg('config', smoke ? TINY : '');
const target = Number(arg('steps', smoke ? '2' : '200'));
const stallMs = Number(arg('stall', '120')) * 1000;
watchdog(Number(arg('timeout', smoke ? '240' : '1800')), 'bench:experiment');
if (!(target >= 1)) throw new Error(`--steps must be a step count ≥ 1, got ${target}`);
const milestones = [...Array.from({ length: Math.floor((target - 1) / 50) }, (_, i) => 50 * (i + 1)), target];

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const server = await serveLab(config);
const lab = await openLab(server.url);
const loadBefore = load();
console.log(
  `[bench:experiment] ${server.url} · to step ${target} · ${cpus().length} cores, load average ${loadBefore}`,
);
/**
 * Clicks Train and waits until every run is at `target`: at[r][m] is the seconds from the click until
 * run r reached milestones[m]; backend is what `auto` resolved to (BackendPanel.tsx).
 */
async function measure(): Promise<{ at: number[][]; backend: string }> {
  const at: number[][] = [];
  let steps: number[] = [];
  await train(lab.page);
  const t0 = Date.now();
  let moved = t0;
  while (!(steps.length > 0 && steps.every((n) => n >= target))) {
    await lab.page.waitForTimeout(500);
    const now = await lab.steps();
    if (now.some((n, r) => n !== steps[r])) moved = Date.now();
    steps = now;
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
  return { at, backend: (await lab.page.getByTestId('backend-name').textContent({ timeout: 5_000 })) ?? '' };
}

let measured: Awaited<ReturnType<typeof measure>>;
try {
  measured = await measure();
} finally {
  await lab.close();
  await server.close();
}
const { at, backend } = measured;
if (lab.errors.length) throw new Error(`bench:experiment page errors: ${lab.errors.join(' | ')}`);
const result = {
  date: new Date().toISOString(),
  url: server.url,
  cores: cpus().length,
  backend,
  loadBefore,
  loadAfter: load(),
  milestones,
  secondsToStep: at,
};
console.log(JSON.stringify(result));
console.log(`backend: ${backend}`);
for (const [m, s] of milestones.entries())
  console.log(`step ${s}: ${at.map((r) => `${r[m].toFixed(0)} s`).join(' / ')}`);
if (!smoke) {
  mkdirSync('bench', { recursive: true });
  writeFileSync('bench/experiment-results.json', JSON.stringify(result, null, 2) + '\n');
}
process.exit(0);
