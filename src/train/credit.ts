/**
 * Per-agent credit for one rollout batch (reward.credit; SHARP, arXiv 2602.08335): per judged
 * trajectory, the coalitions its mode needs (src/rl/credit.ts) replayed through the env runner
 * (src/tasks/replay.ts), their outcomes turned into one credit per agent, and each row's reward
 * raised by λ × its agent's credit. The outcome v(S) is the task's trajectory `reward` (its shared
 * outcome before per-row penalties; on tasks with role rewards, e.g. coder-tester, the shared
 * `reward`, not the agent's own). v(all) is the trajectory's recorded reward, not replayed.
 * An errored trajectory gets no credit (it is out of the update anyway); a trajectory one of whose
 * replays errored gets credit 0 for every agent and is counted in `credit/replay_errors`.
 */
import type { RewardOptions } from '../core/config-sections';
import { agentKey, M } from '../core/metrics';
import { mixSeed, Prng } from '../core/prng';
import { creditPlan, fullCoalition, type Coalition } from '../rl/credit';
import { mean, populationVariance } from '../rl/stats';
import type { TaskRow, TrajectoryResult } from '../tasks/orchestrator';
import { replay, type EnvStepper, type RecordedCall, type ReplayRequest } from '../tasks/replay';
import type { AnyTask } from '../tasks/types';

export interface BatchCredit {
  /** Per row (batch order): its agent's credit in its trajectory (0 where there is none). */
  rowCredit: Float64Array;
  /** Per row: v(all ∖ {agent}), the outcome without the row's agent; NaN where it was not replayed. */
  rowWithout: Float64Array;
  /** λ: each judged row's reward is raised by weight × its credit. */
  weight: number;
  /** The step's run-level and per-agent credit metrics (core/metrics.ts). */
  metrics: Record<string, number>;
}

interface CreditInput {
  task: AnyTask;
  step: EnvStepper;
  /** The batch's instances; trajectory `traj` of group g replays instances[g]. */
  instances: readonly unknown[];
  rows: readonly Pick<TaskRow, 'traj' | 'agent' | 'turn' | 'prompt' | 'response'>[];
  trajectories: readonly TrajectoryResult[];
  options: RewardOptions;
  /** Seeds the Monte-Carlo permutations (one stream per trajectory). */
  seed: number;
}

/** Credits every judged trajectory of a batch; null under `shared` (nothing to compute). */
export async function batchCredit(o: CreditInput): Promise<BatchCredit | null> {
  // Whether credit is on is the run's setting, not the batch's: a shared run never replays, and
  // never reports credit keys, even on a step whose every trajectory errored.
  if (o.options.credit === 'shared') return null;
  const roles = o.task.agents.map((a) => a.role);
  const K = roles.length;
  const t0 = performance.now();
  const judged = o.trajectories.filter((t) => t.status === 'ok');
  const plans = new Map(
    judged.map((t) => [
      t.traj,
      creditPlan(o.options.credit, K, {
        samples: o.options.creditSamples,
        rng: new Prng(mixSeed(o.seed, t.traj)),
      })!,
    ]),
  );

  // every coalition of every trajectory but the full one (its outcome is the recorded reward)
  const recorded = new Map<number, Partial<Record<string, RecordedCall[]>>>();
  for (const r of o.rows) {
    const byAgent = recorded.get(r.traj) ?? {};
    (byAgent[r.agent] ??= [])[r.turn] = { prompt: r.prompt, response: r.response };
    recorded.set(r.traj, byAgent);
  }
  const requests: ReplayRequest[] = [];
  const index: { traj: number; s: Coalition }[] = [];
  for (const t of judged) {
    for (const s of plans.get(t.traj)!.coalitions) {
      if (s === fullCoalition(K)) continue;
      requests.push({
        instance: o.instances[t.group],
        recorded: recorded.get(t.traj) ?? {},
        keep: new Set(roles.filter((_, k) => s & (1 << k))),
      });
      index.push({ traj: t.traj, s });
    }
  }
  const results = await replay(o.task, o.step, requests, o.options.creditReplay);

  // coalition outcomes → credit per (trajectory, agent)
  const values = new Map<number, Map<Coalition, number>>(
    judged.map((t) => [t.traj, new Map([[fullCoalition(K), t.reward]])]),
  );
  const failed = new Set<number>();
  results.forEach((r, i) => {
    if (!r.outcome) failed.add(index[i].traj);
    else values.get(index[i].traj)!.set(index[i].s, r.outcome.reward);
  });
  const credit = new Map<number, { credit: number[]; se: number[] }>();
  for (const t of judged) {
    const v = values.get(t.traj)!;
    credit.set(
      t.traj,
      failed.has(t.traj)
        ? { credit: new Array<number>(K).fill(0), se: new Array<number>(K).fill(0) }
        : plans.get(t.traj)!.credit((s) => v.get(s)!),
    );
  }

  const rowCredit = new Float64Array(o.rows.length);
  const rowWithout = new Float64Array(o.rows.length).fill(NaN);
  const perAgent = roles.map(() => ({ credit: [] as number[], se: [] as number[] }));
  o.rows.forEach((r, i) => {
    const c = credit.get(r.traj);
    const k = roles.indexOf(r.agent);
    if (!c || k < 0) return;
    rowCredit[i] = c.credit[k];
    rowWithout[i] = failed.has(r.traj) ? NaN : (values.get(r.traj)!.get(fullCoalition(K) & ~(1 << k)) ?? NaN);
    perAgent[k].credit.push(c.credit[k]);
    perAgent[k].se.push(c.se[k]);
  });

  const metrics: Record<string, number> = {
    [M.creditMs]: performance.now() - t0,
    [M.creditReplays]: requests.length,
    [M.creditEnvSteps]: results.reduce((n, r) => n + r.steps, 0),
    [M.creditUnrecorded]: results.reduce((n, r) => n + r.unrecorded, 0),
    [M.creditErrors]: failed.size,
  };
  roles.forEach((role, k) => {
    metrics[agentKey(role, 'credit/mean')] = mean(perAgent[k].credit);
    metrics[agentKey(role, 'credit/std')] = Math.sqrt(populationVariance(perAgent[k].credit));
    metrics[agentKey(role, 'credit/se')] = mean(perAgent[k].se);
  });
  return { rowCredit, rowWithout, weight: o.options.creditWeight, metrics };
}

/** The run-level credit metrics of a step without credit (`shared`): no replays. */
export const NO_CREDIT_METRICS: Record<string, number> = {
  [M.creditMs]: 0,
  [M.creditReplays]: 0,
  [M.creditEnvSteps]: 0,
  [M.creditUnrecorded]: 0,
  [M.creditErrors]: 0,
};
