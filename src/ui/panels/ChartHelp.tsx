/**
 * A chart's "?" button: a popover with what the chart shows in one sentence, its formula and its
 * metric key (the chart registry's entry, src/core/charts.ts). Escape or a second click closes it.
 */
import { useState } from 'react';

export function ChartHelp({
  title,
  doc,
  formula,
  metric,
}: {
  title: string;
  doc: string;
  formula: string;
  metric: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <span className="chart-help" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
      <button
        type="button"
        className="mini help"
        aria-expanded={open}
        aria-label={`What is ${title}?`}
        title="What this chart shows"
        onClick={() => setOpen((o) => !o)}
      >
        ?
      </button>
      {open && (
        <span className="chart-help-pop" role="note" aria-label={`About ${title}`}>
          <span className="chart-help-doc">{doc}</span>
          <code className="chart-help-formula">{formula}</code>
          <span className="chart-help-key">
            metric <code>{metric}</code>
          </span>
        </span>
      )}
    </span>
  );
}
