/**
 * The preset list: one button per entry of the preset registry (src/core/presets.ts), each with
 * its title and its one line (what it tests, what to look for) on screen, not only in a tooltip.
 * The preset the experiment currently equals is marked pressed, so its line stays highlighted
 * after it is picked and until a field is edited away from it.
 */
import { useMemo } from 'react';
import { PRESETS, presetOf } from '../../core/presets';
import { applyExperiment } from '../config-edit';
import { useLab } from '../session/store';

/** The id of the preset the experiment currently equals, if any (its buttons show pressed). */
export function usePickedPreset(): string | undefined {
  const config = useLab((s) => s.config);
  return useMemo(() => presetOf(config)?.id, [config]);
}

export function Presets() {
  const pickedId = usePickedPreset();
  return (
    <ul className="presets" role="group" aria-label="Presets">
      {PRESETS.map((p) => (
        <li key={p.id} data-preset={p.id}>
          <button
            type="button"
            title={p.blurb}
            aria-pressed={p.id === pickedId}
            aria-describedby={`preset-${p.id}-look`}
            onClick={() => applyExperiment(p.config)}
          >
            {p.title}
          </button>
          <p className="preset-look" id={`preset-${p.id}-look`}>
            {p.lookFor}
          </p>
        </li>
      ))}
    </ul>
  );
}
