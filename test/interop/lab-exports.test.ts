/**
 * Every export of the lab reads back as what it was (docs/interop.md#reading-the-labs-own-exports-back):
 * the page's CSV and JSON and its TensorBoard files (loose, or in one folder), through the real
 * writers and importFiles, come back as the same runs, seeds, agents and values, each seed of a
 * run in its group; and what cannot be told apart is refused with a reason, never merged.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { Prng } from '../../src/core/prng';
import { importFiles } from '../../src/interop/import';
import type { ImportedRun } from '../../src/interop/import';
import {
  metricsCsv,
  metricsJson,
  readMetricsJson,
  readRunCard,
  runCardText,
} from '../../src/interop/lab-exports';
import type { ExportedRun } from '../../src/interop/lab-exports';
import { eventFileName, readEventFile, writeEventFile } from '../../src/interop/tensorboard';
import type { StepMetrics } from '../../src/interop/tensorboard';

const te = (s: string) => new TextEncoder().encode(s);
const AGENTS = ['verifier', 'search', 'answer'];

/**
 * A page session as the exports see it: three runs × three seeds (`GRPO #0` … with seeds 42–44)
 * of 30 steps, full-precision values, eval every 10 steps (a gap otherwise), and a live change on
 * Dr. MAS.
 */
function session(): ExportedRun[] {
  const rng = new Prng(7);
  const keys = [
    'step',
    'reward/mean',
    ...AGENTS.flatMap((a) => [`agent/${a}/reward/mean`, `agent/${a}/grad_norm`]),
    'eval/avg@8',
    'time_s',
  ];
  return ['GRPO', 'Dr. MAS', 'global step-level'].flatMap((run, i) =>
    [0, 1, 2].map((s): ExportedRun => {
      const rows = Array.from({ length: 30 }, (_, step) => {
        const row: StepMetrics = { step };
        for (const k of keys.slice(1, -2)) row[k] = rng.next() * 3 - 1;
        if (step % 10 === 9) row['eval/avg@8'] = rng.int(9) / 8;
        row.time_s = step * 0.731 + rng.next();
        return row;
      });
      const markers = i === 1 ? [{ step: 12, param: 'lr' as const, value: 0.003 }] : [];
      return { label: `${run} #${s}`, seed: 42 + s, agents: AGENTS, markers, keys, rows };
    }),
  );
}

/**
 * What a read-back run must equal: label, group, seed, agents, rows (each value as `value` makes
 * it; time_s left to the caller where `value` would not hold for it).
 */
function expectSame(
  got: readonly ImportedRun[],
  want: readonly ExportedRun[],
  value = (v: number) => v,
  skip = '',
) {
  expect(got.map((r) => [r.label, r.group, r.seed])).toEqual(
    want.map((r) => [r.label, r.label.replace(/ #\d+$/, ''), r.seed]),
  );
  const rowsOf = (rows: readonly StepMetrics[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).flatMap(([k, v]) => (k === skip ? [] : [[k, k === 'step' ? v : value(v)]])),
      ),
    );
  got.forEach((run, i) => {
    expect(run.agents, run.label).toEqual(want[i].agents);
    expect(rowsOf(run.rows), run.label).toEqual(rowsOf(want[i].rows));
  });
}

describe("the lab's own exports read back as what they were", () => {
  it('Download CSV: every run and seed apart, values to the last digit', () => {
    const runs = session();
    const { runs: got, refused } = importFiles([
      { path: 'agentwise-metrics.csv/agentwise-metrics.csv', bytes: te(metricsCsv(runs)) },
    ]);
    expect(refused).toEqual([]);
    expect(got).toHaveLength(9);
    expectSame(got, runs);
    expect(got.every((r) => r.markers.length === 0)).toBe(true); // a CSV holds no markers
  });

  it('Download JSON: runs, seeds, agents, markers and values as recorded', () => {
    const runs = session();
    const json = metricsJson(DEFAULT_EXPERIMENT, '#v=1', runs);
    const { runs: got, refused } = importFiles([{ path: 'm.json/m.json', bytes: te(json) }]);
    expect(refused).toEqual([]);
    expectSame(got, runs);
    expect(got.map((r) => r.markers)).toEqual(runs.map((r) => r.markers));
  });

  it('Export TensorBoard: nine loose files, or the same nine in one folder, are nine runs in three groups', () => {
    const runs = session();
    const wall = 1.7e9;
    const files = runs.map((r) => ({
      name: `${eventFileName(wall)}.${r.label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
      bytes: writeEventFile(r.rows, wall, runCardText(r)),
    }));
    const time = (got: readonly ImportedRun[]) => got.map((r) => r.rows.map((row) => row.time_s));
    const want = runs.map((r) => r.rows.map((row) => row.time_s));
    for (const paths of [
      files.map((f) => `${f.name}/${f.name}`), // picked loose, as the page names them
      files.map((f) => `downloads/${f.name}`), // the folder they were saved in, dropped
    ]) {
      const { runs: got, refused } = importFiles(files.map((f, i) => ({ path: paths[i], bytes: f.bytes })));
      expect(refused).toEqual([]);
      // float32, as TensorBoard keeps a scalar; time_s through the events' wall times (float64 seconds since 1970).
      expectSame(got, runs, Math.fround, 'time_s');
      time(got).forEach((ts, i) => ts.forEach((t, j) => expect(t).toBeCloseTo(want[i][j], 5)));
      expect(got.map((r) => r.markers)).toEqual(runs.map((r) => r.markers));
    }
  });

  it("the CLI's export tensorboard files, picked loose under one name, stay two runs", () => {
    const [grpo, drmas] = session();
    const name = eventFileName(1.7e9); // both folders' files have this name
    const { runs: got, refused } = importFiles([
      { path: `${name}/${name}`, bytes: writeEventFile(grpo.rows, 1.7e9, runCardText(grpo)) },
      { path: `${name}/${name}`, bytes: writeEventFile(drmas.rows, 1.7e9, runCardText(drmas)) },
    ]);
    expect(refused).toEqual([]);
    expect(got.map((r) => [r.label, r.seed])).toEqual([
      ['GRPO #0', 42],
      ['GRPO #1', 43],
    ]);
  });

  it('puts the card in TensorBoard’s Text tab and reads it back; a card from a newer lab is refused', () => {
    const [run] = session();
    const scan = readEventFile(writeEventFile(run.rows, 1e9, runCardText(run)));
    expect(readRunCard(scan.card!)).toEqual({
      label: 'GRPO #0',
      seed: 42,
      agents: AGENTS,
      markers: [],
    });
    expect(scan.rows).toHaveLength(30);
    const newer = writeEventFile(run.rows, 1e9, JSON.stringify({ v: 2, label: 'x' }));
    expect(importFiles([{ path: 'a/e.tfevents', bytes: newer }]).refused).toEqual([
      {
        path: 'a/e.tfevents',
        reason: 'its run card is version 2, written by a newer lab (this one reads version 1)',
      },
    ]);
  });
});

describe('what cannot be told apart is refused, never merged', () => {
  it('two card-less event files at one path (picked without their folders) are refused, naming why', () => {
    const name = 'events.out.tfevents.1700000000.agentwise-lab';
    const ev = (r: number) => writeEventFile([{ step: 0, 'reward/mean': r }], 1.7e9);
    const { runs, refused } = importFiles([
      { path: `${name}/${name}`, bytes: ev(0.1) },
      { path: `${name}/${name}`, bytes: ev(0.2) },
      { path: 'other/events.out.tfevents.1.h', bytes: ev(0.3) },
    ]);
    expect(runs.map((r) => r.label)).toEqual(['other']);
    expect(refused).toHaveLength(2);
    expect(refused[0].reason).toBe(
      `2 files read as ${name}/${name}, with nothing in them to tell their runs apart: they would merge into one run. Give the folders that hold them instead`,
    );
  });

  it('the same run in two exports (a CSV and a JSON of one session) is read once and refused the second time', () => {
    const runs = session().slice(0, 2);
    const { runs: got, refused } = importFiles([
      { path: 'm.csv', bytes: te(metricsCsv(runs)) },
      { path: 'm.json', bytes: te(metricsJson(DEFAULT_EXPERIMENT, '#', runs)) },
    ]);
    expect(got.map((r) => r.sources)).toEqual([['m.csv'], ['m.csv']]);
    expect(refused).toEqual([
      {
        path: 'm.json',
        reason:
          'holds run "GRPO #0", as does m.csv: two exports of one run, or of two sessions? Import them one at a time',
      },
      {
        path: 'm.json',
        reason:
          'holds run "GRPO #1", as does m.csv: two exports of one run, or of two sessions? Import them one at a time',
      },
    ]);
  });

  it('a CSV with one run’s step on two lines, or two seeds under one name, gives that run up and keeps the others', () => {
    const csv = 'run,seed,step,reward/mean\nA,1,0,0.5\nA,1,0,0.6\nB,2,0,0.7\nC,3,0,0.1\nC,4,1,0.2\n';
    const { runs, refused } = importFiles([{ path: 'two.csv', bytes: te(csv) }]);
    expect(runs.map((r) => [r.label, r.seed, r.rows])).toEqual([['B', 2, [{ step: 0, 'reward/mean': 0.7 }]]]);
    expect(refused).toEqual([
      { path: 'two.csv', reason: 'run "A" not read: step 0 is on two lines (data lines 1 and 2)' },
      { path: 'two.csv', reason: 'run "C" not read: two seeds (3 and 4) under one run name' },
    ]);
  });

  it('a run folder and an export of the same label are two runs of one name: the second is refused', () => {
    const [run] = session();
    const { runs, refused } = importFiles([
      { path: 'm.csv', bytes: te(metricsCsv([run])) },
      { path: 'tb/GRPO #0/events.out.tfevents.1.h', bytes: writeEventFile(run.rows, 1e9) },
    ]);
    expect(runs.map((r) => r.sources)).toEqual([['m.csv']]);
    expect(refused[0].reason).toBe(
      'its run reads as "GRPO #0", as does the run of m.csv; import them one at a time',
    );
  });

  it('a JSON that is not the lab’s, or is damaged, is refused saying what is wrong', () => {
    const cases: [string, string][] = [
      ['{"a": 1}', 'not a metrics export of this lab (expected {"experiment", "link", "runs": [...]})'],
      ['{"runs": [', 'not JSON'],
      ['{"runs": [{"label": "A", "seed": 1.5}]}', 'run "A": its seed is not an integer'],
      [
        '{"runs": [{"label": "A", "seed": 1, "agents": [], "markers": [{"step": 1, "param": "constructor", "value": 1}], "rows": []}]}',
        'run "A": a marker is not {step, param, value} of a live parameter',
      ],
      [
        '{"runs": [{"label": "A", "seed": 1, "agents": [], "markers": [], "rows": [{"step": 0, "x": 1e999}]}]}',
        'run "A": x at step 0 is not a finite number',
      ],
      [
        '{"runs": [{"label": "A", "seed": 1, "agents": [], "markers": [], "rows": [{"step": 0}, {"step": 0}]}]}',
        'run "A": step 0 is there twice',
      ],
    ];
    for (const [text, reason] of cases) {
      const { runs, refused } = importFiles([{ path: 'x.json', bytes: te(text) }]);
      expect(runs).toEqual([]);
      expect(refused[0].reason, text).toContain(reason);
    }
    // A key named __proto__ is a plain key of its row, never the row's prototype.
    const [run] = readMetricsJson(
      '{"runs": [{"label": "A", "seed": 1, "agents": [], "markers": [], "rows": [{"step": 0, "__proto__": 2}]}]}',
    );
    expect(Object.getPrototypeOf(run.rows[0])).toBe(Object.prototype);
    expect(Object.keys(run.rows[0])).toEqual(['step', '__proto__']);
  });
});
