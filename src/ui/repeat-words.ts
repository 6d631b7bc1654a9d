/**
 * How the page counts what trains (docs/vocabulary.md): with one seed a run is its one repeat, so
 * they are "runs"; with more, "repeats", said as runs × seeds so a reader who set 3 runs and 2
 * seeds knows where 6 comes from. No React.
 */

/**
 * `n` repeats in words: "2 runs" with one seed; "6 repeats (3 runs × 2 seeds)" where they are the
 * experiment's runs × seeds; "16 repeats" otherwise (a sweep's cells add a factor).
 */
export function repeatsText(n: number, runs: number, seeds: number): string {
  const of = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  if (seeds <= 1) return of(n, 'run');
  return n === runs * seeds ? `${of(n, 'repeat')} (${of(runs, 'run')} × ${seeds} seeds)` : of(n, 'repeat');
}
