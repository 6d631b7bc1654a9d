/**
 * Every preset, in the order the UI's buttons and `lab presets` list them: the GRPO / Dr. MAS
 * comparisons across settings (presets-settings.ts), then the ablations and other methods
 * (presets-alternatives.ts). A preset's shape is preset.ts's. Pure: no tfjs, no DOM.
 */
import type { Preset } from './preset';
import { ALTERNATIVE_PRESETS } from './presets-alternatives';
import { SETTING_PRESETS } from './presets-settings';

export const PRESETS: readonly Preset[] = [...SETTING_PRESETS, ...ALTERNATIVE_PRESETS];

/**
 * Ids a preset had before, still read (`lab train --preset issue81`): `step-vs-agent` was named
 * after the Dr. MAS repository's issue #81, which asked which of its two changes matters.
 */
const FORMER_IDS: Readonly<Record<string, string>> = { issue81: 'step-vs-agent' };

export function presetById(id: string): Preset | undefined {
  const now = FORMER_IDS[id] ?? id;
  return PRESETS.find((p) => p.id === now);
}
