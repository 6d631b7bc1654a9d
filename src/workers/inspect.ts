/**
 * What the rollout inspector is sent of a step's batch: the first few groups, as plain data. A
 * parallel batch gives one entry per trajectory. A tree batch (rollout.sampling=tree) gives one
 * entry per tree: the chosen path, each of its turns carrying its G siblings (the candidates
 * sampled from the same state, with their rewards and advantages, the chosen one marked). An
 * MCTS batch (rollout.sampling=mcts) gives one entry per search tree: its nodes in generation
 * order, each with its index and its parent's, so the page can draw the tree. No tfjs.
 */
import type { Row, TrajectoryResult } from '../tasks/orchestrator';
import type { InspectedSibling, InspectedTrajectory, InspectedTurn } from './protocol';

/** The rows and results the inspector reads; rows carry log π_old per response token. */
interface InspectedBatch {
  rows: readonly Row<{ oldLogp: number[] }>[];
  advantages: Float64Array;
  trajectories: readonly TrajectoryResult[];
  /** Per-agent credit (reward.credit ≠ shared), per row. */
  credit?: { rowCredit: ArrayLike<number>; rowWithout: ArrayLike<number>; weight: number } | null;
}

function turnOf(b: InspectedBatch, i: number): InspectedTurn {
  const row = b.rows[i];
  return {
    agent: row.agent,
    prompt: row.prompt,
    response: row.response,
    valid: row.valid,
    reward: row.reward,
    advantage: b.advantages[i],
    logp: row.oldLogp,
    ...(b.credit
      ? {
          credit: { credit: b.credit.rowCredit[i], without: b.credit.rowWithout[i], weight: b.credit.weight },
        }
      : {}),
  };
}

/** The batch's first `groups` groups, for the rollout inspector. */
export function inspectBatch(b: InspectedBatch, groups = 2): InspectedTrajectory[] {
  const search = b.rows.some((r) => r.node !== undefined);
  const tree = search || b.rows.some((r) => r.chosen !== undefined);
  const shown = b.trajectories.filter(
    (t) => t.group < groups && (!tree || b.trajectories.find((o) => o.group === t.group) === t),
  );
  return shown.map((t) => {
    const head = { group: t.group, traj: t.traj, success: t.success, reward: t.reward, status: t.status };
    if (!tree)
      return { ...head, turns: b.rows.flatMap((row, i) => (row.traj === t.traj ? [turnOf(b, i)] : [])) };
    const mine = b.rows.flatMap((row, i) => (row.group === t.group ? [i] : []));
    if (search) {
      // A search tree: every node, in generation order, with its parent.
      const nodes = mine.sort((x, y) => b.rows[x].node! - b.rows[y].node!);
      const turns = nodes.map((i) => ({
        ...turnOf(b, i),
        node: { index: b.rows[i].node!, parent: b.rows[i].parent! },
      }));
      const best = Math.max(...turns.map((n) => n.reward));
      return { ...head, reward: best, success: turns.some((n) => n.reward === 1), tree: true, turns };
    }
    // A tree: one level per call of the chosen path (or, where the tree failed, the first branch).
    const levels = [...new Set(mine.map((i) => b.rows[i].callIndex))].sort((x, y) => x - y);
    const turns = levels.map((callIndex): InspectedTurn => {
      const level = mine
        .filter((i) => b.rows[i].callIndex === callIndex)
        .sort((x, y) => b.rows[x].traj - b.rows[y].traj);
      const siblings = level.map((i): InspectedSibling => ({
        ...turnOf(b, i),
        branch: b.rows[i].traj - t.traj,
        chosen: b.rows[i].chosen === true,
      }));
      const shownRow = level.find((i) => b.rows[i].chosen) ?? level[0];
      return { ...turnOf(b, shownRow), siblings };
    });
    return { ...head, tree: true, turns };
  });
}
