/**
 * The rollout orchestrator: B instances × G rollouts advanced together. Each tick it asks every
 * live trajectory's workflow who acts next, batches the calls per model into one policy call,
 * sends the answers through an EnvRunner, and at the end emits one row per agent invocation
 * (docs/estimators.md#the-row) and one result per trajectory. Pure: no tfjs, no DOM.
 */
import type { Role } from '../core/vocab';
import { InProcessEnvRunner, type EnvRunner } from './env';
import { mixSeed } from '../core/prng';
import { getTask, type TaskRef } from './registry';
import { agentSpec, type AnyTask, type BaseState, type Outcome } from './types';

/** One pending agent call, as a policy sees it. */
export interface PolicyCall {
  /** Instance index in the batch (the GRPO group). */
  group: number;
  /** Trajectory index in the batch, `group * G + rollout`. */
  traj: number;
  agent: Role;
  prompt: string;
  /** Characters to sample at most (EOS excluded). */
  maxResponse: number;
  /** Per-call seed from (rollout seed, traj, call index): sampling does not depend on batching. */
  seed: number;
  /** The trajectory state, plain data. Only scripted policies (demonstrators) read it. */
  state: Readonly<BaseState>;
}

export interface PolicyOptions {
  temperature: number;
  topP: number;
}

/** A policy's answer: the text plus any extras (token ids, log-probs) passed to rows untouched. */
export type PolicyOutput<X extends object = object> = X & { text: string };

/** A batched policy: one answer per call, in call order. One policy per model id. */
export type Policy<X extends object = object> = (
  calls: PolicyCall[],
  options: PolicyOptions,
) => Promise<PolicyOutput<X>[]>;

/** What the task layer knows about a row; the policy's extras are spread alongside. */
export interface TaskRow {
  group: number;
  traj: number;
  agent: Role;
  /** The agent's invocation index within its trajectory (0 = its first call). */
  turn: number;
  /** The call's index within its trajectory, over all agents (0 = the trajectory's first call). */
  callIndex: number;
  /** Trajectory (or agent) reward minus this row's penalty; 0 throughout an errored trajectory. */
  reward: number;
  prompt: string;
  response: string;
  valid: boolean;
  /** Tree sampling only: this candidate's state was copied into all K branches (tasks/tree.ts). */
  chosen?: boolean;
  /** MCTS sampling only (tasks/mcts.ts): the node's index in its tree, in generation order. */
  node?: number;
  /** MCTS sampling only: the parent node's index in the tree; −1 for a fresh answer at the root. */
  parent?: number;
}

export type Row<X extends object = object> = Omit<X, keyof TaskRow | 'text'> & TaskRow;

export interface TrajectoryResult {
  group: number;
  traj: number;
  /** 'error': the environment failed; success false, reward 0, counted in a metric. */
  status: 'ok' | 'error';
  error?: string;
  success: boolean;
  reward: number;
  /** Reward each agent's rows start from before penalties. */
  agentRewards: Partial<Record<Role, number>>;
  /** Calls per agent; agents that never acted are 0. */
  calls: Partial<Record<Role, number>>;
  invalidRows: number;
  /** Whether each agent did its own part, where the task tells (Outcome.agentSuccess). */
  agentSuccess?: Partial<Record<Role, boolean>>;
}

export interface RolloutOptions<X extends object = object> {
  task: TaskRef;
  /** B instances; each becomes a group of `groupSize` trajectories. */
  instances: readonly unknown[];
  groupSize: number;
  /** Policy per model id. */
  policies: Readonly<Record<string, Policy<X>>>;
  /** Model id per agent; an agent not listed uses its role name as model id. */
  agentModels?: Partial<Record<Role, string>>;
  /** Defaults to a fresh in-process runner. */
  env?: EnvRunner;
  seed: number;
  temperature?: number;
  topP?: number;
  /** MCTS sampling only (tasks/mcts.ts): nodes per tree (rollout.nodes); 8 if absent. */
  nodes?: number;
  /** MCTS sampling only: the agents that are arms (rollout.arms); every agent if absent. */
  arms?: readonly string[];
}

export interface RolloutResult<X extends object = object> {
  /** Trajectory-major, call order within a trajectory. */
  rows: Row<X>[];
  trajectories: TrajectoryResult[];
  /** Policy rounds taken (the longest trajectory's call count). */
  ticks: number;
  /** Policy calls spent scoring tree candidates by greedy completion (tasks/tree.ts); 0 otherwise. */
  completionCalls: number;
  /** Metrics the sampling itself measured (MCTS: tree nodes, each agent's nodes and arm mean). */
  metrics?: Record<string, number>;
}

/** A trajectory in flight, being advanced: its state, the calls made so far, and an env error if any. */
export interface TrajectoryInFlight<X extends object> {
  state: BaseState;
  calls: { agent: Role; prompt: string; output: PolicyOutput<X>; valid: boolean }[];
  error: string | null;
  /** Calls made before this trajectory was handed to `advance` (a completion from mid-trajectory). */
  prior?: number;
}

/** What `advance` needs besides the trajectories. */
export interface AdvanceContext<X extends object> {
  task: TaskRef;
  env: EnvRunner;
  policies: Readonly<Record<string, Policy<X>>>;
  modelOf: (agent: Role) => string;
  options: PolicyOptions;
  /** The GRPO group of trajectory `traj` (its index in the list). */
  groupOf: (traj: number) => number;
  /** The seed of trajectory `traj`'s call number `call` (0 = its first call here). */
  seedOf: (traj: number, call: number) => number;
}

/**
 * The sampling seed of trajectory `traj`'s call number `call` under a rollout seeded `seed`: one
 * formula for parallel, tree and MCTS sampling, so a tree's depth-0 candidates (and an MCTS root's
 * first answers) are the parallel rollout's first calls.
 */
export const callSeed = (seed: number, traj: number, call: number): number =>
  mixSeed(mixSeed(seed, traj), call);

/**
 * Answers every pending call, one policy call per model (the calls of one model batched), and
 * returns the outputs in call order.
 */
export async function answerCalls<X extends object>(
  pending: readonly PolicyCall[],
  c: Pick<AdvanceContext<X>, 'policies' | 'modelOf' | 'options'>,
): Promise<PolicyOutput<X>[]> {
  const byModel = new Map<string, number[]>();
  pending.forEach((call, i) =>
    byModel.set(c.modelOf(call.agent), [...(byModel.get(c.modelOf(call.agent)) ?? []), i]),
  );
  const answers: PolicyOutput<X>[] = new Array(pending.length);
  await Promise.all(
    [...byModel].map(async ([model, idx]) => {
      const policy = c.policies[model];
      if (!policy)
        throw new Error(`no policy for model '${model}'; have ${Object.keys(c.policies).join(', ')}.`);
      const outputs = await policy(
        idx.map((i) => pending[i]),
        c.options,
      );
      if (outputs.length !== idx.length)
        throw new Error(`policy '${model}' answered ${outputs.length} of ${idx.length} calls.`);
      idx.forEach((i, j) => (answers[i] = outputs[j]));
    }),
  );
  return answers;
}

/**
 * Advances every trajectory to its end in lockstep: each tick asks every live trajectory's
 * workflow who acts next, answers all those calls (one batch per model), and applies the
 * transitions (one env batch). Returns the ticks taken.
 */
export async function advance<X extends object>(
  trajs: TrajectoryInFlight<X>[],
  c: AdvanceContext<X>,
): Promise<number> {
  const task = getTask(c.task);
  let ticks = 0;
  for (;;) {
    // ---- collect every pending call ----
    const pending: PolicyCall[] = [];
    trajs.forEach((t, traj) => {
      if (t.error !== null || t.state.done) return;
      if ((t.prior ?? 0) + t.calls.length >= task.maxCalls) {
        t.error = `workflow exceeded ${task.maxCalls} calls`;
        return;
      }
      const call = task.next(t.state);
      if (!call) return;
      const { maxResponse } = agentSpec(task.agents, call.agent);
      pending.push({
        group: c.groupOf(traj),
        traj,
        ...call,
        maxResponse,
        seed: c.seedOf(traj, t.calls.length),
        state: t.state,
      });
    });
    if (pending.length === 0) return ticks;
    ticks++;

    const answers = await answerCalls(pending, c);
    // ---- environment transitions, one batch per tick ----
    const results = await c.env.step(
      c.task,
      pending.map((p, i) => ({ traj: p.traj, state: p.state, agent: p.agent, response: answers[i].text })),
    );
    pending.forEach((p, i) => {
      const t = trajs[p.traj];
      const r = results[i];
      t.calls.push({
        agent: p.agent,
        prompt: p.prompt,
        output: answers[i],
        valid: r?.ok === true && r.valid,
      });
      if (!r || !r.ok) t.error = r ? r.error : 'environment returned no result';
      else t.state = r.state;
    });
  }
}

/** Runs B × G trajectories to completion. */
export async function rollout<X extends object = object>(opts: RolloutOptions<X>): Promise<RolloutResult<X>> {
  const task = getTask(opts.task);
  const G = opts.groupSize;
  const env = opts.env ?? new InProcessEnvRunner();
  const trajs: TrajectoryInFlight<X>[] = opts.instances.flatMap((instance) =>
    Array.from({ length: G }, () => ({ state: task.init(instance), calls: [], error: null })),
  );
  const ticks = await advance(trajs, {
    task: opts.task,
    env,
    policies: opts.policies,
    modelOf: (agent) => opts.agentModels?.[agent] ?? agent,
    options: { temperature: opts.temperature ?? 1, topP: opts.topP ?? 1 },
    groupOf: (traj) => Math.floor(traj / G),
    seedOf: (traj, call) => callSeed(opts.seed, traj, call),
  });
  if (!opts.env) env.dispose();

  // ---- rows and per-trajectory results ----
  const rows: Row<X>[] = [];
  const trajectories = trajs.map((t, traj): TrajectoryResult => {
    const group = Math.floor(traj / G);
    const outcome = t.error === null ? t.state.outcome : null;
    const agentRewards = agentRewardsOf(task, outcome);
    const calls: Partial<Record<Role, number>> = Object.fromEntries(task.agents.map((a) => [a.role, 0]));
    t.calls.forEach((c, callIndex) => {
      const penalty = outcome && !c.valid ? task.invalidPenalty : 0;
      const turn = calls[c.agent] ?? 0;
      calls[c.agent] = turn + 1;
      const reward = rowReward(outcome, agentRewards, c.agent, callIndex) - penalty;
      rows.push(
        rowOf(c.output, {
          group,
          traj,
          agent: c.agent,
          turn,
          callIndex,
          reward,
          prompt: c.prompt,
          valid: c.valid,
        }),
      );
    });
    return resultOf({
      group,
      traj,
      outcome,
      error: t.error,
      agentRewards,
      calls,
      invalidRows: t.calls.filter((c) => !c.valid).length,
    });
  });
  return { rows, trajectories, ticks, completionCalls: 0 };
}

/**
 * A row: the task's fields, with the policy's extras (token ids, log-probs) passed alongside.
 * Assigned onto the extras rather than spread into a new literal: the same properties in the same
 * order, about 1 µs a row where `{ ...extra, ...fields, response }` took 17 in Node 20's V8 (a spread
 * copy that then gains keys gets new hidden classes each time; docs/figures.md#where-a-steps-time-goes).
 */
export function rowOf<X extends object>(output: PolicyOutput<X>, fields: Omit<TaskRow, 'response'>): Row<X> {
  const { text, ...extra } = output;
  return Object.assign(extra, fields, { response: text }) as unknown as Row<X>;
}

/**
 * The reward a trajectory's call number `call` starts from, before penalties: the call's own where
 * the task rewards calls apart (Outcome.callRewards), else its agent's; 0 without an outcome.
 */
export function rowReward(
  outcome: Outcome | null,
  agentRewards: Partial<Record<Role, number>>,
  agent: Role,
  call: number,
): number {
  return outcome?.callRewards?.[call] ?? agentRewards[agent] ?? 0;
}

/** Each agent's reward under an outcome (its own where the task scores agents apart); 0 without one. */
export function agentRewardsOf(task: AnyTask, outcome: Outcome | null): Partial<Record<Role, number>> {
  return Object.fromEntries(
    task.agents.map((a) => [a.role, outcome ? (outcome.agentRewards?.[a.role] ?? outcome.reward) : 0]),
  );
}

/** One trajectory's result; without an outcome it is an env error (success false, reward 0). */
export function resultOf(o: {
  group: number;
  traj: number;
  outcome: Outcome | null;
  error: string | null;
  agentRewards: Partial<Record<Role, number>>;
  calls: Partial<Record<Role, number>>;
  invalidRows: number;
}): TrajectoryResult {
  const result: TrajectoryResult = {
    group: o.group,
    traj: o.traj,
    status: o.outcome ? 'ok' : 'error',
    success: o.outcome?.success ?? false,
    reward: o.outcome?.reward ?? 0,
    agentRewards: o.agentRewards,
    calls: o.calls,
    invalidRows: o.invalidRows,
  };
  if (o.outcome?.agentSuccess) result.agentSuccess = o.outcome.agentSuccess;
  if (!o.outcome) result.error = o.error ?? 'trajectory did not finish';
  return result;
}
