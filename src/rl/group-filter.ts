/**
 * Group filters (rollout.filter; docs/estimators.md#group-filter): which groups of a step are
 * trained on. A group is whatever rows share a `group`: a prompt's G rollouts, or one search tree
 * with its nodes; a filter reads nothing but each row's group and the reward the estimator would
 * see, so it works for any sampling. Pure.
 */
import type { GroupFilterName } from '../core/config-names';
import { groupIndices } from './rows';
import { allEqual } from './stats';

/** What a filter reads of a row. */
interface GroupedReward {
  group: number;
  reward: number;
}

/** Per filter: the groups of `rows` it keeps. */
const GROUP_FILTER_RULES: Record<GroupFilterName, (rows: readonly GroupedReward[]) => Set<number>> = {
  none: (rows) => new Set(rows.map((r) => r.group)),
  // A group whose rewards are all equal has every advantage 0 under a mean baseline: no signal, only
  // a share of the batch (MARS2 drops trees of mean 0 or 1, DAPO groups of accuracy 0 or 1).
  // "All equal" is the estimator's own test (allEqual, TIE_RTOL), so a group the estimator would give
  // all-zero advantages is dropped even when its rewards differ in the last bit.
  mixed: (rows) => {
    const groups = groupIndices(rows, (r) => String(r.group));
    const kept = [...groups.values()].filter((idx) => !allEqual(idx.map((i) => rows[i].reward)));
    return new Set(kept.map((idx) => rows[idx[0]].group));
  },
};

export interface FilteredGroups {
  /** Indices into `rows` of the rows in kept groups, in order. */
  rows: number[];
  /** Kept groups over the groups present (NaN with none present). */
  keptFrac: number;
  /** Nothing is left to train on. */
  empty: boolean;
}

/** Applies filter `name` to `rows`. */
export function filterGroups(name: GroupFilterName, rows: readonly GroupedReward[]): FilteredGroups {
  const present = new Set(rows.map((r) => r.group)).size;
  const keep = GROUP_FILTER_RULES[name](rows);
  const kept = rows.flatMap((r, i) => (keep.has(r.group) ? [i] : []));
  return { rows: kept, keptFrac: present ? keep.size / present : NaN, empty: kept.length === 0 };
}
