/**
 * Tree sampling (`rollout.sampling: 'tree'`), AT-GRPO's rollout (PettingLLMs, arXiv 2510.11062;
 * docs/tree-sampling.md#tree-sampling-at-grpo). Each of the B instances advances K = G branches in lockstep from ONE
 * shared state: at every turn the acting agent samples one candidate per branch from that state,
 * every candidate is scored for that agent, and the best candidate's state is copied into all K
 * branches. So the K rows of one (instance, turn, agent) are true siblings (same prompt, same
 * state), the comparison set AT-GRPO's estimator keys on; under parallel sampling those keys
 * collect rows from different states from turn 1 on, or singletons.
 *
 * Scoring a candidate (its row reward):
 * - the task's `turnReward(before, agent, after)` (the agent's reward for its own transition),
 * - else the outcome, for that agent, of a GREEDY COMPLETION from the candidate's state: every
 *   later call answered by the same policies with argmax decoding (temperature 0; for a scripted
 *   policy, its own seeded choice). The K completions of one turn share their call seeds (common
 *   random numbers), so they differ only by the candidate they start from. Their policy calls
 *   are counted in `completionCalls` (and, through the policy counters, in perf/decode_forwards).
 * The score is the candidate's row reward. `turnReward` is the whole row reward, `invalidPenalty`
 * included where the output was invalid (as PettingLLMs' `calculate_reward`); a completion's
 * outcome is not, so an invalid candidate's completion score loses `invalidPenalty`, as a parallel
 * row's reward does. The best score wins; exact ties are broken by a draw seeded from (rollout
 * seed, instance, depth).
 *
 * `tree-random` (an ablation, not a published method): the same tree, but the state copied forward
 * is a sibling drawn uniformly (same seeded draw), whatever the scores. The sibling sets stay exact
 * while the path follows the policy's own distribution, as a parallel trajectory's does: it
 * separates what exact sibling sets do from what training only on best-of-K paths does.
 * `tree-outcome` (an ablation too): the best sibling is copied forward, but every candidate is
 * scored by a greedy completion's outcome even where the task has a `turnReward`, so its rows carry
 * what a parallel row carries, the outcome, instead of a per-turn reward.
 *
 * Where this matches PettingLLMs' `generate_env_idx_rollout` with `if_greedy=True`
 * (pettingllms/trainer/multi_agents_execution_engine.py at a054fb1) and where it differs:
 * - Same: K branches per instance in lockstep; every sibling row is kept for training and carries
 *   that candidate's own per-turn reward (their `agent_reward` after `calculate_reward`), not the
 *   final outcome; the argmax candidate's env is copied into all branches; the tree ends when the
 *   copied state is done.
 * - Different: PettingLLMs loops over `turn_order` within a turn and copies inside the per-agent
 *   loop after all agents stepped, so later agents' candidates are scored on states their own
 *   branch did not produce; here each call of the workflow is one level of the tree: one agent,
 *   K candidates from the same state, scored, one copied forward.
 * - Different: ties go to a seeded draw instead of np.argmax's first index (which would favour
 *   branch 0 forever); a task without a per-turn reward is scored by a greedy completion
 *   (PettingLLMs' agents all define `calculate_reward`); a candidate whose environment fails ends
 *   its whole tree as an env error (the K branches share one state, there is no other trajectory
 *   to keep), where PettingLLMs skips the failed step.
 * Pure: no tfjs, no DOM.
 */
import type { Role } from '../core/vocab';
import { mixSeed, Prng } from '../core/prng';
import type { EnvStepResult } from './env';
import { InProcessEnvRunner } from './env';
import {
  advance,
  agentRewardsOf,
  answerCalls,
  callSeed,
  resultOf,
  rowOf,
  type AdvanceContext,
  type TrajectoryInFlight,
  type PolicyCall,
  type PolicyOutput,
  type RolloutOptions,
  type RolloutResult,
  type Row,
  type TrajectoryResult,
} from './orchestrator';
import { getTask } from './registry';
import { agentSpec, type AnyTask, type BaseState } from './types';

/** One candidate at one tree level: a row of branch k. */
interface Candidate<X extends object> {
  agent: Role;
  prompt: string;
  output: PolicyOutput<X>;
  valid: boolean;
  /** The tree level: the call's index within its branch, over all agents. */
  callIndex: number;
  turn: number;
  reward: number;
  chosen: boolean;
}

interface Tree<X extends object> {
  state: BaseState;
  /** Calls on the chosen path so far (the tree's depth). */
  depth: number;
  /** Each agent's calls on the chosen path so far (its next row's `turn`). */
  turns: Partial<Record<Role, number>>;
  error: string | null;
  /** K branches, each the list of its candidates in depth order. */
  branches: Candidate<X>[][];
}

/** A level's candidate before scoring: the call it answered and its transition. */
interface Sampled<X extends object> {
  call: PolicyCall;
  output: PolicyOutput<X>;
  result: EnvStepResult | undefined;
}

/**
 * Each candidate's score for its agent, its row reward: `turnReward` where the task has one (and
 * `score` is 'turn'), else the outcome of a greedy completion less the invalid penalty (module
 * doc). NaN for a candidate whose environment or completion failed.
 */
async function scoreCandidates<X extends object>(
  task: AnyTask,
  level: Sampled<X>[],
  trees: Tree<X>[],
  ctx: Omit<AdvanceContext<X>, 'groupOf' | 'seedOf' | 'options'> & { seed: number },
  score: TreeVariant['score'],
): Promise<{ scores: number[]; completionCalls: number }> {
  const after = level.map((c) => (c.result?.ok ? c.result.state : null));
  if (task.turnReward && score === 'turn') {
    const turnReward = task.turnReward.bind(task);
    return {
      scores: level.map((c, i) => (after[i] ? turnReward(c.call.state, c.call.agent, after[i]) : NaN)),
      completionCalls: 0,
    };
  }
  const open = level.flatMap((c, i) => (after[i] && !after[i].done ? [i] : []));
  const inFlight: TrajectoryInFlight<X>[] = open.map((i) => ({
    state: after[i]!,
    calls: [],
    error: null,
    prior: trees[level[i].call.group].depth + 1,
  }));
  await advance(inFlight, {
    ...ctx,
    options: { temperature: 0, topP: 1 },
    groupOf: (j) => level[open[j]].call.group,
    // Shared by the K completions of one tree level: they differ only by their start.
    seedOf: (j, call) => {
      const g = level[open[j]].call.group;
      return mixSeed(mixSeed(ctx.seed, `greedy/${g}/${trees[g].depth}`), call);
    },
  });
  const ends: (BaseState | null)[] = level.map((_, i) => (after[i]?.done ? after[i] : null));
  inFlight.forEach((l, j) => (ends[open[j]] = l.error === null && l.state.done ? l.state : null));
  const scores = level.map((c, i) => {
    const end = ends[i];
    if (!end) return NaN;
    const valid = c.result?.ok === true && c.result.valid;
    return (agentRewardsOf(task, end.outcome)[c.call.agent] ?? 0) - (valid ? 0 : task.invalidPenalty);
  });
  return { scores, completionCalls: inFlight.reduce((n, l) => n + l.calls.length, 0) };
}

/** Index of the highest reward; exact ties drawn with `rng`. */
export function argmaxSeeded(rewards: readonly number[], rng: Prng): number {
  const best = Math.max(...rewards);
  return rng.pick(rewards.flatMap((r, k) => (r === best ? [k] : [])));
}

/**
 * A tree's two choices: which sibling's state a level copies forward (the best-scored one, as
 * AT-GRPO; or a uniform draw) and how a candidate is scored ('turn': the task's turnReward where
 * it has one, else a greedy completion's outcome, as AT-GRPO; 'outcome': always the completion's).
 */
export interface TreeVariant {
  keep: 'best' | 'random';
  score: 'turn' | 'outcome';
}

/** Runs B trees of K = groupSize branches to completion (module doc). */
export async function treeRollout<X extends object = object>(
  opts: RolloutOptions<X>,
  variant: TreeVariant = { keep: 'best', score: 'turn' },
): Promise<RolloutResult<X>> {
  const task = getTask(opts.task);
  const K = opts.groupSize;
  const env = opts.env ?? new InProcessEnvRunner();
  const ctx = {
    task: opts.task,
    env,
    policies: opts.policies,
    modelOf: (agent: Role) => opts.agentModels?.[agent] ?? agent,
    seed: opts.seed,
  };
  const options = { temperature: opts.temperature ?? 1, topP: opts.topP ?? 1 };
  const trees: Tree<X>[] = opts.instances.map((instance) => ({
    state: task.init(instance),
    depth: 0,
    turns: {},
    error: null,
    branches: Array.from({ length: K }, () => []),
  }));

  let ticks = 0;
  let completionCalls = 0;
  for (;;) {
    // ---- the acting agent of every live tree, K calls from its one state ----
    const pending: PolicyCall[] = [];
    trees.forEach((t, group) => {
      if (t.error !== null || t.state.done) return;
      if (t.depth >= task.maxCalls) {
        t.error = `workflow exceeded ${task.maxCalls} calls`;
        return;
      }
      const call = task.next(t.state);
      if (!call) return;
      const { maxResponse } = agentSpec(task.agents, call.agent);
      for (let k = 0; k < K; k++) {
        const traj = group * K + k;
        // Parallel sampling's seed formula: at depth 0 the K candidates are the G parallel first calls.
        const seed = callSeed(opts.seed, traj, t.depth);
        pending.push({ group, traj, ...call, maxResponse, seed, state: t.state });
      }
    });
    if (pending.length === 0) break;
    ticks++;

    const outputs = await answerCalls(pending, { ...ctx, options });
    const results = await env.step(
      opts.task,
      pending.map((c, i) => ({ traj: c.traj, state: c.state, agent: c.agent, response: outputs[i].text })),
    );
    const level = pending.map((call, i): Sampled<X> => ({ call, output: outputs[i], result: results[i] }));
    const scored = await scoreCandidates(task, level, trees, ctx, variant.score);
    completionCalls += scored.completionCalls;

    // ---- per tree: K sibling rows, the chosen candidate's state copied forward ----
    for (let i = 0; i < level.length; i += K) {
      const siblings = level.slice(i, i + K);
      const rewards = scored.scores.slice(i, i + K);
      const tree = trees[siblings[0].call.group];
      const { agent, prompt } = siblings[0].call;
      const valid = siblings.map((c) => c.result?.ok === true && c.result.valid);
      const failed = siblings.findIndex((c, k) => !c.result?.ok || !Number.isFinite(rewards[k]));
      const draw = new Prng(mixSeed(opts.seed, `tree/${siblings[0].call.group}/${tree.depth}`));
      const kept =
        failed >= 0
          ? -1
          : variant.keep === 'best'
            ? argmaxSeeded(rewards, draw)
            : draw.pick(siblings.map((_, k) => k));
      siblings.forEach((c, k) =>
        tree.branches[k].push({
          agent,
          prompt,
          output: c.output,
          valid: valid[k],
          callIndex: tree.depth,
          turn: tree.turns[agent] ?? 0,
          reward: rewards[k],
          chosen: k === kept,
        }),
      );
      if (failed >= 0) {
        const r = siblings[failed].result;
        tree.error =
          r && !r.ok
            ? r.error
            : r
              ? `greedy completion of candidate ${failed} did not finish`
              : 'environment returned no result';
        continue;
      }
      tree.state = (siblings[kept].result as Extract<EnvStepResult, { ok: true }>).state;
      tree.depth++;
      tree.turns[agent] = (tree.turns[agent] ?? 0) + 1;
    }
  }
  if (!opts.env) env.dispose();
  return { ...treeResults(task, trees), ticks, completionCalls };
}

/** Rows (branch-major, depth order) and one result per branch; all K share the tree's outcome. */
function treeResults<X extends object>(
  task: AnyTask,
  trees: Tree<X>[],
): Pick<RolloutResult<X>, 'rows' | 'trajectories'> {
  const K = trees[0]?.branches.length ?? 0;
  const rows: Row<X>[] = [];
  const trajectories: TrajectoryResult[] = [];
  trees.forEach((t, group) => {
    const outcome = t.error === null ? t.state.outcome : null;
    const agentRewards = agentRewardsOf(task, outcome);
    const calls = Object.fromEntries(task.agents.map((a) => [a.role, t.turns[a.role] ?? 0]));
    t.branches.forEach((branch, k) => {
      const traj = group * K + k;
      for (const { output, reward, ...c } of branch)
        rows.push(rowOf(output, { group, traj, ...c, reward: outcome ? reward : 0 }));
      const invalidRows = branch.filter((c) => !c.valid).length;
      trajectories.push(
        resultOf({ group, traj, outcome, error: t.error, agentRewards, calls: { ...calls }, invalidRows }),
      );
    });
  });
  return { rows, trajectories };
}
