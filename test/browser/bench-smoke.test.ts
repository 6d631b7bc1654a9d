/**
 * The browser benchmarks' smoke modes: `bench:ui --smoke` (the built app, Train, first steps, 2 s
 * of long-task observation), `bench:experiment --smoke` (the built app, Train, both runs to step 2, saves on and off),
 * `bench:browser --smoke` (the model workload in a Chromium worker), `bench:split --smoke` (each
 * thread-split kernel once on 1 thread and split over 2) and `bench:open --smoke` (the tests' small
 * result file opened by link and by the file picker) and `bench:put --smoke` (two small state saves
 * in each form, IndexedDB and origin-private files). They assert that each script ran to its end and measured,
 * so a script that breaks, or a wait that can no longer end (a benchmark waiting forever for a step), fails CI.
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

const run = (script: string) =>
  execFileSync('npx', ['tsx', script, '--smoke'], {
    encoding: 'utf8',
    timeout: 290_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

it('bench:ui --smoke sees both runs step and reports long tasks', () => {
  const stdout = run('scripts/bench-ui.ts');
  const report = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{'))!) as {
    steps: number[];
    longTasks: number;
    traced: { tasks: number; longTasks: number; overCpu50: number };
    errors: string[];
  };
  expect(report.steps).toHaveLength(2);
  expect(report.errors).toEqual([]);
  expect(report.longTasks).toBeGreaterThanOrEqual(0);
  // The trace was read: the page's main thread ran tasks in the 2 s, and a task's CPU is within its wall time.
  expect(report.traced.tasks).toBeGreaterThan(10);
  expect(report.traced.overCpu50).toBeLessThanOrEqual(report.traced.longTasks);
}, 300_000);

it('bench:experiment --smoke times both runs to step 2, saves on and off', () => {
  const stdout = run('scripts/bench-experiment.ts');
  const report = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{'))!) as {
    milestones: number[];
    results: { saves: string; backend: string; secondsToStep: number[][]; breakdown: { step: number }[] }[];
  };
  expect(report.milestones).toEqual([2]);
  expect(report.results.map((m) => m.saves)).toEqual(['on', 'off']);
  for (const m of report.results) {
    expect(m.backend).toBe('wasm'); // auto passes over SwiftShader's software WebGPU
    expect(m.secondsToStep).toHaveLength(2); // both runs
    for (const [s] of m.secondsToStep) expect(s).toBeGreaterThan(0);
    // The frames were read back from the page's database: both runs, a step's wall time each.
    expect(m.breakdown).toHaveLength(2);
    for (const b of m.breakdown) expect(b.step).toBeGreaterThan(0);
  }
}, 300_000);

it('bench:browser --smoke measures the workload on wasm in Chromium', () => {
  const stdout = run('scripts/bench-browser.ts');
  // columns: preset backend kernels threads params train-ms … disp/step disp/tok reads/step reads/tok GPU-MB copies/step
  const wasm = stdout
    .split('\n')
    .find((l) => /^nano\s+wasm\s/.test(l))
    ?.trim()
    .split(/\s+/);
  expect(wasm, stdout).toBeDefined();
  expect(Number(wasm![3])).toBe(1); // wasm threads (the default)
  expect(Number(wasm![4])).toBe(109888); // parameters (nano over the 89-id vocabulary)
  expect(Number(wasm![5])).toBeGreaterThan(0); // train ms
  expect(Number(wasm![12])).toBeGreaterThan(100); // kernels per train step
  expect(Number(wasm![15])).toBe(0.5); // one logits readback per decode step of 2 rows
}, 300_000);

it('bench:split --smoke times every split op on 1 thread and split over 2', () => {
  const stdout = run('scripts/bench-split.ts');
  // columns: op (two words) shape … work 1-thread-min 1-thread-median split-min split-median ratio
  const rows = stdout.split('\n').filter((l) => /^(gemm|attention|gelu) /.test(l));
  expect(
    rows.map((l) => l.slice(0, 14).trim()),
    stdout,
  ).toEqual(['gemm a·b', 'attention fwd', 'attention bwd', 'gelu fwd', 'gelu bwd']);
  for (const l of rows)
    for (const x of l.trim().split(/\s+/).slice(-5)) expect(Number(x), l).toBeGreaterThan(0);
}, 300_000);

it('bench:open --smoke opens a result by link and by the file picker and times its charts', () => {
  const stdout = run('scripts/bench-open.ts');
  const reports = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map(
      (l) =>
        JSON.parse(l) as {
          how: string;
          'result read, ms': number | null;
          'first chart, ms': number | null;
          'last chart, ms': number | null;
          charts: string;
          'main-thread tasks traced': number;
          errors: string[];
        },
    );
  expect(reports.map((r) => r.how)).toEqual(['link', 'pick']);
  for (const r of reports) {
    expect(r.errors).toEqual([]);
    // The worker's answer came, then a chart was drawn, then the last one; every chart has points.
    expect(r['result read, ms']).toBeGreaterThan(0);
    expect(r['first chart, ms']).toBeGreaterThan(r['result read, ms']!);
    expect(r['last chart, ms']).toBeGreaterThanOrEqual(r['first chart, ms']!);
    const [drawn, of] = r.charts.split(' of ').map(Number);
    expect(drawn).toBeGreaterThan(5);
    expect(drawn).toBe(of);
    // The trace was read: the page's main thread ran tasks meanwhile.
    expect(r['main-thread tasks traced']).toBeGreaterThan(10);
  }
}, 300_000);

it('bench:put --smoke saves a state in each form and measures the worker that saved it', () => {
  const stdout = run('scripts/bench-put.ts');
  const report = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{'))!) as {
    puts: number;
    rows: Record<string, { wall: number[]; cpu: Record<string, number[]> }>;
  };
  expect(Object.keys(report.rows)).toEqual(['none', 'blob', 'kept', 'flush', 'ab', 'each']);
  for (const { wall, cpu } of Object.values(report.rows)) {
    expect(wall[0]).toBeGreaterThanOrEqual(0);
    // Its threads' CPU was read: the worker that saved ran, and all threads together at least as long.
    expect(cpu['the worker'][0]).toBeGreaterThan(0);
    expect(cpu.all[0]).toBeGreaterThanOrEqual(cpu['the worker'][0]);
  }
}, 300_000);
