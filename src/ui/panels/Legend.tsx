/**
 * The chart legend: runs by colour, agents by dash (the two things a line's style tells apart),
 * each a toggle, and beside an opened result which line is its (thin, light) and which was
 * trained here (solid); the layout toggle and the smoothing slider.
 */
import { setView, toggleAgent, toggleRun, useLab, agentDash } from '../session/store';
import type { ChartLayout } from '../session/store';
import { agentsOf, useBoardRuns } from './board';

/** Overlaid or side by side: a radio pair, so it is one tab stop and arrow keys switch it. */
function LayoutToggle() {
  const layout = useLab((s) => s.view.layout);
  const options: { value: ChartLayout; text: string }[] = [
    { value: 'overlaid', text: 'Overlaid' },
    { value: 'side-by-side', text: 'Side by side' },
  ];
  return (
    <div className="layout-toggle" role="radiogroup" aria-label="Chart layout">
      {options.map((o) => (
        <label key={o.value}>
          <input
            type="radio"
            name="chart-layout"
            value={o.value}
            checked={layout === o.value}
            onChange={() => setView({ layout: o.value })}
          />
          {o.text}
        </label>
      ))}
    </div>
  );
}

export function Legend() {
  const runs = useBoardRuns();
  const hiddenRuns = useLab((s) => s.view.hiddenRuns);
  const hiddenAgents = useLab((s) => s.view.hiddenAgents);
  const smoothing = useLab((s) => s.view.smoothing);
  const agents = agentsOf(runs);
  const byIndex = [...new Map(runs.map((r) => [r.runIndex, r])).values()];
  return (
    <div className="legend" role="group" aria-label="Series">
      <span className="legend-label">Runs</span>
      {byIndex.map((r) => (
        <button
          key={r.runIndex}
          type="button"
          className="legend-item"
          aria-pressed={!hiddenRuns.includes(r.runIndex)}
          data-run-color={r.color}
          onClick={() => toggleRun(r.runIndex)}
        >
          <svg width="22" height="8" aria-hidden="true">
            <line x1="0" y1="4" x2="22" y2="4" stroke={r.color} strokeWidth="3" />
          </svg>
          {r.label.replace(/ #\d+$/, '')}
        </button>
      ))}
      {runs.some((r) => r.opened) && (
        <span className="legend-note" data-testid="legend-opened">
          <svg width="22" height="8" aria-hidden="true">
            <line x1="0" y1="4" x2="22" y2="4" stroke="#39424d" strokeWidth="1" strokeOpacity="0.5" />
          </svg>
          opened result{' '}
          <svg width="22" height="8" aria-hidden="true">
            <line x1="0" y1="4" x2="22" y2="4" stroke="#39424d" strokeWidth="2" />
          </svg>
          trained here
        </span>
      )}
      {agents.length > 0 && <span className="legend-label">Agents</span>}
      {agents.map((a, i) => (
        <button
          key={a}
          type="button"
          className="legend-item"
          aria-pressed={!hiddenAgents.includes(a)}
          onClick={() => toggleAgent(a)}
        >
          <svg width="26" height="8" aria-hidden="true">
            <line
              x1="0"
              y1="4"
              x2="26"
              y2="4"
              stroke="#39424d"
              strokeWidth="2"
              strokeDasharray={agentDash(i)}
            />
          </svg>
          {a}
        </button>
      ))}
      <LayoutToggle />
      <label className="smoothing">
        Smoothing
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={smoothing}
          onChange={(e) => setView({ smoothing: Number(e.target.value) })}
          aria-valuetext={`${smoothing.toFixed(2)}`}
        />
        <output>{smoothing.toFixed(2)}</output>
      </label>
    </div>
  );
}
