/**
 * One preset: a named experiment, one click in the UI (and `lab --preset`), with the words shown
 * beside it. Its config is the default experiment with a few fields changed, so its URL stays
 * short. Pure: no tfjs, no DOM.
 */
import { DEFAULT_EXPERIMENT, ExperimentSchema } from './config';
import type { Experiment } from './config';

export interface Preset {
  id: string;
  title: string;
  /** What the preset shows, in one or two sentences (its button's tooltip). */
  blurb: string;
  /** One line on screen under its button: what it tests, then what to look for. */
  lookFor: string;
  /**
   * What the lab measured on this preset's setting, in one line with its figures, naming the page
   * that has them (docs/findings.md): What differs says it above its own sentences, so what one run
   * shows is read against what five seeds showed. Only where a study measured it.
   */
  story?: string;
  config: Experiment;
}

/** The default experiment with `patch`'s top-level fields replaced, validated. */
export const presetConfig = (patch: Record<string, unknown>): Experiment =>
  ExperimentSchema.parse({ ...structuredClone(DEFAULT_EXPERIMENT), ...patch });
