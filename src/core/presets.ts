/**
 * Every preset, in the order the UI's buttons and `lab presets` list them: the GRPO / Dr. MAS
 * comparisons across settings (presets-settings.ts), then the ablations and other methods
 * (presets-alternatives.ts). A preset's shape is preset.ts's. Pure: no tfjs, no DOM.
 */
import type { Preset } from './preset';
import { ALTERNATIVE_PRESETS } from './presets-alternatives';
import { SETTING_PRESETS } from './presets-settings';

export const PRESETS: readonly Preset[] = [...SETTING_PRESETS, ...ALTERNATIVE_PRESETS];

export function presetById(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}
