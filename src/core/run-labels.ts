/**
 * A run's label when its config names an estimator but no label (docs/links.md#run-labels): the
 * estimator's own label (its entry's in core/estimators.ts), so a MARS2 run is never shown as
 * "GRPO". A label keys a run's lines, its
 * metrics rows and its stored state, so one already taken by another run gets the next free number
 * ("GRPO 2"), and the note says so. Pure: no DOM, no Node.
 */
import { ownLabel, type EstimatorChoice } from './estimators';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Gives every run entry of a raw config that has a known estimator and no label its estimator's
 * label, numbered past the labels already taken (by the labelled runs, then by the ones filled
 * before it, in order). `note` names each run that got a number; null when none did.
 */
export function labelRunsByEstimator(input: unknown): { input: unknown; note: string | null } {
  if (!isRecord(input) || !Array.isArray(input.runs)) return { input, note: null };
  const runs: unknown[] = input.runs;
  const unlabelled = (r: unknown) => isRecord(r) && !('label' in r) && ownLabel(r.estimator) !== undefined;
  if (!runs.some(unlabelled)) return { input, note: null };
  const taken = new Set(
    runs.filter((r) => isRecord(r) && typeof r.label === 'string').map((r) => (r as { label: string }).label),
  );
  const numbered: string[] = [];
  const out = runs.map((r, i) => {
    if (!unlabelled(r)) return r;
    const run = r as Record<string, unknown>;
    const own = ownLabel(run.estimator)!;
    let label = own;
    for (let n = 2; taken.has(label); n++) label = `${own} ${n}`;
    taken.add(label);
    if (label !== own) numbered.push(`run ${i} is labelled "${label}" ("${own}" is another run's label)`);
    return { label, ...run };
  });
  const note = numbered.length
    ? `a run given an estimator and no label takes the estimator's label: ${numbered.join('; ')}`
    : null;
  return { input: { ...input, runs: out }, note };
}

/**
 * The raw config with run i's estimator changed, as the page's estimator menu does it: a label that
 * was the old estimator's own follows to the new one (validation fills it, numbered if taken); a
 * label someone chose is kept.
 */
export function withEstimator(
  config: { runs: readonly { label: string; estimator: EstimatorChoice }[] },
  i: number,
  estimator: unknown,
): unknown {
  const runs = config.runs.map((r, j) => {
    if (j !== i) return r;
    const { label, ...rest } = r;
    return label === ownLabel(r.estimator) ? { ...rest, estimator } : { ...r, estimator };
  });
  return { ...config, runs };
}

/**
 * The config with its runs' labels as a stored session recorded them (`label`, or `label #s` with
 * several seeds, by run index): a session stored before a link's estimator brought its own label
 * was labelled by the default run, and its saved states and lines are keyed by that label. Null
 * when they already agree (or a stored label would repeat another).
 */
export function withStoredLabels<C extends { seeds: number; runs: readonly { label: string }[] }>(
  config: C,
  stored: readonly { label: string; runIndex: number }[],
): C | null {
  const base = (l: string) => (config.seeds > 1 ? l.replace(/ #\d+$/, '') : l);
  const labels = config.runs.map((r, i) => {
    const s = stored.find((x) => x.runIndex === i);
    return s ? base(s.label) : r.label;
  });
  if (labels.every((l, i) => l === config.runs[i].label) || new Set(labels).size < labels.length) return null;
  return { ...config, runs: config.runs.map((r, i) => ({ ...r, label: labels[i] })) };
}
