/**
 * The Map's tests' shared parts: the real CLI, a tiny real sweep (sync-own, alice's reward ×1 and
 * ×4, shared and per-agent models, GRPO vs Dr. MAS, 2 seeds, 3 steps), and tables read back into
 * cells (`lab report`'s text tables, the page's CSV downloads).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const cli = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 300_000,
  });

/** The sweep written by `lab sweep` into a new folder named `scale`; its path, or the CLI's failure. */
export function tinyScaleSweep(): { out: string; status: number | null; stderr: string } {
  const out = join(mkdtempSync(join(tmpdir(), 'agentwise-map-')), 'scale');
  const r = cli([
    'sweep',
    '--config',
    'v=1&task=sync-own&rollout.batchSize=1&rollout.groupSize=2&eval.every=2&eval.questions=2&eval.k=2&seeds=2' +
      '&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr. MAS&runs.1.estimator=drmas',
    '--grid',
    'models.assignment=shared,per-agent',
    '--grid',
    'reward.scale.alice=1,4',
    '--steps',
    '3',
    '--out',
    out,
    '--workers',
    '2',
    '--quiet',
  ]);
  return { out, status: r.status, stderr: r.stderr };
}

/** A text table's cells, cut at the columns its dashed rule marks (cells hold single spaces). */
export function textCells(table: string): string[][] {
  const [head, rule, ...rows] = table.split('\n');
  const starts = [...rule.matchAll(/-+/g)].map((m) => m.index);
  const cut = (line: string) =>
    starts.map((s, i) => line.slice(s, i + 1 < starts.length ? starts[i + 1] : undefined).trim());
  return [head, ...rows].map(cut);
}

/** RFC 4180 CSV back to cells. */
export function csvCells(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  return rows;
}
