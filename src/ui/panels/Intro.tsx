/**
 * The first screen's question and mechanism, in plain words. The two definitions say what
 * the registry (src/core/estimators.ts) defines for `grpo` and `drmas` (a trajectory's score is
 * the mean of its rows' rewards; a Dr. MAS set is one agent's rows over the G rollouts of one
 * question). Before Train it is open; once runs exist it folds to its question, so the charts move
 * up. It spans the page above the settings and the charts, so a narrow window shows it first.
 *
 * It points a newcomer at a pair of presets, each a button that picks it: `sync`, where the two
 * estimators are identical, and `sync-own-scaled`, where the mechanism map found them part. Seen
 * side by side, the pair shows what the mechanism changes and what it does not.
 */
import { presetById } from '../../core/presets';
import type { Preset } from '../../core/preset';
import { applyExperiment } from '../config-edit';
import { useLab } from '../session/store';
import { usePickedPreset } from './Presets';

/** The pair, each with what it shows in one phrase (the button) before the preset's own line. */
const PAIR: { preset: Preset; shows: string }[] = [
  { preset: presetById('sync')!, shows: 'where the estimators are identical' },
  { preset: presetById('sync-own-scaled')!, shows: 'where they part' },
];

function PresetPair() {
  const picked = usePickedPreset();
  return (
    <>
      <p>
        <strong>Start with a pair:</strong> the same two estimators where they cannot differ, and where they
        do.
      </p>
      <ul className="intro-pair" aria-label="Two presets to start with">
        {PAIR.map(({ preset, shows }) => (
          <li key={preset.id} data-preset={preset.id}>
            <button
              type="button"
              title={preset.blurb}
              aria-pressed={preset.id === picked}
              onClick={() => applyExperiment(preset.config)}
            >
              {preset.id}: {shows}
            </button>{' '}
            {preset.lookFor}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Intro() {
  const hasRuns = useLab((s) => s.runs.length > 0);
  return (
    <section className="panel intro" aria-labelledby="intro-title" data-testid="intro">
      <h2 id="intro-title">Does normalizing advantages per agent change how a multi-agent system learns?</h2>
      <details open={!hasRuns}>
        <summary>How GRPO and Dr. MAS differ, and what to look at</summary>
        <div className="intro-body">
          <p>
            Several small language-model agents solve each task together, taking turns; each turn is a{' '}
            <em>row</em> with its own reward. Each question is rolled out G times, and an advantage says how
            much better than its alternatives a row did. <strong>GRPO</strong> scores a whole trajectory as
            the mean of its rows’ rewards and normalizes that score by the mean and standard deviation of the
            G scores of its question; every row of the trajectory gets the result. <strong>Dr. MAS</strong>{' '}
            normalizes per agent: each agent’s rows are normalized by the mean and standard deviation of that
            agent’s own rows over the same G rollouts. Where an agent’s rewards sit away from the trajectory
            scores, or spread wider or narrower, GRPO’s one normalization scales that agent’s advantages, and
            with them its gradient, up or down; Dr. MAS does not. Where every agent acts once on one shared
            reward, the two are the same.
          </p>
          <div>
            <p>
              <strong>What to look at:</strong> pick a preset (each says what it tests), press Train, then
              read <em>What differs</em>: per agent, how far the two estimators’ advantage scales part and how
              well they agree on the same batches. Then compare the two runs’ reward and success curves; with
              3 or more seeds (Seeds, in Experiment), Findings gives each difference a verdict.
            </p>
            <PresetPair />
          </div>
        </div>
      </details>
    </section>
  );
}
