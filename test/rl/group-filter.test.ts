// rollout.filter (docs/estimators.md#group-filter): `mixed` drops exactly the groups whose rewards are all
// equal, whatever a group is (G rollouts, or a tree's nodes), and says when nothing is left.
import { describe, expect, it } from 'vitest';
import { filterGroups } from '../../src/rl/group-filter';

const rows = (groups: Record<number, number[]>) =>
  Object.entries(groups).flatMap(([g, rewards]) => rewards.map((reward) => ({ group: Number(g), reward })));

describe('group filter', () => {
  it('mixed drops exactly the uniform groups: all 0, all 1, all 0.5 go; any difference stays', () => {
    const batch = rows({
      0: [0, 0, 0, 0],
      1: [1, 0, 1, 1],
      2: [1, 1, 1, 1],
      3: [0.5, 0.5, 0.5, 0.5],
      4: [0.25, 0.25, 0.25, 0.2500001],
      5: [2, -1],
    });
    const f = filterGroups('mixed', batch);
    expect(new Set(f.rows.map((i) => batch[i].group))).toEqual(new Set([1, 4, 5]));
    expect(f.rows).toEqual(batch.flatMap((r, i) => ([1, 4, 5].includes(r.group) ? [i] : [])));
    expect(f.keptFrac).toBe(3 / 6);
    expect(f.empty).toBe(false);
  });

  it('mixed drops a group the estimator treats as all-equal (within TIE_RTOL), not only exact ties', () => {
    // 0.9 and 0.8999999999999999 differ in the last bit: hi > lo, yet allEqual gives every advantage 0.
    const batch = rows({ 0: [0.9, 0.8999999999999999], 1: [0.9, 0.8] });
    const f = filterGroups('mixed', batch);
    expect(f.rows).toEqual([2, 3]);
    expect(f.keptFrac).toBe(1 / 2);
  });

  it('works on groups of any size and order: a tree of 8 nodes, a singleton, interleaved rows', () => {
    // Tree 7's nodes score 0, 0.25, …; tree 9 is all 1; group 3 is one row (uniform by definition).
    const tree = [0, 0.25, 0, 1, 0.5, 0, 0, 0.75].map((reward) => ({ group: 7, reward }));
    const batch = [
      ...tree.slice(0, 4),
      { group: 9, reward: 1 },
      { group: 3, reward: 0.5 },
      ...tree.slice(4),
      { group: 9, reward: 1 },
    ];
    const f = filterGroups('mixed', batch);
    expect(f.rows).toEqual([0, 1, 2, 3, 6, 7, 8, 9]);
    expect(f.keptFrac).toBe(1 / 3);
  });

  it('a step with only uniform groups keeps nothing and says so; none keeps everything', () => {
    const batch = rows({ 0: [1, 1], 1: [0, 0, 0] });
    expect(filterGroups('mixed', batch)).toEqual({ rows: [], keptFrac: 0, empty: true });
    expect(filterGroups('none', batch)).toEqual({ rows: [0, 1, 2, 3, 4], keptFrac: 1, empty: false });
    expect(filterGroups('mixed', []).empty).toBe(true);
  });
});
