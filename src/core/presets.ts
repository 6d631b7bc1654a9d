/**
 * Every preset, in the order the UI's buttons and `lab presets` list them: the GRPO / Dr. MAS
 * comparisons across settings (presets-settings.ts), then the ablations and other methods
 * (presets-alternatives.ts). A preset's shape is preset.ts's. Pure: no tfjs, no DOM.
 */
import type { Experiment } from './config';
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

// Presets and configs are both schema-parsed, so equal experiments serialize alike. The presets
// never change, so each is serialized once, on first use.
let presetJson: { preset: Preset; json: string }[] | undefined;

/** The preset `config` equals, if any (the page marks its button pressed). */
export function presetOf(config: Experiment): Preset | undefined {
  presetJson ??= PRESETS.map((preset) => ({ preset, json: JSON.stringify(preset.config) }));
  const now = JSON.stringify(config);
  return presetJson.find((p) => p.json === now)?.preset;
}

/**
 * The experiment's one name wherever it is shown outside the page (an exported chart, the
 * Findings CSV): its preset's title, or its runs and task ("GRPO vs Dr. MAS on math, edited").
 */
export const experimentTitle = (config: Experiment): string =>
  presetOf(config)?.title ??
  `${config.runs.map((r) => r.label).join(' vs ')} on ${config.task}, its settings in the link`;
