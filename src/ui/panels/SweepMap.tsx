/**
 * The Map: a sweep drawn as the effect against a dial, either a CLI sweep folder (`lab sweep` /
 * `lab merge` output) opened in the page, or the sweep the page's link carries, trained by the page
 * (link-sweep-cells.ts). For each figure (held-out success, training reward, each agent's own success,
 * gradient norms, spike fraction), each run's paired difference from the baseline run (the first,
 * or the one picked under Baseline) with its 95 % CI, one line per pair (or, picked under Lines, one
 * per value of another dial: N along x, a line per mix), the dial's values along
 * x, and one chart per value of the other dials side by side (shared and per-agent models). The
 * numbers and the CSV are `lab report`'s for the folder with the first run as baseline
 * (src/report/sweep-map.ts); a filled point is a CI that excludes 0. One chart is MapFigure.tsx; what
 * the Map says of a link's sweep is LinkSweep.tsx.
 */
import { useMemo, useState } from 'react';
import type { SweepFile } from '../../rl/sweep';
import { defaultMapX, MAP_LINES_BY_RUN, mapCharts } from '../../report/sweep-map';
import { REWARD_TAIL } from '../../report/summary';
import { download, fileName } from '../export';
import { linkSweepMap } from '../link-sweep-cells';
import { runColor, useLab } from '../session/store';
import type { LabState } from '../session/store';
import { useThrottledLab } from '../throttled';
import { mapCsv, mapJson, openSweep } from '../sweep-open';
import type { OpenedSweep } from '../sweep-open';
import { LinkSweep } from './LinkSweep';
import { MapFigure, rowAxis } from './MapFigure';
import { FOLDER } from './OtherTools';

const ALL = '';

/** A line per value of a dial, light to dark in the dial's order (mix 0 light, mix 1 dark). */
const rampColor = (k: number, n: number) =>
  `hsl(215, 65%, ${Math.round(72 - (50 * k) / Math.max(1, n - 1))}%)`;

/** What the link sweep's cells read: which runs are done (a cell enters the map once all of its are). */
const cellsKey = (s: LabState) => (s.sweepCells ? s.runs.map((r) => `${r.id}:${r.state}`).join(',') : '');

export function SweepMap() {
  // A folder opened, and the link sweep on screen then: a link sweep trained after it takes its place.
  const [folder, setFolder] = useState<{ sweep: OpenedSweep; over: SweepFile | undefined } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [x, setX] = useState('');
  const [figure, setFigure] = useState(ALL);
  const [base, setBase] = useState('');
  const [lines, setLines] = useState(MAP_LINES_BY_RUN);
  // The link sweep trained here, read again as its runs finish.
  const file = useLab((s) => s.sweepCells?.file);
  const linkCarries = useLab((s) => s.sweep.length > 0 || s.sweepCells !== null);
  const asked = useLab((s) => s.view.mapAsked);
  const runsKey = useThrottledLab(cellsKey, null, 1000);
  const linked = useMemo(() => {
    void runsKey;
    return linkSweepMap(useLab.getState(), REWARD_TAIL);
  }, [runsKey]);
  const opened = folder && folder.over === file ? folder.sweep : (linked ?? folder?.sweep ?? null);

  const open = (files: FileList | null) => {
    const list = [...(files ?? [])].map((f) => ({
      path: f.webkitRelativePath || f.name,
      text: () => f.text(),
    }));
    if (!list.length) return;
    setBusy(true);
    openSweep(list, REWARD_TAIL)
      .then((s) => {
        setFolder({ sweep: s, over: useLab.getState().sweepCells?.file });
        setError(null);
        setX(defaultMapX(s.file.grid));
        setFigure(ALL);
        setBase('');
        setLines(MAP_LINES_BY_RUN);
      })
      .catch((e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };

  // The dial along x: the one picked, or the sweep's default (a link sweep opens with none picked).
  const along = opened?.file.grid.some((d) => d.key === x) ? x : opened ? defaultMapX(opened.file.grid) : '';
  // The run the others are paired with: the one picked, or the first (lab report's). `from` names it
  // where it is not the first, in the downloads' names; undefined below keeps lab report's table.
  const first = opened?.file.config.runs[0]?.label ?? '';
  const from = base !== first && opened?.file.config.runs.some((r) => r.label === base) ? base : '';
  const baseline = from || first;
  // The lines: one per other run, or one per value of a dial other than x (the one picked, if it still is).
  const by = opened?.file.grid.some((d) => d.key === lines && d.key !== along) ? lines : MAP_LINES_BY_RUN;
  const charts = useMemo(
    () => (opened && along ? mapCharts(opened.file.grid, opened.cells, along, from || undefined, by) : []),
    [opened, along, from, by],
  );
  // Each line in its run's colour on the board (its estimator's), or a ramp over a dial's values.
  const runs = opened?.file.config.runs ?? [];
  const labels = runs.map((r) => r.label);
  const lineList = charts[0]?.lines ?? [];
  const colors = lineList.map((l, k) => {
    if (by !== MAP_LINES_BY_RUN) return rampColor(k, lineList.length);
    const i = labels.indexOf(l.run);
    return runColor(runs, i < 0 ? runs.length : i);
  });
  const figures = [...new Set(charts.map((c) => c.figure))];
  const shown = figure === ALL ? figures : figures.filter((f) => f === figure);
  const stamp = () =>
    fileName(`map ${opened?.name ?? ''}${from && ` from ${from}`} ${new Date().toISOString().slice(0, 19)}`);

  // Only once a sweep exists (the link's, or a folder opened) or the Map was asked for (Other tools):
  // a newcomer's first screen has no empty Map.
  if (!opened && !asked && !linkCarries) return null;
  return (
    <section className="panel sweep-map" aria-labelledby="map-title" data-testid="sweep-map">
      <h2 id="map-title">Map</h2>
      <p className="muted">
        Open a sweep folder (<code>lab sweep</code> or <code>lab merge</code> output), or train the sweep a
        link carries (<code>sweep.optim.lr=0.001,0.002</code>), to draw each run’s paired difference from the
        first run (or the run picked under Baseline), with its 95 % CI over seeds, against a dial: the numbers
        of <code>lab report</code> on that sweep. A filled point’s CI excludes 0.
      </p>
      <LinkSweep />
      <label>
        Open a sweep folder{' '}
        <input type="file" data-testid="open-sweep" {...FOLDER} onChange={(e) => open(e.target.files)} />
      </label>
      {busy && <p className="muted">reading…</p>}
      {error && (
        <p role="alert" className="field-error" data-testid="map-error">
          {error}
        </p>
      )}
      {opened && (
        <>
          <p className="muted" data-testid="map-status">
            {opened.name}: {opened.cells.length} cells (
            {opened.cells.filter((c) => c.summaries.length).length} recorded) ×{' '}
            {opened.file.config.runs.length} runs × {opened.file.config.seeds} seeds,{' '}
            {opened.file.config.steps} steps; differences from {baseline}, paired by seed; reward and own
            success over the last {REWARD_TAIL} steps.
          </p>
          {opened.warnings.length > 0 && (
            <ul className="muted" data-testid="map-warnings">
              {opened.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          )}
          <div className="row">
            <label>
              Along x{' '}
              <select value={along} onChange={(e) => setX(e.target.value)} data-testid="map-x">
                {opened.file.grid.map((d) => (
                  <option key={d.key} value={d.key}>
                    {d.key}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Lines{' '}
              <select value={by} onChange={(e) => setLines(e.target.value)} data-testid="map-lines">
                <option value={MAP_LINES_BY_RUN}>one per run</option>
                {opened.file.grid
                  .filter((d) => d.key !== along)
                  .map((d) => (
                    <option key={d.key} value={d.key}>
                      one per {d.key}
                    </option>
                  ))}
              </select>
            </label>
            <label>
              Figure{' '}
              <select value={figure} onChange={(e) => setFigure(e.target.value)} data-testid="map-figure">
                <option value={ALL}>every figure</option>
                {figures.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Baseline{' '}
              <select value={baseline} onChange={(e) => setBase(e.target.value)} data-testid="map-baseline">
                {labels.map((l) => (
                  <option key={l} value={l}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              onClick={() => download(`${stamp()}.csv`, mapCsv(opened, from || undefined), 'text/csv')}
            >
              Download map CSV
            </button>
            <button
              type="button"
              onClick={() =>
                download(`${stamp()}.json`, mapJson(opened, from || undefined), 'application/json')
              }
            >
              Download map JSON
            </button>
          </div>
          <p className="map-legend" data-testid="map-legend">
            {charts[0]?.lines.map((l, k) => (
              <span key={l.pair}>
                <svg width="24" height="8" aria-hidden="true">
                  <line x1="0" y1="4" x2="24" y2="4" stroke={colors[k]} strokeWidth="2" />
                </svg>{' '}
                {l.pair}
              </span>
            ))}
          </p>
          {shown.map((f) => {
            const row = charts.filter((c) => c.figure === f);
            const y = rowAxis(row);
            return (
              <div key={f} className="map-row" data-map-figure={f}>
                <h3 title={f}>{row[0].words}</h3>
                <div className="map-facets">
                  {row.map((c) => (
                    <MapFigure
                      key={c.facet}
                      chart={c}
                      x={along}
                      y={y}
                      colors={colors}
                      from={from}
                      sweep={opened.name}
                    />
                  ))}
                </div>
              </div>
            );
          })}
        </>
      )}
    </section>
  );
}
