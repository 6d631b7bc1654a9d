/**
 * What the rollout inspector is sent of a step's batch (workers/inspect.ts makes it from the
 * batch), as plain data: the worker's `rollouts` message carries it, and a result file keeps a
 * sample of it (report/result-format.ts). Pure: types only.
 */

/** One agent turn of a recent trajectory, for the rollout inspector. */
export interface InspectedTurn {
  agent: string;
  prompt: string;
  response: string;
  valid: boolean;
  reward: number;
  advantage: number;
  /** log π_old of each response token (EOS included). */
  logp: number[];
  /**
   * Per-agent credit (reward.credit ≠ shared): the agent's credit in this trajectory and v(all ∖
   * agent), the outcome of the replay without it (NaN where not replayed, e.g. Monte-Carlo Shapley).
   * `reward` above is the row's shared reward; the estimator saw reward + λ × credit.
   */
  credit?: { credit: number; without: number; weight: number };
  /** Tree sampling: the G candidates sampled from this turn's state, in branch order (this turn is the chosen one). */
  siblings?: InspectedSibling[];
  /** MCTS sampling: this node's index in its tree (generation order) and its parent's (−1: the root). */
  node?: { index: number; parent: number };
}
/** One candidate of a tree level: its branch, and whether its state was copied forward. */
export interface InspectedSibling extends Omit<InspectedTurn, 'siblings'> {
  branch: number;
  chosen: boolean;
}
export interface InspectedTrajectory {
  group: number;
  traj: number;
  success: boolean;
  reward: number;
  status: 'ok' | 'error';
  /**
   * Tree sampling: the entry is a whole tree (`turns` = its chosen path, each with its siblings);
   * MCTS sampling: a whole search tree (`turns` = its nodes in generation order, each with `node`).
   */
  tree?: true;
  turns: InspectedTurn[];
}
