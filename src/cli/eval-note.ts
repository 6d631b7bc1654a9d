/**
 * The line under the CLI's summary table that says why its avg@k and pass@k cells are "—": a run
 * shorter than eval.every (10 by default) ends before its first evaluation, and a bare dash there
 * read as a failure.
 */
import type { RunSummary } from '../report/summary';
import { sharedEvalK, stepSpan } from '../report/summary';
import { stepsWord } from '../core/step-words';

/**
 * Why some runs have no avg@k / pass@k, or null when every run has both. `every` is the
 * experiment's eval.every; undefined where the folder does not say it (an import: the runs came
 * from another trainer).
 */
export function evalNote(summaries: readonly RunSummary[], every: number | undefined): string | null {
  const missing = summaries.filter((s) => !Number.isFinite(s.evalAvg) || !Number.isFinite(s.evalPass));
  if (missing.length === 0) return null;
  const k = sharedEvalK(summaries);
  // The dash formatFixed writes for a missing value (report/findings.ts), quoted as it stands.
  const head = `— under avg@${k} and pass@${k}: no evaluation`;
  if (every === 0) return `${head}, eval.every is 0 (off)`;
  // Shorter than eval.every: the first evaluation is after that many steps (trainer.ts's evalDue).
  if (every !== undefined && missing.every((s) => s.steps < every)) {
    const ran = stepSpan(missing); // "2", or a span "2–3" (not a number: plural)
    return `${head} yet: it comes every ${every} steps (eval.every) and ${ran} ${stepsWord(Number(ran))} ran`;
  }
  return `${head} recorded`;
}
