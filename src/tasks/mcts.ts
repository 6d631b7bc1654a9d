/**
 * MARS2's tree search (`rollout.sampling: 'mcts'`; docs/tree-sampling.md#mcts-sampling-mars2),
 * adaptive-branching MCTS in the AB-MCTS-A manner (arXiv 2503.04412) with the task's agents as
 * the arms. One tree per instance is the group, of N = `rollout.nodes` nodes. Every node is one
 * agent's answer: a fresh one (a child of the root) or a refinement of its parent, whose prompt
 * holds the parent's answer and its feedback (src/tasks/mcts-nodes.ts). Its score in [0, 1] is
 * its row's reward.
 *
 * One search step, from the root: at the current node v, Thompson sampling (src/tasks/thompson.ts)
 * draws once from each arm, in this order:
 *  - "wider" with agent a, one arm per agent: Beta(1, 1) updated with the scores of every node
 *    agent a has generated in this tree (its arm posterior, whatever the parent);
 *  - "deeper" into child c, one arm per child of v: Beta(1, 1) updated with the scores of c's
 *    subtree, c included.
 * The highest draw wins: a wider arm generates a new child of v with its agent, which ends the
 * step; a deeper arm moves to c and draws again there. A node without children offers only the
 * wider arms, so a step always ends in one new node. A child of the root is a fresh answer.
 *
 * The B trees grow in lockstep, one node each per round (one batched policy call per model), so
 * N rounds make the batch. Each tree draws from its own seeded stream; each call's sampling
 * seed is parallel sampling's formula for the node's row, so a step reruns bit for bit.
 * Scoring is pure and bounded (a list-DSL program on four inputs, an integer compare), so it runs
 * in-process, not in the environment runner.
 *
 * Where this follows MARTI's `AsyncABMCTSA` (TreeQuest's ABMCTSA) and where it differs: same,
 * the agents are the arms, a step either widens with a chosen agent or descends into an existing
 * child, a root child is a fresh solution and a deeper one refines its parent with feedback, the
 * score is the share of tests passed, one tree is the group. Different: each wider arm's
 * posterior pools the agent's nodes over the whole tree instead of keeping one per node, and the
 * prior is a fixed Beta(1, 1); nodes are generated one round at a time, not by 16 concurrent
 * tasks. Pure: no tfjs, no DOM.
 */
import type { MctsTask } from '../core/config-names';
import { agentKey, MCTS_KEYS } from '../core/metrics';
import { mixSeed, Prng } from '../core/prng';
import type { Role } from '../core/vocab';
import { NODE_SPECS, refinePrompt, rootPrompt, shownAnswer, type NodeSpec } from './mcts-nodes';
import {
  answerCalls,
  callSeed,
  resultOf,
  rowOf,
  type PolicyCall,
  type PolicyOutput,
  type RolloutOptions,
  type RolloutResult,
  type Row,
  type TrajectoryResult,
} from './orchestrator';
import { getTask } from './registry';
import { posterior, posteriorMean, thompsonPick, type Beta } from './thompson';
import type { AnyTask } from './types';

/** One node of a tree: who generated it, from what, and how it scored. */
interface MctsNode<X extends object = object> {
  agent: Role;
  /** The parent node's index in its tree; −1: a fresh answer, a child of the root. */
  parent: number;
  prompt: string;
  output: PolicyOutput<X>;
  valid: boolean;
  score: number;
  feedback: string;
  children: number[];
}

/** A tree being searched: its nodes in generation order and the root's children. */
export interface MctsTree<X extends object = object> {
  instance: unknown;
  nodes: MctsNode<X>[];
  roots: number[];
}

/** Each agent's arm posterior: its nodes' scores in this tree. */
export function armPosterior(tree: MctsTree, agent: Role): Beta {
  return posterior(tree.nodes.filter((n) => n.agent === agent).map((n) => n.score));
}

/** The posterior of descending into node `i`: the scores of its subtree, itself included. */
function subtreePosterior(tree: MctsTree, i: number): Beta {
  const scores: number[] = [];
  const visit = (j: number): void => {
    scores.push(tree.nodes[j].score);
    tree.nodes[j].children.forEach(visit);
  };
  visit(i);
  return posterior(scores);
}

/**
 * One search step's choice (module doc): the node to expand (−1: the root) and the agent that
 * generates its new child. Draws from `rng`: agents' arms first, in `agents` order, then the
 * children's, in generation order, at every node it passes.
 */
export function selectExpansion(
  tree: MctsTree,
  agents: readonly Role[],
  rng: Prng,
): { parent: number; agent: Role } {
  let at = -1;
  for (;;) {
    const children = at < 0 ? tree.roots : tree.nodes[at].children;
    const arms = [
      ...agents.map((a) => armPosterior(tree, a)),
      ...children.map((c) => subtreePosterior(tree, c)),
    ];
    const pick = thompsonPick(rng, arms);
    if (pick < agents.length) return { parent: at, agent: agents[pick] };
    at = children[pick - agents.length];
  }
}

/** Runs B trees of N = `nodes` nodes (module doc). */
export async function mctsRollout<X extends object = object>(
  opts: RolloutOptions<X>,
): Promise<RolloutResult<X>> {
  const task = getTask(opts.task);
  const spec: NodeSpec | undefined = NODE_SPECS[opts.task as MctsTask];
  if (!spec)
    throw new Error(`mcts: task ${opts.task} has no nodes; it runs on ${Object.keys(NODE_SPECS).join(', ')}`);
  const N = opts.nodes ?? 8;
  const team = task.agents.map((a) => a.role);
  // rollout.arms: a subset of the team searches (one agent alone: the single-agent baseline).
  const stranger = opts.arms?.find((a) => !(team as string[]).includes(a));
  if (stranger !== undefined || opts.arms?.length === 0)
    throw new Error(
      `rollout.arms: task ${opts.task} has no agent "${stranger ?? ''}" (agents: ${team.join(', ')})`,
    );
  const agents = (opts.arms as readonly Role[] | undefined) ?? team;
  const modelOf = (agent: Role) => opts.agentModels?.[agent] ?? agent;
  const options = { temperature: opts.temperature ?? 1, topP: opts.topP ?? 1 };
  const trees: MctsTree<X>[] = opts.instances.map((instance) => ({ instance, nodes: [], roots: [] }));
  const draws = trees.map((_, g) => new Prng(mixSeed(opts.seed, `mcts/${g}`)));

  for (let round = 0; round < N; round++) {
    const chosen = trees.map((t, g) => selectExpansion(t, agents, draws[g]));
    const pending: PolicyCall[] = trees.map((t, group) => {
      const { parent, agent } = chosen[group];
      const from = parent < 0 ? null : t.nodes[parent];
      const traj = group * N + round;
      return {
        group,
        traj,
        agent,
        prompt: from
          ? refinePrompt(spec, t.instance, shownAnswer(spec, from.output.text), from.feedback)
          : rootPrompt(spec, t.instance),
        maxResponse: spec.maxResponse,
        seed: callSeed(opts.seed, traj, 0),
        // A scripted policy reads the task's state; every arm answers as the answer role would at its start.
        state: task.init(t.instance),
      };
    });
    const outputs = await answerCalls(pending, { policies: opts.policies, modelOf, options });
    pending.forEach((call, group) => {
      const t = trees[group];
      const { score, feedback } = spec.judge(t.instance, outputs[group].text);
      const parent = chosen[group].parent;
      t.nodes.push({
        agent: call.agent,
        parent,
        prompt: call.prompt,
        output: outputs[group],
        valid: task.validate(spec.answerRole, outputs[group].text) === null,
        score,
        feedback,
        children: [],
      });
      (parent < 0 ? t.roots : t.nodes[parent].children).push(t.nodes.length - 1);
    });
  }
  return {
    ...nodeResults(task, trees),
    ticks: N,
    completionCalls: 0,
    metrics: treeMetrics(trees, team, agents),
  };
}

/**
 * One row and one trajectory result per node (a node is a one-call trajectory: turn 0, step 0),
 * node-major within each tree; each carries its node's score as its reward.
 */
function nodeResults<X extends object>(
  task: AnyTask,
  trees: MctsTree<X>[],
): Pick<RolloutResult<X>, 'rows' | 'trajectories'> {
  const rows: Row<X>[] = [];
  const trajectories: TrajectoryResult[] = [];
  trees.forEach((t, group) => {
    t.nodes.forEach((n, i) => {
      const traj = group * t.nodes.length + i;
      rows.push(
        rowOf(n.output, {
          group,
          traj,
          agent: n.agent,
          turn: 0,
          callIndex: 0,
          reward: n.score,
          prompt: n.prompt,
          valid: n.valid,
          node: i,
          parent: n.parent,
        }),
      );
      const calls = Object.fromEntries(task.agents.map((a) => [a.role, a.role === n.agent ? 1 : 0]));
      const outcome = { success: n.score === 1, reward: n.score, agentRewards: { [n.agent]: n.score } };
      trajectories.push(
        resultOf({
          group,
          traj,
          outcome,
          error: null,
          agentRewards: outcome.agentRewards,
          calls,
          invalidRows: n.valid ? 0 : 1,
        }),
      );
    });
  });
  return { rows, trajectories };
}

/**
 * The search's metrics (core/metrics MCTS_KEYS, MCTS_STATS), means over the trees, for every agent
 * of the team: one that is no arm generated 0 nodes and has no arm posterior (NaN, not Beta(1, 1)'s 0.5).
 */
function treeMetrics(
  trees: MctsTree[],
  team: readonly Role[],
  arms: readonly Role[],
): Record<string, number> {
  const meanOver = (f: (t: MctsTree) => number): number =>
    trees.reduce((s, t) => s + f(t), 0) / Math.max(1, trees.length);
  return {
    [MCTS_KEYS.treeNodes]: meanOver((t) => t.nodes.length),
    [MCTS_KEYS.treeBest]: meanOver((t) => Math.max(...t.nodes.map((n) => n.score))),
    [MCTS_KEYS.treeSolved]: meanOver((t) => (t.nodes.some((n) => n.score === 1) ? 1 : 0)),
    ...Object.fromEntries(
      team.flatMap((a): [string, number][] => [
        [agentKey(a, 'nodes'), meanOver((t) => t.nodes.filter((n) => n.agent === a).length)],
        [
          agentKey(a, 'arm_mean'),
          arms.includes(a) ? meanOver((t) => posteriorMean(armPosterior(t, a))) : NaN,
        ],
      ]),
    ),
  };
}
