/**
 * Workflow benchmarks (docs/figures.md#workflows), three parts, each printing its figures:
 *
 *   npm run bench:workflow -- [--part step,pretrain,page] [--steps 20] [--rows 50000]
 *
 * - `step`: `math` as a workflow (examples/workflows/math.yaml) against `task=math`, per train step,
 *   in one process: two trainers of the default experiment's GRPO run from the shipped base models,
 *   stepped in turns (the order swapped each round, so load drifts hit both alike), and the ratio of
 *   the medians. The issue's bound: within 5 %.
 * - `pretrain`: `npm run lab -- pretrain --workflow` on a two-agent workflow over 1,000 rows (echo
 *   says the word, flip turns it round; written to a temporary folder), timed whole. Bound: 2 minutes.
 * - `page`: the built page (`vite build` first) in headless Chromium, a workflow and its 50,000-row
 *   dataset opened with "Open a workflow file…": the time from the files' `change` to the agents on
 *   screen, the reader worker's own time, and the page's long tasks meanwhile. Bound: 2 s.
 * Node only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadShippedBase } from '../src/cli/base-models';
import { ExperimentSchema } from '../src/core/config';
import { readWorkflow } from '../src/core/workflow/file';
import { RunTrainer } from '../src/train/trainer';
import { median, scriptArgs, watchdog } from './cli-args';
import { pairCsv } from './example-data';
import { openLab, serveLab } from './lab-page';

const USAGE = `npm run bench:workflow -- [--part step,pretrain,page] [--steps 20] [--rows 50000] [--timeout 1800]`;
const args = scriptArgs(USAGE, {
  part: { type: 'string', default: 'step,pretrain,page' },
  steps: { type: 'string', default: '20' },
  rows: { type: 'string', default: '50000' },
  timeout: { type: 'string', default: '1800' },
});
watchdog(Number(args.timeout), 'bench:workflow');
const parts = args.part!.split(',');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const say = (figure: object) =>
  console.log(JSON.stringify({ ...figure, load: load(), cores: cpus().length }));

/** The two-agent workflow of the pretrain and page parts, over `file`. */
const PAIR = (file: string) => `version: 1
name: pair
doc: One agent says the word, the other turns it round
agents:
  - { name: echo, maxResponse: 9, format: 'letter{1,9}' }
  - { name: flip, maxResponse: 9, format: 'letter{1,9}' }
data: { file: ${file} }
flow:
  - { agent: echo, prompt: '{word}>' }
  - { agent: flip, prompt: '{echo}<' }
rewards:
  echo: { rule: exact, expect: '{word}' }
  flip: { rule: exact, expect: '{echo|reverse}' }
team: { rule: exact, expect: '{answer}', agent: flip }
mix: 0.5
`;

async function stepPart(): Promise<void> {
  await tf.setBackend('wasm');
  const read = readWorkflow(readFileSync('examples/workflows/math.yaml', 'utf8'));
  if (!read.ok) throw new Error('math.yaml does not read');
  const shared = { eval: { every: 0 } };
  const builtin = ExperimentSchema.parse({ task: 'math', ...shared });
  const asWorkflow = ExperimentSchema.parse({ task: 'workflow', workflow: read.value, ...shared });
  const trainer = async (exp: typeof builtin) =>
    new RunTrainer({ exp, run: exp.runs[0], seed: 0, base: (await loadShippedBase(exp)).checkpoints });
  const [a, b] = [await trainer(builtin), await trainer(asWorkflow)];
  const ms: [number[], number[]] = [[], []];
  const timed = async (t: RunTrainer) => {
    const t0 = performance.now();
    await t.trainStep();
    return performance.now() - t0;
  };
  try {
    for (let warm = 0; warm < 2; warm++) {
      await timed(a);
      await timed(b);
    }
    for (let round = 0; round < Number(args.steps); round++) {
      const order = round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
      for (const k of order) ms[k].push(await timed(k === 0 ? a : b));
    }
  } finally {
    a.dispose();
    b.dispose();
  }
  const [m0, m1] = ms.map(median);
  say({
    part: 'step',
    steps: ms[0].length,
    'task=math ms/step (median)': Math.round(m0),
    'math.yaml ms/step (median)': Math.round(m1),
    'ratio workflow / built-in': Number((m1 / m0).toFixed(3)),
    'ratio of totals': Number((ms[1].reduce((x, y) => x + y) / ms[0].reduce((x, y) => x + y)).toFixed(3)),
  });
}

function pretrainPart(): void {
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-bench-wf-'));
  try {
    writeFileSync(join(dir, 'pair.csv'), pairCsv(1000));
    writeFileSync(join(dir, 'pair.yaml'), PAIR('pair.csv'));
    const out = join(dir, 'base');
    const t0 = performance.now();
    execFileSync(
      'npm',
      ['run', '--silent', 'lab', '--', 'pretrain', '--workflow', join(dir, 'pair.yaml'), '--out', out],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const seconds = (performance.now() - t0) / 1000;
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    say({
      part: 'pretrain',
      workflow: 'pair (2 agents, 1,000 rows)',
      'wall s (whole command)': Number(seconds.toFixed(1)),
      steps: manifest.steps,
      'validation success': manifest['val_avg@4'],
      own: manifest.own,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pagePart(): Promise<void> {
  const rows = Number(args.rows);
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-bench-wf-'));
  const served = await serveLab('');
  try {
    const csv = join(dir, 'pair.csv');
    writeFileSync(csv, pairCsv(rows));
    writeFileSync(join(dir, 'pair.yaml'), PAIR('pair.csv'));
    const { page, errors, close } = await openLab(served.url);
    try {
      await page.evaluate(() => {
        const w = window as unknown as { bench: { t0?: number; t1?: number; long: number[] } };
        w.bench = { long: [] };
        document.addEventListener('change', () => (w.bench.t0 = performance.now()), true);
        new PerformanceObserver((l) => l.getEntries().forEach((e) => w.bench.long.push(e.duration))).observe({
          type: 'longtask',
        });
        new MutationObserver(() => {
          if (
            w.bench.t0 !== undefined &&
            w.bench.t1 === undefined &&
            document.querySelector('[data-testid="workflow-agents"]')
          )
            w.bench.t1 = performance.now();
        }).observe(document.body, { childList: true, subtree: true });
      });
      await page.getByLabel('Open a workflow file…').setInputFiles([join(dir, 'pair.yaml'), csv]);
      await page.getByTestId('workflow-agents').waitFor({ timeout: 60_000 });
      const got = await page.evaluate(
        () => (window as unknown as { bench: { t0: number; t1: number; long: number[] } }).bench,
      );
      const data = await page.getByTestId('workflow-data').textContent();
      say({
        part: 'page',
        rows,
        bytes: readFileSync(csv).length,
        'open to agents on screen, ms': Math.round(got.t1 - got.t0),
        'page says': data,
        'long tasks (> 50 ms) meanwhile, ms': got.long.map(Math.round),
      });
      if (errors.length) console.error(`page errors: ${errors.join('; ')}`);
    } finally {
      await close();
    }
  } finally {
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const part of parts) {
  if (part === 'step') await stepPart();
  else if (part === 'pretrain') pretrainPart();
  else if (part === 'page') await pagePart();
  else throw new Error(`--part ${part}: one of step, pretrain, page`);
}
process.exit(0);
