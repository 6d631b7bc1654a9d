/**
 * The sweep a link carries, as the Map says it before and while the page trains it: its dials and
 * size, that its runs are not stored, which cell the board shows, and a way to train the
 * experiment alone. Apart from SweepMap.tsx: it is about the link's sweep, not the map drawn.
 */
import { useMemo } from 'react';
import { runRepeats } from '../../core/config';
import { dialList } from '../../core/url-sweep';
import { planLinkSweep } from '../../rl/sweep';
import { paramsText } from '../../report/sweep-map';
import { dropSweep } from '../config-edit';
import { fieldReason } from '../field-labels';
import { showCell, useLab } from '../session/store';

/**
 * The sweep the link carries, before and while the page trains it: its dials and size, that its
 * runs are not stored, the cell the board shows, and a way to train the experiment alone.
 */
export function LinkSweep() {
  const config = useLab((s) => s.config);
  const sweep = useLab((s) => s.sweep);
  const sweepCells = useLab((s) => s.sweepCells);
  const planned = useMemo(() => planLinkSweep(config, sweep), [config, sweep]);
  if (sweep.length === 0 && !sweepCells) return null;
  const cells = sweepCells?.cells ?? (planned.ok ? planned.cells : []);
  const runs = cells.reduce((n, c) => n + runRepeats(c.config).length, 0);
  const grid = sweepCells?.file.grid ?? sweep;
  return (
    <div className="link-sweep" data-testid="link-sweep">
      <p>
        This link carries a sweep: {grid.map((d) => `${d.key} = ${dialList(d.values)}`).join(' × ')} (
        {cells.length} cells, {runs} runs).{' '}
        {sweepCells
          ? 'The page trains every cell on its workers, cell after cell; the map fills in as cells finish.'
          : 'Train trains every cell here, on the page’s workers; the map fills in as cells finish.'}{' '}
        <button type="button" className="link" onClick={dropSweep}>
          Train without the sweep
        </button>
      </p>
      {!sweepCells && !planned.ok && (
        <p className="field-error" data-testid="link-sweep-refused">
          Train refuses it for this experiment: {planned.errors.map((e) => fieldReason(e, config)).join('; ')}
        </p>
      )}
      <p className="muted" data-testid="link-sweep-unstored">
        A link sweep’s runs are not stored: a reload or Reset loses them, and Past sessions does not list them
        (the link keeps the sweep, to train again). Download the map CSV or JSON, or a cell’s metrics under
        Export, to keep them.
      </p>
      {sweepCells && (
        <label>
          On the board{' '}
          <select
            value={sweepCells.shown}
            onChange={(e) => showCell(Number(e.target.value))}
            data-testid="map-cell"
          >
            {sweepCells.cells.map((c, i) => (
              <option key={c.dir} value={i}>
                {paramsText(sweepCells.file.grid, c.params)}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
