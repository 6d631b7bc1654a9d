// The Map's CSV equals `lab report`'s table for the same sweep: a real small sweep (sync-own,
// one agent's reward scaled, shared and per-agent models, GRPO vs Dr. MAS, 2 seeds, 3 steps)
// written by the real CLI, reported by the real CLI, and opened by the page's own reader from
// the folder's files as the Map's folder picker hands them over.
import { beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { mapCharts } from '../../src/report/sweep-map';
import { mapCsv, openSweep } from '../../src/ui/sweep-open';
import type { PickedFile } from '../../src/ui/sweep-open';
import { cli as lab, csvCells, textCells, tinyScaleSweep } from './map-sweep';

/** Every file under `dir` as the folder picker gives it: its path inside the picked folder, its text. */
function picked(dir: string): PickedFile[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  return walk(dir).map((f) => ({
    path: `${basename(dir)}/${relative(dir, f)}`,
    text: async () => readFileSync(f, 'utf8'),
  }));
}

describe('the Map in the page and lab report on a sweep', () => {
  let out = '';
  beforeAll(() => {
    const r = tinyScaleSweep();
    expect(r.status, r.stderr).toBe(0);
    out = r.out;
  }, 600_000);

  it("the Map's CSV equals lab report's table, cell for cell", async () => {
    const r = lab(['report', out, '--tail', '2']);
    expect(r.status, r.stderr).toBe(0);
    const [title, ...table] = r.stdout.trimEnd().split('\n');
    expect(title).toContain('sweep of 4 cells × 2 runs × 2 seeds, 3 steps');
    const report = textCells(table.join('\n'));
    const opened = await openSweep(picked(out), 2);
    expect(opened.name).toBe('scale');
    expect(opened.warnings).toEqual([]);
    const csv = csvCells(mapCsv(opened));
    expect(csv).toEqual(report);
    // What the table holds: a row per figure and cell, the scaled agent's own success among them.
    expect(report[0]).toEqual([
      'figure',
      'models.assignment',
      'reward.scale.alice',
      'steps',
      'seeds',
      'Dr. MAS − GRPO',
      'verdict',
    ]);
    const figures = [...new Set(report.slice(1).map((row) => row[0]))];
    expect(figures).toEqual(
      expect.arrayContaining([
        'eval avg@2',
        'reward (last 2)',
        'alice own success (last 2)',
        'bob own success (last 2)',
        'bob spike frac',
      ]),
    );
    expect(report.length - 1).toBe(figures.length * 4);
    for (const row of report.slice(1)) {
      expect(row.slice(3, 5)).toEqual(['3', '2']);
      expect(row[5]).toMatch(/^-?\d+\.\d{3} ± \d+\.\d{3}$/);
      expect(['identical', 'same', 'higher', 'lower']).toContain(row[6]);
    }
    // The charts draw the same numbers: scale along x, shared and per-agent side by side.
    const charts = mapCharts(opened.file.grid, opened.cells, 'reward.scale.alice');
    const own = charts.filter((c) => c.figure === 'alice own success (last 2)');
    expect(own.map((c) => c.facet)).toEqual(['models.assignment = shared', 'models.assignment = per-agent']);
    const rows = report.filter((row) => row[0] === 'alice own success (last 2)');
    expect(own.flatMap((c) => c.lines[0].points.map((p) => `${p.mean.toFixed(3)} ${p.verdict}`))).toEqual(
      rows.map((row) => `${row[5].split(' ± ')[0].replace(/^-(0\.000)$/, '$1')} ${row[6]}`),
    );
  }, 300_000);
});
