/**
 * How the page writes step numbers (docs/vocabulary.md, "step"): a particular step is named by its
 * 0-based index, "step 199", as the charts' x axis, Rollouts, What differs and the metrics files
 * number it; how many are done is a count, "200 steps". The two never share "step N", so the last
 * of 200 steps is "step 199" everywhere and "200 steps" only where steps are counted. The CLI's
 * lines count steps with the same words. Pure.
 */

/** The word after a count of steps: "step" after 1, "steps" after any other. */
export const stepsWord = (n: number): 'step' | 'steps' => (n === 1 ? 'step' : 'steps');

/** A count of steps: "1 step", "200 steps". */
export const stepsCount = (n: number): string => `${n} ${stepsWord(n)}`;

/** Counts of several runs at once: "200 steps" when alike, "4–200 steps" when not. */
export const stepsRange = (lo: number, hi: number): string =>
  lo === hi ? stepsCount(lo) : `${lo}–${hi} steps`;

/**
 * The step counter's tooltip: the count said as the index the rest of the page gives the last
 * step, so "200 steps" beside Rollouts' "step 199" reads as one fact.
 */
export const stepsDoneTitle = (n: number): string =>
  n === 0
    ? 'Steps done: none yet (the first will be step 0)'
    : `Steps done: ${n}, ${n === 1 ? 'step 0' : `steps 0–${n - 1}`} (the charts, Rollouts and What differs number steps from 0)`;
