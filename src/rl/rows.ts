/**
 * The row as the estimators and diagnostics see it (DESIGN.md "The row"; algorithms.md §1), and
 * the one way rows are grouped by id. Pure: no tfjs, no DOM, no Node APIs.
 */

/** A group, trajectory or agent id. Ids compare by `String(id)`: group 1 and group '1' are one group. */
export type RowId = number | string;

/** One agent invocation, reduced to what the estimators read. */
export interface AdvantageRow {
  /** Prompt group: the G rollouts of one task instance (verl `uid`). */
  group: RowId;
  /** Rollout within the group (`traj_uid`). */
  traj: RowId;
  /** Agent name or index (`agent_id`). */
  agent: RowId;
  /** The agent's invocation index within its trajectory (AT-GRPO / MAGRPO key). */
  turn: number;
  /** Trajectory reward broadcast to the row, minus the row's own penalties (the row's `score`). */
  reward: number;
}

/** Unambiguous key for a list of ids (JSON keeps 'a,b' + 'c' apart from 'a' + 'b,c'). */
export const idKey = (ids: readonly RowId[]): string => JSON.stringify(ids.map(String));

/** Row indices grouped by key, groups in order of first appearance. */
export function groupIndices<R>(rows: readonly R[], key: (row: R) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const k = key(r);
    const list = groups.get(k);
    if (list) list.push(i);
    else groups.set(k, [i]);
  });
  return groups;
}
