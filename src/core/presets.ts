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
 * What a newcomer meets first: three experiments, the control, the setting where the estimators
 * part, and the plain comparison (the default experiment). The page lists them first, one line
 * each; the rest wait under "More experiments", grouped by the question they answer.
 */
export const STARTER_IDS = ['sync', 'sync-own-scaled', 'drmas-vs-grpo'] as const;

/** The other presets by the question they answer, in the order "More experiments" lists them. */
export const PRESET_QUESTIONS: readonly { question: string; ids: readonly string[] }[] = [
  {
    question: 'Which part of Dr. MAS matters?',
    ids: ['step-vs-agent', 'mean-only', 'loss-balance'],
  },
  {
    question: 'Where do per-agent rewards make the estimators part?',
    ids: ['sync-own', 'agents-own', 'search-roles', 'coder-tester', 'credit', 'heterogeneous'],
  },
  {
    question: 'Do longer and branching workflows change it?',
    ids: ['math-loop', 'search-routing', 'plan', 'atgrpo-tree'],
  },
  {
    question: 'How do other fixes and methods compare?',
    ids: ['grad-clip', 'liteppo', 'magrpo-comlrl', 'mars2-team'],
  },
];

/**
 * A preset's line, cut where its words are (`lookFor`): what it tests, in one sentence (the
 * picker's one line), and what to look for (shown once asked for, or once it is picked).
 */
export function presetLine(p: Preset): { tests: string; lookFor: string } {
  const at = p.lookFor.indexOf(' Look for:');
  // "Tests: is it the division by σ_k?" reads "Is it the division by σ_k?" on its own.
  const tests = (at < 0 ? p.lookFor : p.lookFor.slice(0, at)).replace(/^Tests: (.)/, (_, c: string) =>
    c.toUpperCase(),
  );
  return { tests, lookFor: at < 0 ? '' : p.lookFor.slice(at + 1) };
}

/**
 * The experiment's one name wherever it is shown outside the page (an exported chart, the
 * Findings CSV): its preset's title, or its runs and task ("GRPO vs Dr. MAS on math, edited").
 */
export const experimentTitle = (config: Experiment): string =>
  presetOf(config)?.title ??
  `${config.runs.map((r) => r.label).join(' vs ')} on ${config.task}, its settings in the link`;
