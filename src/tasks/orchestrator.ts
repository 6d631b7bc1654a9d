/**
 * The rollout orchestrator: B instances × G rollouts advanced together. Each tick it asks every
 * live trajectory's workflow who acts next, batches the calls per model into one policy call,
 * sends the answers through an EnvRunner, and at the end emits one row per agent invocation
 * (DESIGN.md "The row") and one result per trajectory. Pure: no tfjs, no DOM.
 */
import type { Role } from '../core/vocab';
import { InProcessEnvRunner, type EnvRunner, type EnvStepInput } from './env';
import { mixSeed } from '../core/prng';
import { getTask, type TaskName } from './registry';
import { agentSpec, type BaseState } from './types';

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
  /** The call's index within its trajectory, over all agents. */
  step: number;
  /** Trajectory (or agent) reward minus this row's penalty; 0 throughout an errored trajectory. */
  reward: number;
  prompt: string;
  response: string;
  valid: boolean;
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
}

export interface RolloutOptions<X extends object = object> {
  task: TaskName;
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
}

export interface RolloutResult<X extends object = object> {
  /** Trajectory-major, call order within a trajectory. */
  rows: Row<X>[];
  trajectories: TrajectoryResult[];
  /** Policy rounds taken (the longest trajectory's call count). */
  ticks: number;
}

interface Live<X extends object> {
  state: BaseState;
  calls: { agent: Role; prompt: string; output: PolicyOutput<X>; valid: boolean }[];
  error: string | null;
}

/** Runs B × G trajectories to completion. */
export async function rollout<X extends object = object>(opts: RolloutOptions<X>): Promise<RolloutResult<X>> {
  const task = getTask(opts.task);
  const G = opts.groupSize;
  const env = opts.env ?? new InProcessEnvRunner();
  const options: PolicyOptions = { temperature: opts.temperature ?? 1, topP: opts.topP ?? 1 };
  const modelOf = (agent: Role): string => opts.agentModels?.[agent] ?? agent;
  const trajs: Live<X>[] = opts.instances.flatMap((instance) =>
    Array.from({ length: G }, () => ({ state: task.init(instance), calls: [], error: null })),
  );

  let ticks = 0;
  for (;;) {
    // ---- collect every pending call ----
    const pending: PolicyCall[] = [];
    trajs.forEach((t, traj) => {
      if (t.error !== null || t.state.done) return;
      if (t.calls.length >= task.maxCalls) {
        t.error = `workflow exceeded ${task.maxCalls} calls`;
        return;
      }
      const call = task.next(t.state);
      if (!call) return;
      const { maxResponse } = agentSpec(task.agents, call.agent);
      const seed = mixSeed(mixSeed(opts.seed, traj), t.calls.length);
      pending.push({ group: Math.floor(traj / G), traj, ...call, maxResponse, seed, state: t.state });
    });
    if (pending.length === 0) break;
    ticks++;

    // ---- one batch per model ----
    const byModel = new Map<string, PolicyCall[]>();
    for (const c of pending) byModel.set(modelOf(c.agent), [...(byModel.get(modelOf(c.agent)) ?? []), c]);
    const answers = new Map<number, PolicyOutput<X>>();
    await Promise.all(
      [...byModel].map(async ([model, calls]) => {
        const policy = opts.policies[model];
        if (!policy)
          throw new Error(`no policy for model '${model}'; have ${Object.keys(opts.policies).join(', ')}.`);
        const outputs = await policy(calls, options);
        if (outputs.length !== calls.length)
          throw new Error(`policy '${model}' answered ${outputs.length} of ${calls.length} calls.`);
        calls.forEach((c, i) => answers.set(c.traj, outputs[i]));
      }),
    );

    // ---- environment transitions, one batch per tick ----
    const inputs: EnvStepInput[] = pending.map((c) => ({
      traj: c.traj,
      state: c.state,
      agent: c.agent,
      response: answers.get(c.traj)!.text,
    }));
    const results = await env.step(opts.task, inputs);
    pending.forEach((c, i) => {
      const t = trajs[c.traj];
      const r = results[i];
      t.calls.push({
        agent: c.agent,
        prompt: c.prompt,
        output: answers.get(c.traj)!,
        valid: r?.ok === true && r.valid,
      });
      if (!r || !r.ok) t.error = r ? r.error : 'environment returned no result';
      else t.state = r.state;
    });
  }
  if (!opts.env) env.dispose();

  // ---- rows and per-trajectory results ----
  const rows: Row<X>[] = [];
  const trajectories = trajs.map((t, traj): TrajectoryResult => {
    const group = Math.floor(traj / G);
    const outcome = t.error === null ? t.state.outcome : null;
    const agentRewards: Partial<Record<Role, number>> = {};
    const calls: Partial<Record<Role, number>> = {};
    for (const a of task.agents) {
      agentRewards[a.role] = outcome ? (outcome.agentRewards?.[a.role] ?? outcome.reward) : 0;
      calls[a.role] = 0;
    }
    t.calls.forEach((c, step) => {
      const { text, ...extra } = c.output;
      const penalty = outcome && !c.valid ? task.invalidPenalty : 0;
      const turn = calls[c.agent] ?? 0;
      calls[c.agent] = turn + 1;
      const base: TaskRow = {
        group,
        traj,
        agent: c.agent,
        turn,
        step,
        reward: (agentRewards[c.agent] ?? 0) - penalty,
        prompt: c.prompt,
        response: text,
        valid: c.valid,
      };
      rows.push({ ...(extra as Omit<X, 'text'>), ...base } as Row<X>);
    });
    const result: TrajectoryResult = {
      group,
      traj,
      status: outcome ? 'ok' : 'error',
      success: outcome?.success ?? false,
      reward: outcome?.reward ?? 0,
      agentRewards,
      calls,
      invalidRows: t.calls.filter((c) => !c.valid).length,
    };
    if (!outcome) result.error = t.error ?? 'trajectory did not finish';
    return result;
  });
  return { rows, trajectories, ticks };
}
