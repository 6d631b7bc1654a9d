/** Experiment links the browser tests and bench:ui open; no test-runner imports, so scripts can use them. */

/** The smallest experiment that trains: sync task, one question, two rollouts, no eval. */
export const TINY = '#v=1&task=sync&rollout.batchSize=1&rollout.groupSize=2&eval.every=0';

/** The default experiment's two runs, as the status bar labels them. */
export const RUNS = ['GRPO', 'Dr. MAS'];
