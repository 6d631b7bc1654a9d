/**
 * The first screen's question, a short lead in words a student of RL knows (row, G and advantage
 * defined where they first appear) and what to do: pick one of three experiments, Train (or that
 * it is off now, pointing to the reasons beside it: TrainOff.tsx), read What differs. How GRPO and Dr. MAS differ waits, folded, for
 * whoever asks. The two definitions say what the registry (src/core/estimators.ts) defines for
 * `grpo` and `drmas` (a trajectory's score is the mean of its rows' rewards; a Dr. MAS set is one
 * agent's rows over the G rollouts of one question). Once runs exist the lead goes, so the charts
 * move up. It spans the page above the settings and the charts, so a narrow window shows it first,
 * the preset picker right after it.
 */
import { useLab } from '../session/store';
import { useTrainBlockers } from './TrainOff';
import { trainOffPointer } from '../train-blockers';

function Lead() {
  const off = useTrainBlockers();
  return (
    <div className="intro-start">
      <p className="intro-lead" data-testid="intro-lead">
        Small language-model agents solve each task together, taking turns; each turn is a <dfn>row</dfn>: one
        agent’s prompt and reply, with its own reward. Each question is rolled out <dfn>G</dfn> times (its
        group of trajectories), and a row’s <dfn>advantage</dfn> says how much better its trajectory did than
        the others of its group: the policy-gradient update moves the agent toward rows with a positive one,
        in proportion. <strong>GRPO</strong> computes it from one score per trajectory;{' '}
        <strong>Dr. MAS</strong> from each agent’s own rows.
      </p>
      <ol className="intro-steps" aria-label="What to do">
        <li>
          Pick an experiment under <em>Experiment</em>: the first three are the place to start.
        </li>
        <li data-testid="intro-train">
          {off.length === 0 ? (
            <>
              Press <strong>Train</strong>.
            </>
          ) : (
            <>
              {trainOffPointer(off)}; then press <strong>Train</strong>.
            </>
          )}
        </li>
        <li>
          Read <em>What differs</em>: per agent, how far the two estimators’ advantages part.
        </li>
      </ol>
    </div>
  );
}

export function Intro() {
  const hasRuns = useLab((s) => s.runs.length > 0);
  return (
    <section className="panel intro" aria-labelledby="intro-title" data-testid="intro">
      <h2 id="intro-title">Does normalizing advantages per agent change how a multi-agent system learns?</h2>
      {!hasRuns && <Lead />}
      <details>
        <summary>How GRPO and Dr. MAS differ, and what to look at</summary>
        <div className="intro-body">
          <p>
            <strong>GRPO</strong> scores a whole trajectory as the mean of its rows’ rewards and normalizes
            that score by the mean and standard deviation of the G scores of its question; every row of the
            trajectory gets the result. <strong>Dr. MAS</strong> normalizes per agent: each agent’s rows are
            normalized by the mean and standard deviation of that agent’s own rows over the same G rollouts.
            Where an agent’s rewards sit away from the trajectory scores, or spread wider or narrower, GRPO’s
            one normalization scales that agent’s advantages, and with them its gradient, up or down; Dr. MAS
            does not. Where every agent acts once on one shared reward, the two are the same.
          </p>
          <p>
            <strong>What to look at:</strong> each preset says what it tests, and once picked what to look
            for. After Train, <em>What differs</em> gives per agent how far the two estimators’ advantage
            scales part and how well they agree on the same batches. Then compare the runs’ reward and success
            curves; with 3 or more seeds (Seeds, in Experiment), Findings gives each difference a verdict.
          </p>
        </div>
      </details>
    </section>
  );
}
