/**
 * The row as the estimators and diagnostics see it (docs/estimators.md#the-row), and
 * the one way rows are grouped by id. Pure: no tfjs, no DOM, no Node APIs.
 */

/** A group, trajectory or agent id. Ids compare by `String(id)`: group 1 and group '1' are one group. */
type RowId = number | string;

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

/** Per-agent reward dials by agent name: ρ_k (absent = 1) and b_k (absent = 0). */
export interface RewardDials {
  scale?: Readonly<Record<string, number>>;
  offset?: Readonly<Record<string, number>>;
}

/** An agent's dials as numbers: ρ_k (1 when absent) and b_k (0 when absent), what its metrics record. */
export function dialsOf(dials: RewardDials, agent: string): { scale: number; offset: number } {
  return { scale: dials.scale?.[agent] ?? 1, offset: dials.offset?.[agent] ?? 0 };
}

/**
 * An agent's row reward as its estimator sees it, ρ_k·r + b_k (docs/estimator-algebra.md#reward-dials).
 * An agent with no dial keeps r itself, bit for bit.
 */
export function dialReward(dials: RewardDials, agent: string, r: number): number {
  const scale = dials.scale?.[agent];
  const offset = dials.offset?.[agent];
  const scaled = scale === undefined ? r : scale * r;
  return offset === undefined ? scaled : scaled + offset;
}

/** The dials that name no agent of `agents`, as `reward.scale.<name>` paths (a typo would do nothing). */
export function unknownDials(dials: RewardDials, agents: readonly string[]): string[] {
  return (['scale', 'offset'] as const).flatMap((d) =>
    Object.keys(dials[d] ?? {})
      .filter((a) => !agents.includes(a))
      .map((a) => `reward.${d}.${a}`),
  );
}
