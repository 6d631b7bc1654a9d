/**
 * A sweep carried by a link and trained by the page (docs/sweeps.md#a-sweep-in-a-link), read as
 * the Map reads a sweep folder: the sweep.json `lab sweep` would write for it, and each cell's
 * summaries made by the same code as `lab report`'s (cellSummaries) from its runs' recorded frames,
 * so the Map's table, charts and CSV are the ones `lab report` prints for those metrics. No React.
 */
import { cellSummaries, paramsText } from '../report/sweep-map';
import { summaryKeys } from '../report/summary';
import { historyOf } from './run-data';
import type { LabState } from './session/store';
import { agentsOf } from './sweep-open';
import type { OpenedSweep } from './sweep-open';

/** How the Map's status line names a sweep trained by the page (a folder is named by its path). */
const LINK_SWEEP_NAME = 'this link’s sweep';

/**
 * The link sweep on screen as an opened sweep, or null without one. A cell enters the map once
 * every run of it is done (a cell still training or waiting shows `—`, as a cell `lab sweep` has
 * not started does); a failed run keeps its cell out, and the warnings say which and why.
 */
export function linkSweepMap(s: LabState, tail: number): OpenedSweep | null {
  const on = s.sweepCells;
  if (!on) return null;
  const warnings: string[] = [];
  const cells = on.cells.map((cell, i) => {
    const runs = s.runs.filter((r) => r.cell === i);
    for (const r of runs.filter((x) => x.state === 'failed'))
      warnings.push(
        `${paramsText(on.file.grid, cell.params)}: ${r.label} failed${r.error ? ` (${r.error})` : ''}; this cell stays out of the map`,
      );
    if (runs.length === 0 || runs.some((r) => r.state !== 'done'))
      return { params: cell.params, summaries: [] };
    const agents = agentsOf(cell.config);
    const keys = summaryKeys(agents, cell.config.eval.k);
    // The rows `lab report` reads from the cell's metrics.jsonl: each run's steps, under its label.
    const rows = runs.flatMap((r) => historyOf(r.id, keys).map((metrics) => ({ run: r.label, metrics })));
    return { params: cell.params, summaries: cellSummaries(cell.config, agents, rows, tail) };
  });
  return { file: on.file, cells, name: LINK_SWEEP_NAME, warnings };
}
