/**
 * A chart's PNG and SVG buttons: the chart's recharts surface inside `figure`, exported with the
 * title, legend and axis names of `parts()` (chart-image.ts) under the file name `name`. The board's
 * charts and the Map's share them.
 */
import type { RefObject } from 'react';
import { experimentTitle } from '../../core/presets';
import { chartPng, chartSvg } from '../chart-image';
import type { ChartImageParts } from '../chart-image';
import { addError, boardConfig, useLab } from '../session/store';

/** An exported board chart's last notes: the experiment its runs trained, by its one name, and its link. */
export const boardNotes = (): string[] => [
  `Experiment: ${experimentTitle(boardConfig(useLab.getState()))}.`,
  `Link: ${location.href}`,
];

export function ImageButtons({
  figure,
  title,
  name,
  parts,
  disabled,
}: {
  figure: RefObject<HTMLElement | null>;
  /** The chart's title in the buttons' labels. */
  title: string;
  name: string;
  parts: () => ChartImageParts;
  disabled?: boolean;
}) {
  const save = (kind: 'PNG' | 'SVG') => {
    const svg = figure.current?.querySelector<SVGSVGElement>('svg.recharts-surface');
    if (!svg) return;
    if (kind === 'SVG') chartSvg(svg, parts(), name);
    else void chartPng(svg, parts(), name).catch((e: Error) => addError(`PNG export failed: ${e.message}`));
  };
  return (['PNG', 'SVG'] as const).map((kind) => (
    <button
      key={kind}
      type="button"
      className="mini"
      aria-label={`Download ${title} as ${kind}`}
      title={`This chart as ${kind === 'PNG' ? 'a PNG image (2×)' : 'an SVG'}, with its title, legend, axis names, what its data spans and where it came from`}
      disabled={disabled}
      onClick={() => save(kind)}
    >
      {kind}
    </button>
  ));
}
